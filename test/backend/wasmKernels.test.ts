/**
 * The wasm kernel replacements (src/backend/wasmKernels.ts) against the cpu backend's kernels:
 * Slice, SplitV and Identity bit for bit, BatchMatMul to float rounding, nothing leaked.
 */
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { useFasterWasmKernels } from '../../src/backend/wasmKernels.ts';
import { Rng } from '../../src/core/rng.ts';

before(async () => {
  await tf.setBackend('wasm');
  await tf.ready();
  useFasterWasmKernels();
});

/** fn evaluated on wasm (the replacements) and on cpu, from the same values. */
async function onBoth<T>(fn: () => T): Promise<{ wasm: T; cpu: T }> {
  await tf.setBackend('wasm');
  const wasm = fn();
  await tf.setBackend('cpu');
  const cpu = fn();
  await tf.setBackend('wasm');
  return { wasm, cpu };
}

const values = (n: number, seed: number) => {
  const rng = new Rng(seed);
  return Float32Array.from({ length: n }, () => rng.normal());
};

test('the replacements are registered, once', () => {
  const marked = (name: string) =>
    (tf.getKernel(name, 'wasm') as unknown as Record<symbol, boolean>)[Symbol.for('wmrl.fasterWasmKernels')];
  for (const name of ['Slice', 'SplitV', 'Identity', 'BatchMatMul']) assert.equal(marked(name), true, name);
  const before = tf.getKernel('Slice', 'wasm');
  useFasterWasmKernels();
  assert.equal(tf.getKernel('Slice', 'wasm'), before, 'a second call changes nothing');
});

test('Slice equals the cpu backend bit for bit: every rank, contiguous or not, float, int and bool', async () => {
  const cases: { shape: number[]; begin: number[]; size: number[] }[] = [
    { shape: [10], begin: [3], size: [4] },
    { shape: [5, 64, 128], begin: [2, 0, 0], size: [1, 64, 128] }, // one ensemble member: contiguous
    { shape: [5, 64, 4, 7], begin: [0, 0, 2, 0], size: [5, 64, 1, 7] }, // one step of a window batch
    { shape: [5, 64, 3], begin: [0, 0, 1], size: [5, 64, 1] }, // a mask step: rows of one value
    { shape: [6, 50], begin: [1, 3], size: [4, 40] }, // rows longer than the element-wise cut-off
    { shape: [3, 4, 5, 6, 7], begin: [1, 0, 2, 1, 3], size: [2, 4, 2, 5, 4] },
    { shape: [4, 5], begin: [1, 2], size: [0, 3] }, // empty
  ];
  for (const [i, c] of cases.entries()) {
    const n = c.shape.reduce((a, b) => a * b, 1);
    const x = values(n, i);
    for (const dtype of ['float32', 'int32', 'bool'] as const) {
      const data =
        dtype === 'float32' ? x : Int32Array.from(x, (v) => (dtype === 'bool' ? (v > 0 ? 1 : 0) : Math.round(v * 100)));
      const r = await onBoth(() => tf.tidy(() => tf.tensor(data, c.shape, dtype).slice(c.begin, c.size).dataSync()));
      assert.deepEqual(r.wasm, r.cpu, `${JSON.stringify(c)} ${dtype}`);
    }
  }
});

test('SplitV equals the cpu backend: even and uneven parts, on every axis', async () => {
  const x = values(4 * 6 * 5, 7);
  for (const [parts, axis] of [
    [4, 0],
    [[1, 3, 2], 1],
    [[2, -1], 2],
    [5, -1],
  ] as [number | number[], number][]) {
    const r = await onBoth(() =>
      tf.tidy(() => tf.split(tf.tensor3d(x, [4, 6, 5]), parts, axis).map((t) => Array.from(t.dataSync()))),
    );
    assert.deepEqual(r.wasm, r.cpu, `split ${JSON.stringify(parts)} on axis ${axis}`);
  }
});

