/**
 * The scene score head: success and progress from the state's
 * scene part only, learned from real states, kept in checkpoints.
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
import { WorldModel } from '../../src/worldmodel/worldModel.ts';
import { worldModelConfigSchema, WORLD_MODEL_KERNELS } from '../../src/worldmodel/worldModelConfig.ts';
import { loadWorldModel, saveWorldModel } from '../../src/worldmodel/worldModelFiles.ts';
import { collectMixedEpisodes } from '../helpers/simEpisodes.ts';

let episodes: Episode[];
const dir = mkdtempSync(join(tmpdir(), 'wmrl-scene-'));
before(async () => {
  await selectBackend('wasm', { requiredKernels: WORLD_MODEL_KERNELS, log: () => {} });
  episodes = await collectMixedEpisodes({ families: ['reach'], perKind: 6, seed: 11 });
});
after(() => rmSync(dir, { recursive: true, force: true }));

const config = (scoreHead: string, epochs = '3') =>
  resolveConfig(worldModelConfigSchema, {
    overrides: {
      members: '2',
      hidden: '[32]',
      'train.epochs': epochs,
      'train.k': '2',
      'train.patience': '10',
      seed: '5',
      scoreHead,
    },
  });

test(
  "scoreHead 'scene': the score ignores joint positions " + 'and velocities, reads the scene part, and its loss falls',
  async () => {
    const { model, report } = await WorldModel.train(episodes, config('scene'));
    try {
      const net = model.dynamics;
      assert.ok(net.scoreNet, 'a separate score network');
      assert.equal(net.variables().length, net.net.variables().length + net.scoreNet!.variables().length);
      const D = model.meta.dims.state;
      const P = 2 * model.meta.qposDim;
      const e = episodes[0]!;
      const x = new Float32Array(D);
      x.set(e.qpos.subarray(0, e.qposDim));
      x.set(e.qvel.subarray(0, e.qposDim), e.qposDim);
      x.set(e.state.subarray(0, e.stateDim), P);
      const joints = Float32Array.from(x, (v, i) => (i < P ? v + 0.3 : v));
      const scene = Float32Array.from(x, (v, i) => (i >= P ? v + 0.3 : v));
      const score = (s: Float32Array) =>
        tf.tidy(() =>
          net
            .sceneScore(
              tf.tensor3d(s, [1, 1, D]).tile([2, 1, 1]) as tf.Tensor3D,
              tf.tensor3d([1, 0, 0], [1, 1, 3]).tile([2, 1, 1]) as tf.Tensor3D,
            )
            .progress.dataSync(),
        );
      assert.deepEqual(score(joints), score(x), 'joint positions and velocities do not enter the score');
      assert.notDeepEqual(score(scene), score(x), 'the scene part does');
      const h = report.dynamics.history;
      assert.ok(
        h.at(-1)!.validation.progress! < h[0]!.validation.progress!,
        `progress loss ${h.map((m) => m.validation.progress).join(' → ')}`,
      );
      // Checkpoints keep the head: the same scores after save → load.
      await saveWorldModel(model, join(dir, 'scene'));
      const loaded = await loadWorldModel(join(dir, 'scene'));
      try {
        assert.equal(loaded.config.scoreHead, 'scene');
        const again = tf.tidy(() =>
          loaded.dynamics
            .sceneScore(
              tf.tensor3d(x, [1, 1, D]).tile([2, 1, 1]) as tf.Tensor3D,
              tf.tensor3d([1, 0, 0], [1, 1, 3]).tile([2, 1, 1]) as tf.Tensor3D,
            )
            .progress.dataSync(),
        );
        assert.deepEqual(again, score(x));
      } finally {
        loaded.dispose();
      }
    } finally {
      model.dispose();
    }
  },
);

test("scoreHead 'joint' (the default) has no separate score network", async () => {
  const { model } = await WorldModel.train(episodes, config('joint', '1'));
  try {
    assert.equal(model.dynamics.scoreNet, undefined);
    assert.throws(
      () =>
        model.dynamics.sceneScore(
          tf.zeros([1, 1, model.meta.dims.state]) as tf.Tensor3D,
          tf.zeros([1, 1, 3]) as tf.Tensor3D,
        ),
      /joint head/,
    );
  } finally {
    model.dispose();
  }
});
