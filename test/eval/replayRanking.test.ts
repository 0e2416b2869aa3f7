/** Replay ranking: within-group AUC of true progress, open-loop replay and the head alone, on recorded groups. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs';
import type { Episode } from '../../src/core/types.ts';
import { imagine, type DynamicsModel } from '../../src/worldmodel/imagine.ts';
import { replayRanking } from '../../src/eval/replayRanking.ts';
import { replayPolicy } from '../../src/worldmodel/replayPolicy.ts';
import { makeTestEpisode } from '../helpers/episodes.ts';
import { KEYFRAME_DIM } from '../../src/worldmodel/keyframes.ts';

// 1-D toy dynamics: the state moves by the action; progress = sign · next state (sign −1: a head that ranks backwards).
const toy = (sign: number): DynamicsModel => ({
  members: 2,
  step: (x, action) =>
    tf.tidy(() => {
      const next = tf.add(x, action) as tf.Tensor3D;
      return {
        next,
        successLogit: tf.zerosLike(next).squeeze([2]) as tf.Tensor2D,
        progress: tf.mul(next, sign).squeeze([2]) as tf.Tensor2D,
      };
    }),
});
const imaginer = (sign: number) => ({
  imagine: (...a: Parameters<typeof imagine> extends [unknown, ...infer R] ? R : never) => imagine(toy(sign), ...a),
});

/** An episode whose state is the running sum of constant actions `a`; progress = state; success when it ends early. */
function episode(id: string, a: number, steps: number, success: boolean): Episode {
  const e = makeTestEpisode({ id, steps, qposDim: 0, stateDim: 1, actionDim: 1, success });
  const state = Float32Array.from({ length: steps + 1 }, (_, t) => a * t);
  return { ...e, state, actions: new Float32Array(steps).fill(a), progress: Float32Array.from(state) };
}

// Two groups of 4: within each, the faster rollouts succeed (and end sooner).
const groups = [
  [
    episode('a0', 0.3, 3, true),
    episode('a1', 0.25, 4, true),
    episode('a2', 0.1, 10, false),
    episode('a3', 0.05, 10, false),
  ],
  [
    episode('b0', 0.2, 5, true),
    episode('b1', 0.12, 10, false),
    episode('b2', 0.08, 10, false),
    episode('b3', 0.02, 10, false),
  ],
].flat();

test(
  'replayRanking: a model that predicts progress exactly ranks ' +
    'as the truth does; a backwards head ranks every pair wrong',
  () => {
    const right = replayRanking(imaginer(1), groups, 4, 6);
    assert.equal(right.groups, 2);
    assert.deepEqual([right.truth.auc, right.replay.auc, right.head.auc], [1, 1, 1]);
    assert.equal(right.truth.pairs, 2 * 2 + 1 * 3);
    const wrong = replayRanking(imaginer(-1), groups, 4, 6);
    assert.equal(wrong.truth.auc, 1, 'the truth does not depend on the model');
    assert.deepEqual([wrong.replay.auc, wrong.head.auc], [0, 0]);
    assert.throws(() => replayPolicy(groups, [0]), /replay policy: 8 episodes but 1 start steps/);
  },
);

test(
  'replayRanking: a trailing partial group is ignored; ' + 'bad group sizes, horizons and empty input are clear errors',
  () => {
    assert.equal(replayRanking(imaginer(1), [...groups, groups[0]!], 4, 6).groups, 2);
    assert.throws(() => replayRanking(imaginer(1), groups, 1, 6), /group size/);
    assert.throws(() => replayRanking(imaginer(1), groups, 4, 0), /horizon/);
    assert.throws(() => replayRanking(imaginer(1), groups.slice(0, 3), 4, 6), /no group of 4/);
  },
);

// A toy whose state moves by the action: its rollouts near the keyframes at a rate a a step and close at step 5
// (none ends before step 6), so the faster ones close nearer the close keyframe.
const toyK: DynamicsModel = {
  members: 2,
  step: (x, action) =>
    tf.tidy(() => {
      const next = tf.add(x, action) as tf.Tensor3D;
      const zero = tf.zeros([next.shape[0], next.shape[1]]) as tf.Tensor2D;
      return { next, successLogit: zero, progress: tf.clone(zero) };
    }),
};
/**
 * Keyframe features only (KEYFRAME_DIM numbers a step): the family shows close and end, both 20 cm off at the start;
 * the gripper closes them by `a` a step (its x) and its command closes at step 5 (the last action value; the toy adds
 * it to the last flag, which the score reads at the start only).
 */