test('a slice stays right when allocating its output grows the heap (views are taken after it)', () => {
  const wasm = (tf.backend() as unknown as { wasm: { HEAPU8: Uint8Array } }).wasm;
  let grew = false;
  // Inputs of a growing share of the heap until a slice's output no longer fits beside its input.
  for (const share of [0.6, 1.2, 2.4]) {
    const cols = 1000;
    const rows = Math.ceil(((wasm.HEAPU8.length / 4) * share) / cols);
    const x = tf.tensor2d(
      Float32Array.from({ length: rows * cols }, (_, i) => i % 9973),
      [rows, cols],
    );
    const heap = wasm.HEAPU8.buffer;
    const y = x.slice([1, 7], [rows - 1, 990]); // not contiguous: copied row by row
    grew = wasm.HEAPU8.buffer !== heap;
    const out = y.dataSync();
    tf.dispose([x, y]);
    for (let r = 0; r < rows - 1; r += 97)
      for (const c of [0, 500, 989])
        assert.equal(out[r * 990 + c], ((r + 1) * cols + c + 7) % 9973, `row ${r}, column ${c}`);
    if (grew) break;
  }
  assert.ok(grew, 'no slice grew the heap: the case is not tested');
});

test('Identity shares data: a clone outlives its source, and both freed free the memory', () => {
  const start = tf.memory();
  const x = tf.tensor1d([1, 2, 3]);
  const y = tf.clone(x);
  x.dispose();
  assert.deepEqual(Array.from(y.dataSync()), [1, 2, 3]);
  y.dispose();
  assert.equal(tf.memory().numTensors, start.numTensors);
  assert.equal(tf.memory().numBytes, start.numBytes);
  const backend = tf.backend() as unknown as { numDataIds(): number };
  const ids = backend.numDataIds();
  tf.tidy(() => tf.clone(tf.clone(tf.ones([4, 4])))).dispose();
  assert.equal(backend.numDataIds(), ids, 'clones of clones, tidied, leave no data behind');
});

test('BatchMatMul with transposes equals the cpu backend to float rounding (2-D, batch of one, batched)', async () => {
  const close = (a: Float32Array, b: Float32Array, what: string) => {
    assert.equal(a.length, b.length, what);
    for (let i = 0; i < a.length; i++)
      assert.ok(Math.abs(a[i]! - b[i]!) <= 1e-4 * (1 + Math.abs(b[i]!)), `${what}: ${a[i]} vs ${b[i]} at ${i}`);
  };
  const shapes: [number[], number[]][] = [
    [
      [37, 19],
      [19, 23],
    ],
    [
      [1, 64, 31],
      [1, 31, 128],
    ],
    [
      [3, 8, 5],
      [3, 5, 6],
    ],
  ];
  for (const [sa, sb] of shapes)
    for (const ta of [false, true])
      for (const tb of [false, true]) {
        const swap = (s: number[], t: boolean) => (t ? [...s.slice(0, -2), s.at(-1)!, s.at(-2)!] : s);
        const a = values(
          sa.reduce((p, q) => p * q, 1),
          1,
        );
        const b = values(
          sb.reduce((p, q) => p * q, 1),
          2,
        );
        const r = await onBoth(() =>
          tf.tidy(() => tf.matMul(tf.tensor(a, swap(sa, ta)), tf.tensor(b, swap(sb, tb)), ta, tb).dataSync()),
        );
        close(r.wasm as Float32Array, r.cpu as Float32Array, `${sa}·${sb} transposeA ${ta} transposeB ${tb}`);
      }
});

test('a dense layer trains the same on wasm as on cpu, and a training step leaks nothing', async () => {
  const x = values(64 * 12, 3);
  const y = values(64 * 4, 4);
  const w0 = values(12 * 4, 5);
  const train = () => {
    const w = tf.variable(tf.tensor2d(w0, [12, 4]));
    const opt = tf.train.adam(0.01);
    const xs = tf.tensor2d(x, [64, 12]);
    const ys = tf.tensor2d(y, [64, 4]);
    const counts: number[] = [];
    for (let i = 0; i < 5; i++) {
      opt.minimize(() => tf.mean(tf.square(tf.sub(tf.matMul(tf.relu(xs), w), ys))) as tf.Scalar, true, [w])?.dispose();
      counts.push(tf.memory().numTensors);
    }
    const out = w.dataSync().slice();
    tf.dispose([w, xs, ys]);
    opt.dispose();
    return { out, counts };
  };
  const r = await onBoth(train);
  assert.deepEqual(new Set(r.wasm.counts.slice(1)).size, 1, `tensors per step: ${r.wasm.counts}`);
  for (let i = 0; i < r.cpu.out.length; i++)
    assert.ok(Math.abs(r.wasm.out[i]! - r.cpu.out[i]!) < 1e-4, `weight ${i}: ${r.wasm.out[i]} vs ${r.cpu.out[i]}`);
});
