/**
 * When imagination trains the policy: the KL limit's stop, and a restart's second radius counted
 * from where the policy stood when imagination resumed (worked sequence of updates).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { afterUpdate, resumeIfDue } from '../../src/rl/imaginationStop.ts';
import type { TrainingProgress } from '../../src/rl/trainer.ts';

const fresh = (): TrainingProgress => ({
  step: 0,
  robotSeconds: 0,
  computeSeconds: 0,
  realEpisodes: 0,
  anchorEpisodeIds: [],
});

test('without a restart, the first imagined update past the limit stops imagination for good', () => {
  const p = fresh();
  const limits = { imaginedKlLimit: 0.1 };
  assert.equal(afterUpdate(p, limits, 1, 0.05, true), false);
  // An update of real samples alone never stops imagination, whatever its KL.
  assert.equal(afterUpdate(p, limits, 2, 0.5, false), false);
  assert.equal(p.imaginationStoppedAt, undefined);
  assert.equal(afterUpdate(p, limits, 3, 0.12, true), true);
  assert.equal(p.imaginationStoppedAt, 3);
  for (let step = 4; step < 30; step++) assert.equal(resumeIfDue(p, limits, step), false);
  assert.equal(p.imaginationStoppedAt, 3);
  afterUpdate(p, limits, 4, 0.3, false);
  assert.equal(p.imaginationKlBase, undefined, 'no restart: nothing counts from a base');
  // No limit, no stop.
  const q = fresh();
  assert.equal(afterUpdate(q, {}, 1, 9, true), false);
  assert.deepEqual(q, fresh());
});

test('with a restart after 2 real steps, imagination resumes one more limit from the KL it resumed at', () => {
  const p = fresh();
  const limits = { imaginedKlLimit: 0.1, imaginationRestartAfter: 2 };
  assert.equal(afterUpdate(p, limits, 4, 0.11, true), true); // stop after step 4
  // Steps 5 and 6 train on real rollouts; the base follows their KL.
  assert.equal(resumeIfDue(p, limits, 5), false);
  afterUpdate(p, limits, 5, 0.14, false);
  assert.equal(resumeIfDue(p, limits, 6), false);
  afterUpdate(p, limits, 6, 0.16, false);
  assert.equal(p.imaginationKlBase, 0.16);
  // Step 7 imagines again; the limit is now 0.16 + 0.1.
  assert.equal(resumeIfDue(p, limits, 7), true);
  assert.equal(p.imaginationStoppedAt, undefined);
  assert.equal(afterUpdate(p, limits, 7, 0.25, true), false);
  assert.equal(p.imaginationKlBase, 0.16, 'the base holds while imagination runs');
  assert.equal(afterUpdate(p, limits, 8, 0.27, true), true);
  assert.deepEqual([p.imaginationStoppedAt, p.imaginationKlBase], [8, 0.27]);
  assert.equal(resumeIfDue(p, limits, 10), false);
  assert.equal(resumeIfDue(p, limits, 11), true);
});
