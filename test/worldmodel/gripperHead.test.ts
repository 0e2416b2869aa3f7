/**
 * The gripper head: the finger joints' dynamics from a network of their own that reads only the gripper's
 * neighbourhood (gripperHead.ts), spliced into the joint network's prediction, trained with it, kept in checkpoints.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { selectBackend } from '../../src/backend/selectBackend.ts';
import { resolveConfig } from '../../src/core/config.ts';
import type { Episode } from '../../src/core/types.ts';
import { gripperHeadLayout } from '../../src/worldmodel/gripperHead.ts';
import { StateWorldModel } from '../../src/worldmodel/stateWorldModel.ts';
import { WorldModel } from '../../src/worldmodel/worldModel.ts';
import { worldModelConfigSchema, WORLD_MODEL_KERNELS } from '../../src/worldmodel/worldModelConfig.ts';
import { loadWorldModel, saveWorldModel } from '../../src/worldmodel/worldModelFiles.ts';
import { collectMixedEpisodes } from '../helpers/simEpisodes.ts';

let episodes: Episode[];
const dir = mkdtempSync(join(tmpdir(), 'wmrl-gripper-'));
before(async () => {
  await selectBackend('wasm', { requiredKernels: WORLD_MODEL_KERNELS, log: () => {} });
  episodes = await collectMixedEpisodes({ families: ['pick'], perKind: 3, seed: 17 });
});
after(() => rmSync(dir, { recursive: true, force: true }));

test("the gripper head's layout: the finger joints after the arm's, read with the object features", () => {
  // vx300: 6 arm joints and one finger joint, a 7-dim action; [qpos 7, qvel 7, latent 4, ee 3, object 3, lift].
  const dims = { state: 25, action: 7, context: 3 };
  assert.deepEqual(gripperHeadLayout(dims, 7, { object: 'localised' }), {
    outputs: [6, 13],
    stateInputs: [6, 13, 21, 22, 23, 24],
    actionInputs: [6],
  });
  // Two finger joints: both predicted, both read.
  assert.deepEqual(gripperHeadLayout({ ...dims, state: 27 }, 8, { object: 'privileged' }).outputs, [6, 7, 14, 15]);
  assert.throws(() => gripperHeadLayout(dims, 7, undefined), /told the object \(wmrl train --worldModel\.object/);
  assert.throws(() => gripperHeadLayout(dims, 6, { object: 'localised' }), /finger joints after the arm's 6/);
});

test('a local head predicts its dims from the dims it reads only, and the rest from the joint network', () => {
  const dims = { state: 6, action: 2, context: 3 };
  const stats = {
    state: { mean: Array(6).fill(0), std: Array(6).fill(1) },
    delta: { mean: Array(6).fill(0), std: Array(6).fill(1) },
  };
  const local = { outputs: [1, 4], stateInputs: [1, 4, 5], actionInputs: [1], hidden: [8] };
  const model = new StateWorldModel(
    { members: 2, hidden: [8], seed: 3, minLogVar: -3, maxLogVar: 2, localHead: local },
    dims,
    stats,
  );
  try {
    assert.ok(model.localNet);
    assert.equal(model.variables().length, model.net.variables().length + model.localNet!.variables().length);
    const x = [0.1, -0.2, 0.3, 0.4, -0.5, 0.6];
    const a = [0.2, -0.7];
    const delta = (state: number[], action: number[]) =>
      tf.tidy(() => {
        const out = model.transition(
          tf.tensor3d(state, [1, 1, 6]).tile([2, 1, 1]) as tf.Tensor3D,
          tf.tensor3d(action, [1, 1, 2]).tile([2, 1, 1]) as tf.Tensor3D,
          tf.tensor3d([0, 1, 0], [1, 1, 3]).tile([2, 1, 1]) as tf.Tensor3D,
        );
        return [Array.from(out.deltaMean.dataSync()), Array.from(out.logVar.dataSync())];
      });
    const [mean, logVar] = delta(x, a);
    const dimsOf = (v: number[], ds: number[]) => v.filter((_, i) => ds.includes(i % 6));
    const head = [1, 4];
    const rest = [0, 2, 3, 5];
    // A dim the head does not read (0), and the arm's action (0): the head's dims stay, the others move.
    for (const [state, action] of [
      [[0.9, ...x.slice(1)], a],
      [x, [0.9, a[1]!]],
    ] as const) {
      const [m, v] = delta([...state], [...action]);
      assert.deepEqual(dimsOf(m!, head), dimsOf(mean!, head));
      assert.deepEqual(dimsOf(v!, head), dimsOf(logVar!, head));
      assert.notDeepEqual(dimsOf(m!, rest), dimsOf(mean!, rest));
    }
    // A dim it reads (5) and the gripper command (action 1) move the head's dims.
    assert.notDeepEqual(dimsOf(delta([...x.slice(0, 5), -0.9], a)[0]!, head), dimsOf(mean!, head));
    assert.notDeepEqual(dimsOf(delta(x, [a[0]!, 0.9])[0]!, head), dimsOf(mean!, head));
  } finally {
    model.dispose();
  }
});

test('gripperHead: trained with the world model, kept in its checkpoint; refused without the object', async () => {
  const config = resolveConfig(worldModelConfigSchema, {
    overrides: { members: '2', hidden: '[32]', 'train.epochs': '2', 'train.k': '2', seed: '5', gripperHead: 'true' },
  });
  await assert.rejects(WorldModel.train(episodes, config), /the gripper head reads the object's position/);
  const { model } = await WorldModel.train(episodes, config, {}, { endEffector: true, object: 'privileged' });
  try {
    const head = model.dynamics.localNet!;
    const start = new WorldModel(config, model.meta);
    try {
      // Trained: its weights moved from the same seed's initial ones.
      const moved = head.variables().some((v, i) => {
        const before = start.dynamics.localNet!.variables()[i]!;
        return tf.tidy(() => tf.max(tf.abs(tf.sub(v, before))).dataSync()[0]!) > 1e-4;
      });
      assert.ok(moved, "the gripper head's weights did not move in training");
    } finally {
      start.dispose();
    }
    await saveWorldModel(model, join(dir, 'gripper'));
    const loaded = await loadWorldModel(join(dir, 'gripper'));
    try {
      assert.equal(loaded.config.gripperHead, true);
      const e = episodes[0]!;
      const D = model.meta.dims.state;
      const x = new Float32Array(D);
      x.set(e.qpos.subarray(0, e.qposDim));
      x.set(e.qvel.subarray(0, e.qposDim), e.qposDim);
      x.set(e.state.subarray(0, e.stateDim), 2 * e.qposDim);
      const next = (m: WorldModel) =>
        tf.tidy(() =>
          m.dynamics
            .transition(
              tf.tensor3d(x, [1, 1, D]).tile([2, 1, 1]) as tf.Tensor3D,
              tf.tensor3d(e.actions.subarray(0, e.actionDim), [1, 1, e.actionDim]).tile([2, 1, 1]) as tf.Tensor3D,
              tf.tensor3d([0, 1, 0], [1, 1, 3]).tile([2, 1, 1]) as tf.Tensor3D,
            )
            .next.dataSync(),
        );
      assert.deepEqual(next(loaded), next(model));
    } finally {
      loaded.dispose();
    }
  } finally {
    model.dispose();
  }
});
