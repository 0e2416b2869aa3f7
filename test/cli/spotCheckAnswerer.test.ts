/** Who answers the detector's spot checks, resolved once from outcome.* and where the anchors run. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveConfig } from '../../src/core/config.ts';
import { UsageError } from '../../src/cli/args.ts';
import { spotCheckAnswerer } from '../../src/cli/detectorOutcomes.ts';
import { wmrlConfigSchema } from '../../src/rl/config/wmrlConfig.ts';

const outcome = (overrides: Record<string, string>) =>
  resolveConfig(wmrlConfigSchema, { overrides: { 'outcome.source': 'detector', ...overrides } }).outcome;

test('auto: the simulated operator in the simulator, the desk on a robot', () => {
  assert.equal(spotCheckAnswerer(outcome({}), { onRobot: false }), 'simulated');
  assert.equal(spotCheckAnswerer(outcome({}), { onRobot: true }), 'desk');
});

test('desk anywhere; no spot checks, or outcomes not from the detector: nobody is asked', () => {
  const desk = outcome({ 'outcome.spotCheckOperator': 'desk' });
  assert.equal(spotCheckAnswerer(desk, { onRobot: false }), 'desk');
  assert.equal(spotCheckAnswerer(outcome({ 'outcome.spotChecks': '0' }), { onRobot: true }), 'none');
  const environment = resolveConfig(wmrlConfigSchema, { overrides: {} }).outcome;
  assert.equal(spotCheckAnswerer(environment, { onRobot: true }), 'none');
});

test('simulated on a robot is refused, naming the key and what to use', () => {
  const simulated = outcome({ 'outcome.spotCheckOperator': 'simulated' });
  assert.equal(spotCheckAnswerer(simulated, { onRobot: false }), 'simulated');
  assert.throws(
    () => spotCheckAnswerer(simulated, { onRobot: true }),
    (err: unknown) =>
      err instanceof UsageError &&
      /outcome\.spotCheckOperator=simulated .* \(outcome\.spotCheckOperator=auto or desk\)/.test(err.message),
  );
  assert.throws(() => outcome({ 'outcome.spotCheckOperator': 'person' }), /spotCheckOperator/);
});
