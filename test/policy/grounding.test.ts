import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs';
import { selectBackend } from '../../src/backend/selectBackend.ts';
import { loadRobot } from '../../src/core/robotDescription.ts';
import { SimEnv } from '../../src/envs/simEnv.ts';
import { planEpisodes } from '../../src/tasks/episodePlan.ts';
import type { ColorName } from '../../src/tasks/vocabulary.ts';
import { COLOR_RGB } from '../../sim/colorRgb.ts';
import { projectToImage } from '../../src/vision/cameraProjection.ts';
import { GroundedAttention } from '../../src/policy/groundedAttention.ts';
import { LanguageEncoder } from '../../src/policy/languageEncoder.ts';
import { POLICY_KERNELS } from '../../src/policy/policyConfig.ts';

before(async () => {
  await selectBackend('wasm', { requiredKernels: POLICY_KERNELS, log: () => {} });
});

test('camera projection: the instructed object is where the renderer draws it', async () => {
  const robot = loadRobot('vx300');
  const camera = robot.cameras.find((c) => c.name === 'scene')!;
  const env = await SimEnv.create({ robot });
  try {
    let hits = 0;
    const plan = planEpisodes([{ family: 'reach' }, { family: 'push' }, { family: 'pick' }], 'both', 12, 77);
    for (const p of plan) {
      const obs = await env.reset(p);
      const [u, v] = projectToImage(
        { pos: camera.pos!, lookAt: camera.lookAt!, fovy: camera.fovy },
        obs.state!.subarray(0, 3),
      );
      const img = obs.images.scene!;
      const col = Math.floor(((u + 1) / 2) * img.width);
      const row = Math.floor(((v + 1) / 2) * img.height);
      const i = (row * img.width + col) * 3;
      const rgb = [img.data[i]!, img.data[i + 1]!, img.data[i + 2]!];
      const want = COLOR_RGB[p.task.color as ColorName];
      // Same hue (cosine of RGB directions), whatever the shading.
      const cos =
        (rgb[0]! * want[0] + rgb[1]! * want[1] + rgb[2]! * want[2]) / (Math.hypot(...rgb) * Math.hypot(...want));
      if (cos > 0.97) hits++;
    }
    assert.ok(hits >= 11, `projected pixel shows the target colour in ${hits}/12 scenes`);
  } finally {
    await env.close();
  }
  assert.throws(() => projectToImage({ pos: [0, 0, 1], lookAt: [0, 0, 0], fovy: 45 }, [0, 0, 2]), /behind the camera/);
});

test('grounded attention: positions in [-1, 1], outputs per head, a sharp score picks the right pixel', () => {
  const g = new GroundedAttention('t/g', { heads: 2, dim: 4, hidden: 8, features: true }, 8, 6, 3);
  const lang = new LanguageEncoder('t/l', 10, 4, 6, 4);
  try {
    const images = tf.randomUniform([3, 8, 8, 3], 0, 1, 'float32', 5) as tf.Tensor4D;
    const tokens = tf.tensor2d(
      [
        [2, 3, 4, 0],
        [5, 6, 0, 0],
        [7, 8, 9, 1],
      ],
      [3, 4],
      'int32',
    );
    const { output, positions } = tf.tidy(() => g.attend(images, lang.apply(tokens)));
    assert.deepEqual(output.shape, [3, g.outputDim]);
    assert.equal(g.outputDim, 2 * (2 + 4));
    assert.deepEqual(positions.shape, [3, 2, 2]);
    for (const v of positions.dataSync()) assert.ok(v >= -1 && v <= 1);
    tf.dispose([images, tokens, output, positions]);
    // A single bright pixel and a huge gain: attention collapses onto it, whatever the weights.
    const pixels = new Float32Array(8 * 8 * 3);
    pixels.set([1, 1, 1], (5 * 8 + 2) * 3);
    g.logGain.assign(tf.scalar(Math.log(1e4)));
    const one = tf.tensor4d(pixels, [1, 8, 8, 3]);
    const t1 = tf.tensor2d([[2, 3, 4, 0]], [1, 4], 'int32');
    const pos = tf.tidy(() => g.attend(one, lang.apply(t1)).positions.dataSync());
    // Head scores are ±: each head lands either on the bright pixel or on the (uniform) background's extreme,
    // but a head whose query favours brightness lands exactly on pixel (2, 5).
    const centre = [((2 + 0.5) / 8) * 2 - 1, ((5 + 0.5) / 8) * 2 - 1];
    assert.ok(
      [0, 1].some((h) => Math.abs(pos[2 * h]! - centre[0]!) < 1e-3 && Math.abs(pos[2 * h + 1]! - centre[1]!) < 1e-3),
      `positions ${Array.from(pos)}`,
    );
    tf.dispose([one, t1]);
  } finally {
    g.dispose();
    tf.dispose(lang.variables());
  }
});

test('language encoder: word pairs make order matter, position in the sentence does not', () => {
  const lang = new LanguageEncoder('t/l2', 10, 4, 8, 9);
  try {
    const run = (ids: number[][]) =>
      tf.tidy(() => lang.apply(tf.tensor2d(ids, [ids.length, ids[0]!.length], 'int32')).arraySync() as number[][]);
    const [a, shifted, swapped] = run([
      [2, 3, 4, 5, 0, 0, 0],
      [6, 2, 3, 4, 5, 0, 0],
      [2, 5, 4, 3, 0, 0, 0],
    ]);
    const dist = (x: number[], y: number[]) => Math.hypot(...x.map((v, i) => v - y[i]!));
    assert.ok(dist(a!, swapped!) > 1e-4, 'reordered words change the features');
    // Prepending a word keeps every pair of the original (one padding
    // pair fewer, already present): max pooling can only grow.
    a!.forEach((v, i) => assert.ok(shifted![i]! >= v - 1e-6));
  } finally {
    tf.dispose(lang.variables());
  }
});
