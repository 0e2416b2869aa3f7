/** `wmrl wm rank`'s closing table: one step from fingers closing, real against predicted, by the object's distance. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs';
import type { Episode } from '../../src/core/types.ts';
import { imagine, type DynamicsModel } from '../../src/worldmodel/imagine.ts';
import { closingSteps } from '../../src/eval/closingSteps.ts';
import { makeTestEpisode } from '../helpers/episodes.ts';

// State [finger, its velocity, object − gripper xyz, lift]; actions [the finger's step (the toys'), gripper command].
// Fingers on the object (1 cm away) close 0.05 a step from 0.82; beside it (10 cm) 0.2 a step from 0.8 to 0.
function closing(id: string, away: number): Episode {
  const steps = 6;
  const e = makeTestEpisode({ id, steps, qposDim: 1, stateDim: 4, actionDim: 2 });
  const rate = away < 0.02 ? 0.05 : 0.2;
  const qpos = Float32Array.from({ length: steps + 1 }, (_, t) =>
    Math.max(away < 0.02 ? 0.3 : 0, (away < 0.02 ? 0.82 : 0.8) - rate * t),
  );
  const actions = new Float32Array(steps * 2);
  for (let t = 0; t < steps; t++) {
    actions[t * 2] = qpos[t + 1]! - qpos[t]!;
    actions[t * 2 + 1] = 1; // commanded closed
  }
  const state = new Float32Array((steps + 1) * 4);
  for (let t = 0; t <= steps; t++) state[t * 4] = away;
  return { ...e, qpos, qvel: new Float32Array(steps + 1), state, actions };
}

/** A toy model moving the finger by the recorded step (exact), or by −0.1 whatever the object (blind). */
const toy = (blind: boolean): DynamicsModel => ({
  members: 2,
  step: (x, action) =>
    tf.tidy(() => {
      const [K, N, D] = x.shape;
      const finger = blind ? tf.fill([K, N, 1], -0.1) : action.slice([0, 0, 0], [K, N, 1]);
      const next = tf.add(x, tf.concat([finger, tf.zeros([K, N, D - 1])], 2)) as tf.Tensor3D;
      return { next, successLogit: tf.zeros([K, N]) as tf.Tensor2D, progress: tf.zeros([K, N]) as tf.Tensor2D };
    }),
});
const model = (blind: boolean) => ({
  imagine: (...a: Parameters<typeof imagine> extends [unknown, ...infer R] ? R : never) => imagine(toy(blind), ...a),
});

test("closingSteps: the finger's step at openings 0.3–0.7 commanded closed, real and predicted, by distance", () => {
  const eps = [closing('on', 0.01), closing('beside', 0.1)];
  const exact = closingSteps(model(false), eps, 0);
  assert.deepEqual(
    exact.map((r) => [r.from, r.to, r.steps]),
    [
      [0, 0.02, 3], // openings 0.67, 0.62, 0.57 on the object (0.82 … 0.72 are above 0.7)
      [0.02, 0.04, 0],
      [0.04, 0.08, 0],
      [0.08, Infinity, 2], // 0.6 and 0.4 beside it
    ],
  );
  const near = (a: number, b: number) => Math.abs(a - b) < 1e-6;
  assert.ok(near(exact[0]!.real, -0.05) && near(exact[0]!.model, -0.05), JSON.stringify(exact[0]));
  assert.ok(near(exact[3]!.real, -0.2) && near(exact[3]!.model, -0.2), JSON.stringify(exact[3]));
  // A model that closes fingers alike wherever the object is: the rows part in reality, not in the model.
  const blind = closingSteps(model(true), eps, 0);
  assert.ok(near(blind[0]!.model, -0.1) && near(blind[3]!.model, -0.1));
  assert.equal(blind[1]!.real, 0, 'an empty row reads 0 with 0 steps');
  // Opening commands are not closing steps.
  const opening = eps.map((e) => ({ ...e, actions: e.actions.map((a, i) => (i % 2 ? -1 : a)) }));
  assert.equal(
    closingSteps(model(false), opening, 0).reduce((s, r) => s + r.steps, 0),
    0,
  );
  assert.throws(() => closingSteps(model(false), eps, 1), /finger joint 1 is not one of episode on's 1/);
});
