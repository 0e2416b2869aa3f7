/** Demonstration keyframes: the events a demonstration shows, their localiser, and the score read from them. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Episode } from '../../src/core/types.ts';
import {
  eventSteps,
  KEYFRAME_DIM,
  KeyframeLocaliser,
  keyframeFeatures,
  keyframeLabels,
  keyframeScores,
} from '../../src/worldmodel/keyframes.ts';
import { makeTestEpisode } from '../helpers/episodes.ts';

/** An episode of 6 steps whose gripper command (the last action value) is `commands`, succeeding at the last step. */
function commanded(commands: number[], success = true, family = 'pick'): Episode {
  const e = makeTestEpisode({ seed: 3, family, steps: commands.length, actionDim: 2, success });
  commands.forEach((c, t) => {
    e.actions[t * 2 + 1] = c;
  });
  return e;
}

test('eventSteps: where the command first closes, first opens after that, and where success last held', () => {
  assert.deepEqual(eventSteps(commanded([-1, -1, 1, 1, -1, -1])), { end: 6, close: 2, open: 4 });
  // Closed from the start (a paddle) and never opened; a reach that never closes.
  assert.deepEqual(eventSteps(commanded([1, 1, 1, 1])), { end: 4, close: 0 });
  assert.deepEqual(eventSteps(commanded([-1, 0, -1, -0.2])), { end: 4 });
  // A failed episode shows none; a recording of unknown outcome (an imported demonstration) ends where it stops.
  assert.equal(eventSteps(commanded([-1, 1, 1], false)), undefined);
  const unknown = { ...commanded([-1, 1, 1], false), successUnknown: true as const };
  unknown.successes.fill(0);
  assert.deepEqual(eventSteps(unknown), { end: 3, close: 1 });
});

/**
 * Worked numbers. The family shows `close` and `end` (not `open`). At the start the close keyframe is 20 cm from the
 * gripper and the end keyframe 30 cm. Over two imagined steps both rollouts keep their fingers open, then close at
 * step 1; rollout A's gripper is then on the close keyframe, rollout B's 5 cm off it. Both end 10 cm from the end
 * keyframe.
 *   A: close 1 − 0/0.20 = 1,    end 1 − 0.10/0.30 = 0.667, score (1 + 0.667) / 2 = 0.833
 *   B: close 1 − 0.05/0.20 = 0.75, end 0.667,             score (0.75 + 0.667) / 2 = 0.708
 */
test('keyframeScores: closing on the predicted keyframe outranks closing 5 cm off it (worked numbers)', () => {
  const D = KEYFRAME_DIM;
  const H = 2;
  const R = 2;
  const states = new Float32Array((H + 1) * R * D);
  const set = (t: number, r: number, close: number, end: number) => {
    const at = (t * R + r) * D;
    states.set([close, 0, 0], at); // close − gripper
    states.set([end, 0, 0], at + 3); // open: not shown, holds the end's
    states.set([end, 0, 0], at + 6); // end − gripper
    states.set([1, 0, 1], at + 9); // shown: close, not open, end
  };
  for (let r = 0; r < R; r++) set(0, r, 0.2, 0.3);
  set(1, 0, 0, 0.15);
  set(1, 1, 0.05, 0.15);
  for (let r = 0; r < R; r++) set(2, r, 0.02, 0.1);
  const actions = new Float32Array(H * R * 2);
  for (let r = 0; r < R; r++) {
    actions[(0 * R + r) * 2 + 1] = -1;
    actions[(1 * R + r) * 2 + 1] = 1;
  }
  const scores = keyframeScores(states, actions, H, R, D, 2);
  // As of the last step: the final scores.
  assert.ok(Math.abs(scores[H * R - R]! - (1 + 2 / 3) / 2) < 1e-6, `A ${scores[H * R - R]}`);
  assert.ok(Math.abs(scores[H * R - R + 1]! - (0.75 + 2 / 3) / 2) < 1e-6, `B ${scores[H * R - R + 1]}`);
  assert.ok(scores[H * R - R]! > scores[H * R - R + 1]!);
  // After step 0 neither has closed: each event reads the latest state, as if it happened there.
  // A: close 1 − 0/0.2 = 1, end 1 − 0.15/0.3 = 0.5; B: close 0.75, end 0.5.
  assert.ok(Math.abs(scores[0]! - 0.75) < 1e-6 && Math.abs(scores[1]! - 0.625) < 1e-6, `${scores[0]} ${scores[1]}`);
  // A rollout that passes its end keyframe and moves off keeps the closest it came (a demonstration ends there):
  // A's last state 25 cm from the end keyframe instead of 10 still scores its step-1 0.5 for the end.
  set(2, 0, 0.02, 0.25);
  const passed = keyframeScores(states, actions, H, R, D, 2);
  assert.ok(Math.abs(passed[H * R - R]! - (1 + 0.5) / 2) < 1e-6, `A after passing ${passed[H * R - R]}`);
});

