/**
 * The run's switches resolved once (src/rl/config/method.ts), and the bounded refit's data
 * (src/rl/corrections/worldModelRefit.ts): what each mode and ablation turns on, and the replay sample.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { anchorGroupCount, resolveMethod } from '../../src/rl/config/method.ts';
import { wmrlConfigSchema } from '../../src/rl/config/wmrlConfig.ts';
import { replaySample } from '../../src/rl/corrections/worldModelRefit.ts';
import { appliedAnchorWeight } from '../../src/rl/step/stepWeights.ts';

const config = (over: Record<string, unknown>) => wmrlConfigSchema.parse(over);

test('denoise: both parts, either one alone, or neither; only in wmrl mode', () => {
  const parts = (over: Record<string, unknown>) => {
    const m = resolveMethod(config(over));
    return [m.anchorWeight, m.ensembleWeight];
  };
  assert.deepEqual(parts({}), [true, true]);
  assert.deepEqual(parts({ denoise: 'anchor' }), [true, false]);
  assert.deepEqual(parts({ denoise: 'ensemble' }), [false, true]);
  assert.deepEqual(parts({ denoise: false }), [false, false]);
  assert.deepEqual(parts({ mode: 'real' }), [false, false]);
  assert.deepEqual(parts({ mode: 'wm-only', denoise: 'ensemble' }), [false, false]);
  assert.throws(() => config({ denoise: 'both' }));
});

test('anchor groups: a share of G with the floor, all of them in real mode, none in wm-only', () => {
  assert.equal(anchorGroupCount(config({ groups: 8, anchorFraction: 0.1 })), 1);
  assert.equal(anchorGroupCount(config({ groups: 32, anchorFraction: 0.03 })), 1);
  assert.equal(anchorGroupCount(config({ groups: 32, anchorFraction: 0.25 })), 8);
  assert.equal(anchorGroupCount(config({ groups: 8, mode: 'real' })), 8);
  assert.equal(anchorGroupCount(config({ groups: 8, mode: 'wm-only' })), 0);
  // Imagined samples weigh as much as real ones unless the config says otherwise.
  assert.equal(resolveMethod(config({})).imaginedWeight, 1);
  assert.equal(resolveMethod(config({ imaginedWeight: 0.5 })).imaginedWeight, 0.5);
  assert.throws(() => config({ imaginedWeight: 'trust' }));
  // Anchors every other step in wmrl mode (the default), every step in the others.
  assert.deepEqual(
    [resolveMethod(config({})).anchorEvery, resolveMethod(config({ mode: 'real' })).anchorEvery],
    [2, 1],
  );
});

test('replay sample: n distinct episodes, seeded, all of them for 0 or n ≥ their number', () => {
  const episodes = Array.from({ length: 50 }, (_, i) => i);
  const a = replaySample(episodes, 10, 7);
  assert.equal(a.length, 10);
  assert.equal(new Set(a).size, 10);
  assert.deepEqual(replaySample(episodes, 10, 7), a);
  assert.notDeepEqual(replaySample(episodes, 10, 8), a);
  assert.deepEqual(
    episodes,
    Array.from({ length: 50 }, (_, i) => i),
    'the data is not reordered',
  );
  assert.equal(replaySample(episodes, 0, 7), episodes);
  assert.equal(replaySample(episodes, 50, 7), episodes);
});

test('the anchor weight multiplies the anchors only in an update that has imagined samples (λ > 0)', () => {
  assert.equal(appliedAnchorWeight(2.4, 1), 2.4);
  assert.equal(appliedAnchorWeight(2.4, 0.3), 2.4);
  // Anchors alone (λ = 0, or real mode): the weight would only scale the step.
  assert.equal(appliedAnchorWeight(2.4, 0), 1);
  assert.equal(appliedAnchorWeight(2.4, null), 1);
});

test("score 'keyframes' needs a world model that holds them; the method's switches are few and settled", () => {
  assert.throws(
    () => resolveMethod(config({ worldModel: { keyframes: false } })),
    /score=keyframes .*needs worldModel\.keyframes/,
  );
  assert.doesNotThrow(() => resolveMethod(config({ score: 'progress', worldModel: { keyframes: false } })));
  for (const removed of ['objectDistance', 'grasp'])
    assert.throws(() => config({ score: removed }), `a removed rule (${removed}) is refused at load`);
  assert.ok(Object.keys(resolveMethod(config({}))).length <= 10);
});
