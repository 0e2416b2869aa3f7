import { test, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import * as tf from '@tensorflow/tfjs';
import {
  BackendUnavailableError,
  kernelsMissing,
  selectBackend,
  type BackendName,
} from '../../src/backend/selectBackend.ts';

// tfjs is a process-wide singleton and tests in this file share it: start each test from cpu.
beforeEach(async () => {
  await tf.setBackend('cpu');
  await tf.ready();
});

function collect(): { lines: string[]; log: (line: string) => void } {
  const lines: string[] = [];
  return { lines, log: (line) => lines.push(line) };
}

function matmulWorks(): void {
  // [[1,2],[3,4]] x [[5,6],[7,8]] = [[1*5+2*7, 1*6+2*8], [3*5+4*7, 3*6+4*8]] = [[19,22],[43,50]]
  const out = tf.tidy(() =>
    tf
      .matMul(
        tf.tensor2d([
          [1, 2],
          [3, 4],
        ]),
        tf.tensor2d([
          [5, 6],
          [7, 8],
        ]),
      )
      .arraySync(),
  );
  assert.deepEqual(out, [
    [19, 22],
    [43, 50],
  ]);
}

for (const name of ['cpu', 'wasm'] as const) {
  test(`${name} can be selected and computes a matmul`, async () => {
    const { lines, log } = collect();
    const sel = await selectBackend(name, { log, requiredKernels: ['BatchMatMul'] });
    assert.deepEqual(sel, { backend: name, requested: name, reason: 'requested' });
    assert.equal(tf.getBackend(), name);
    assert.deepEqual(lines, [`backend: ${name} (requested)`]);
    matmulWorks();
  });
}

for (const [name, pkg] of [
  ['tensorflow', '@tensorflow/tfjs-node'],
  ['tensorflow-gpu', '@tensorflow/tfjs-node-gpu'],
] as const) {
  test(`${name} without ${pkg} installed throws BackendUnavailableError with an install hint`, async () => {
    const { lines, log } = collect();
    await assert.rejects(selectBackend(name, { log }), (err: unknown) => {
      assert.ok(err instanceof BackendUnavailableError);
      assert.equal(err.name, 'BackendUnavailableError');
      assert.equal(err.backendName, name);
      assert.match(err.message, new RegExp(`npm install ${pkg.replace('/', '\\/')}`));
      assert.match(err.message, /not installed/);
      assert.match(err.message, /internet/);
      assert.match(err.message, /--backend wasm/);
      assert.match(err.message, /--backend cpu/);
      if (name === 'tensorflow-gpu') assert.match(err.message, /CUDA/);
      return true;
    });
    assert.deepEqual(lines, []);
    assert.equal(tf.getBackend(), 'cpu', 'a failed selection leaves the active backend alone');
  });
}

test('auto picks wasm when it has every required kernel', async () => {
  const { lines, log } = collect();
  const sel = await selectBackend('auto', { log, requiredKernels: ['BatchMatMul', 'Conv2D', 'GatherV2'] });
  assert.equal(sel.backend, 'wasm');
  assert.equal(sel.requested, 'auto');
  assert.equal(tf.getBackend(), 'wasm');
  assert.equal(lines.length, 1);
  assert.match(lines[0]!, /^backend: wasm \(auto/);
  matmulWorks();
});

test('auto with no required kernels picks wasm', async () => {
  const sel = await selectBackend('auto', { log: () => {} });
  assert.equal(sel.backend, 'wasm');
});

test('auto falls back to cpu when wasm lacks a required kernel', async () => {
  await tf.setBackend('wasm');
  const { lines, log } = collect();
  const sel = await selectBackend('auto', { log, requiredKernels: ['BatchMatMul', 'Conv2DBackpropFilter'] });
  assert.equal(sel.backend, 'cpu');
  assert.equal(tf.getBackend(), 'cpu');
  assert.match(sel.reason, /wasm lacks Conv2DBackpropFilter/);
  assert.equal(lines.length, 1);
  assert.match(lines[0]!, /^backend: cpu \(auto.*wasm lacks Conv2DBackpropFilter/);
  // The gradient that needs the kernel runs on cpu.
  const g = tf.tidy(() => {
    const x = tf.ones([1, 3, 3, 1]) as tf.Tensor4D;
    return tf
      .grad((w: tf.Tensor) => tf.conv2d(x, w as tf.Tensor4D, 1, 'valid').sum())(tf.ones([2, 2, 1, 1]))
      .arraySync();
  });
  // 'valid' 2x2 conv over a 3x3 map of ones: each weight sees 4 output positions of ones.
  assert.deepEqual(g, [
    [[[4]], [[4]]],
    [[[4]], [[4]]],
  ]);
});

test('auto throws naming the kernel when no backend has it', async () => {
  await assert.rejects(
    selectBackend('auto', { log: () => {}, requiredKernels: ['BatchMatMul', 'NoSuchKernel'] }),
    /NoSuchKernel/,
  );
});

test('explicit wasm with a missing kernel throws naming it', async () => {
  const { lines, log } = collect();
  await assert.rejects(
    selectBackend('wasm', { log, requiredKernels: ['BatchMatMul', 'UnsortedSegmentSum', 'Conv2DBackpropFilter'] }),
    (err: unknown) => {
      assert.ok(err instanceof Error);
      assert.match(err.message, /'wasm' lacks required kernels: UnsortedSegmentSum, Conv2DBackpropFilter/);
      assert.doesNotMatch(err.message, /BatchMatMul/);
      assert.match(err.message, /have them: cpu/);
      return true;
    },
  );
  assert.deepEqual(lines, []);
  assert.equal(tf.getBackend(), 'cpu');
});

test('explicit cpu with an unknown kernel throws naming it', async () => {
  await assert.rejects(
    selectBackend('cpu', { log: () => {}, requiredKernels: ['NoSuchKernel'] }),
    /'cpu' lacks required kernels: NoSuchKernel/,
  );
});

test('kernelsMissing reports the kernels wasm lacks', () => {
  const probe = [
    'BatchMatMul',
    '_FusedMatMul',
    'Conv2D',
    'Conv2DBackpropFilter',
    'Conv2DBackpropInput',
    'UnsortedSegmentSum',
    'GatherV2',
    'Einsum',
  ];
  assert.deepEqual(kernelsMissing('wasm', probe), ['Conv2DBackpropFilter', 'UnsortedSegmentSum', 'Einsum']);
  assert.deepEqual(kernelsMissing('cpu', probe), []);
  assert.deepEqual(kernelsMissing('cpu', []), []);
  assert.deepEqual(kernelsMissing('no-such-backend', ['Add']), ['Add']);
});

test('the default log goes to console.error', async () => {
  const seen: string[] = [];
  const orig = console.error;
  console.error = (...args: unknown[]) => void seen.push(args.join(' '));
  try {
    await selectBackend('cpu' satisfies BackendName);
  } finally {
    console.error = orig;
  }
  assert.deepEqual(seen, ['backend: cpu (requested)']);
});