test('KeyframeLocaliser: recovers each event a family shows from the first frame, none it does not', () => {
  // A latent of 2 numbers a step; the block is at (0.3 + 0.1 z0, 0.1 z1, 0.02); pick closes on it and ends 8 cm
  // above; reach never closes and ends 4 cm above it.
  const episodes: Episode[] = [];
  const gripper = new Map<Episode, number[][]>();
  for (let i = 0; i < 40; i++) {
    const family = i % 2 ? 'pick' : 'reach';
    const e = makeTestEpisode({ seed: i + 1, family, steps: 4, actionDim: 2, stateDim: 2, success: true });
    const z = [Math.sin(i + 1), Math.cos(2.3 * (i + 1))];
    for (let t = 0; t <= 4; t++) e.state.set(z, t * 2);
    const block = [0.3 + 0.1 * z[0]!, 0.1 * z[1]!, 0.02];
    for (let t = 0; t < 4; t++) e.actions[t * 2 + 1] = family === 'pick' && t >= 2 ? 1 : -1;
    const path = [[0.1, 0, 0.2], [0.2, 0, 0.1], block, block, [block[0]!, block[1]!, family === 'pick' ? 0.1 : 0.06]];
    gripper.set(e, path);
    episodes.push(e);
  }
  const labels = keyframeLabels(episodes, (e, t) => gripper.get(e)![t]!);
  const localiser = KeyframeLocaliser.fit(episodes, labels, 2);
  const z = [0.5, -0.4];
  const pick = localiser.estimate(z, { family: 'pick', object: episodes[1]!.task.object });
  const near = (p: number[] | undefined, q: number[]) => p?.every((v, j) => Math.abs(v - q[j]!) < 5e-3);
  assert.ok(near(pick.close, [0.35, -0.04, 0.02]), `pick close ${pick.close}`);
  assert.ok(near(pick.end, [0.35, -0.04, 0.1]), `pick end ${pick.end}`);
  assert.equal(pick.open, undefined);
  const reach = localiser.estimate(z, { family: 'reach', object: episodes[0]!.task.object });
  assert.equal(reach.close, undefined);
  assert.ok(near(reach.end, [0.35, -0.04, 0.06]), `reach end ${reach.end}`);
  // The features: each keyframe minus the gripper, an event not shown holding the end's, then the flags.
  const out = new Float32Array(KEYFRAME_DIM);
  keyframeFeatures(reach, [0.35, -0.04, 0], out, 0);
  assert.deepEqual(Array.from(out.slice(9)), [0, 0, 1]);
  assert.ok(Math.abs(out[2]! - 0.06) < 5e-3 && Math.abs(out[8]! - 0.06) < 5e-3);
  // What a checkpoint stores estimates the same; a family with no successful episode is refused by name.
  const restored = KeyframeLocaliser.fromJSON(JSON.parse(JSON.stringify(localiser.toJSON())));
  assert.deepEqual(restored.estimate(z, { family: 'pick', object: episodes[1]!.task.object }), pick);
  assert.throws(() => localiser.estimate(z, { family: 'push' }), /no successful episode of family 'push'/);
  assert.throws(
    () =>
      KeyframeLocaliser.fit(
        episodes,
        episodes.map(() => undefined),
        2,
      ),
    /no successful episode/,
  );
});
