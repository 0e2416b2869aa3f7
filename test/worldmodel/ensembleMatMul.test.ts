import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs';
import { selectBackend } from '../../src/backend/selectBackend.ts';
import { ensembleMatMul, perMemberMatMul } from '../../src/worldmodel/ensembleMatMul.ts';

/** Largest |a − b| relative to the largest |a|. */
const relDiff = (a: tf.Tensor, b: tf.Tensor) =>
  tf.tidy(() => tf.max(tf.abs(tf.sub(a, b))).dataSync()[0]! / tf.max(tf.abs(a)).dataSync()[0]!);

for (const backend of ['wasm', 'cpu'] as const) {
  test(`the per-member product matches tf.matMul and its gradients, leaking nothing (${backend})`, async () => {
    await selectBackend(backend, { log: () => {} });
    const x = tf.randomNormal([3, 17, 5], 0, 1, 'float32', 1) as tf.Tensor3D;
    const w = tf.randomNormal([3, 5, 4], 0, 1, 'float32', 2) as tf.Tensor3D;
    // A loss that weighs every output differently, so a transposed or swapped gradient would show.
    const weights = tf.randomNormal([3, 17, 4], 0, 1, 'float32', 3);
    const loss = (mm: (a: tf.Tensor3D, b: tf.Tensor3D) => tf.Tensor) => (a: tf.Tensor, b: tf.Tensor) =>
      tf.sum(tf.mul(tf.square(mm(a as tf.Tensor3D, b as tf.Tensor3D)), weights));
    const before = tf.memory().numTensors;
    const [dxRef, dwRef] = tf.grads(loss((a, b) => tf.matMul(a, b)))([x, w]);
    const [dx, dw] = tf.grads(loss(perMemberMatMul))([x, w]);
    const y = perMemberMatMul(x, w);
    const yRef = tf.matMul(x, w);
    assert.deepEqual(y.shape, [3, 17, 4]);
    assert.ok(relDiff(yRef, y) < 1e-5, `forward differs by ${relDiff(yRef, y)}`);
    assert.ok(relDiff(dxRef!, dx!) < 1e-5, `dx differs by ${relDiff(dxRef!, dx!)}`);
    assert.ok(relDiff(dwRef!, dw!) < 1e-5, `dw differs by ${relDiff(dwRef!, dw!)}`);
    tf.dispose([dxRef!, dwRef!, dx!, dw!, y, yRef]);
    assert.equal(tf.memory().numTensors, before, 'tensors leaked');
    // Trains variables through an optimizer like the world model does.
    const v = tf.variable(w.clone());
    const optimizer = tf.train.adam(0.05);
    const lossOfV = () => tf.mean(tf.square(perMemberMatMul(x, v as unknown as tf.Tensor3D))) as tf.Scalar;
    const first = tf.tidy(() => lossOfV().dataSync()[0]!);
    for (let i = 0; i < 20; i++) tf.dispose(optimizer.minimize(lossOfV, true) ?? []);
    const last = tf.tidy(() => lossOfV().dataSync()[0]!);
    assert.ok(last < first * 0.5, `loss ${first} → ${last}`);
    const wrong = tf.zeros([3, 6, 4]) as tf.Tensor3D;
    assert.throws(() => perMemberMatMul(x, wrong), /shapes \[3,17,5\] · \[3,6,4\] do not match/);
    tf.dispose([x, w, weights, v, wrong]);
    optimizer.dispose();
  });
}

test('ensembleMatMul takes the per-member product on wasm and tf.matMul elsewhere', async () => {
  const x = tf.randomNormal([2, 3, 4], 0, 1, 'float32', 5) as tf.Tensor3D;
  const w = tf.randomNormal([2, 4, 3], 0, 1, 'float32', 6) as tf.Tensor3D;
  // customGrad shows in the profile as a scope of its own kernels; tf.matMul is one BatchMatMul.
  const kernels = async () => (await tf.profile(() => ensembleMatMul(x, w))).kernels.map((k) => k.name);
  await selectBackend('cpu', { log: () => {} });
  assert.deepEqual(await kernels(), ['BatchMatMul']);
  await selectBackend('wasm', { log: () => {} });
  const onWasm = await kernels();
  assert.ok(onWasm.filter((k) => k === 'BatchMatMul').length === 2 && onWasm.includes('SplitV'), onWasm.join(', '));
  tf.dispose([x, w]);
});