function keyframeEpisode(id: string, a: number, success: boolean): Episode {
  const steps = 10;
  const D = KEYFRAME_DIM;
  const e = makeTestEpisode({ id, steps, qposDim: 0, stateDim: D, actionDim: D, success });
  const state = new Float32Array((steps + 1) * D);
  for (let t = 0; t <= steps; t++) {
    state[t * D] = 0.2 - a * t;
    state[t * D + 6] = 0.2 - a * t;
    state.set([1, 0, 1], t * D + 9);
  }
  const actions = new Float32Array(steps * D);
  for (let t = 0; t < steps; t++) {
    actions[t * D] = -a;
    actions[t * D + 6] = -a;
    actions[t * D + D - 1] = t >= 5 ? 1 : -1;
  }
  return { ...e, state, actions, progress: new Float32Array(steps + 1) };
}

test('replayRanking with keyframes: the keyframe score ranks the real states up to H and the replayed ones', () => {
  const eps = [
    keyframeEpisode('c0', 0.03, true),
    keyframeEpisode('c1', 0.02, false),
    keyframeEpisode('c2', 0.01, false),
  ];
  const model = {
    imagine: (...a: Parameters<typeof imagine> extends [unknown, ...infer R] ? R : never) => imagine(toyK, ...a),
  };
  const r = replayRanking(model, eps, 3, 6, { keyframes: true });
  assert.deepEqual([r.keyframes!.real.auc, r.keyframes!.replay.auc], [1, 1]);
  assert.equal(replayRanking(model, eps, 3, 6).keyframes, undefined, 'only when asked');
});

// A finger joint (joint position 0) closing 0.2 a step: on the block it stops at 0.3, on nothing it closes to 0.
// The state is [finger, its velocity, one scene number]; the toy integrates the action, and the recorded
// actions are the real finger's steps, so replay follows each finger where it really went.
function fingerEpisode(id: string, success: boolean): Episode {
  const steps = 8;
  const e = makeTestEpisode({ id, steps, qposDim: 1, stateDim: 1, actionDim: 3, success });
  const qpos = Float32Array.from({ length: steps + 1 }, (_, t) => Math.max(success ? 0.3 : 0, 1 - 0.2 * t));
  const actions = new Float32Array(steps * 3);
  for (let t = 0; t < steps; t++) actions[t * 3] = qpos[t + 1]! - qpos[t]!;
  return { ...e, qpos, qvel: new Float32Array(steps + 1), state: new Float32Array(steps + 1), actions };
}

test('replayRanking with a finger: its opening at H, real and replayed, by outcome', () => {
  const eps = [
    fingerEpisode('f0', true),
    fingerEpisode('f1', false),
    fingerEpisode('f2', true),
    fingerEpisode('f3', false),
  ];
  const model = {
    imagine: (...a: Parameters<typeof imagine> extends [unknown, ...infer R] ? R : never) => imagine(toyK, ...a),
  };
  const r = replayRanking(model, eps, 2, 6, { finger: 0 });
  const close = (x: number[], want: number[]) => x.every((v, i) => Math.abs(v - want[i]!) < 1e-6);
  assert.ok(close(r.fingers!.success!.real, [0.3, 0.3, 0.3]), String(r.fingers!.success!.real));
  assert.ok(close(r.fingers!.success!.replay, [0.3, 0.3, 0.3]), String(r.fingers!.success!.replay));
  assert.ok(close(r.fingers!.failure!.real, [0, 0, 0]), String(r.fingers!.failure!.real));
  assert.ok(close(r.fingers!.failure!.replay, [0, 0, 0]), String(r.fingers!.failure!.replay));
  assert.equal(replayRanking(model, eps, 2, 6).fingers, undefined, 'only when asked');
  assert.throws(() => replayRanking(model, eps, 2, 6, { finger: 1 }), /finger joint 1 is not one of episode f0's 1/);
});
