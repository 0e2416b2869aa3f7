import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import {
  CheckpointError,
  expectShapes,
  loadCheckpoint,
  saveCheckpoint,
  type CheckpointManifest,
  type LoadCheckpointExpectation,
} from '../../src/core/checkpoint.ts';

const FORMAT = 'wmrl-worldmodel';
const EXPECT = { format: FORMAT, formatVersion: 2 };

async function withTmp(fn: (root: string) => Promise<void>): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'wmrl-ckpt-'));
  try {
    await fn(root);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

function makeTensors(seed: number): Record<string, tf.Tensor> {
  const vals = (n: number) => Float32Array.from({ length: n }, (_, i) => Math.sin(seed * 1000 + i) * 3.7 + 1e-7 * i);
  return {
    'enc/dense/kernel': tf.tensor(vals(12), [3, 4]),
    'enc/dense/bias': tf.tensor(vals(4), [4]),
    'conv/kernel': tf.tensor(vals(2 * 3 * 2 * 5), [2, 3, 2, 5]),
    scalar: tf.scalar(vals(1)[0]!),
    empty: tf.tensor(new Float32Array(0), [0, 3]),
  };
}

function dispose(tensors: Record<string, tf.Tensor>): void {
  for (const t of Object.values(tensors)) t.dispose();
}

async function save(
  dir: string,
  tensors: Record<string, tf.Tensor>,
  over: Partial<{ format: string; kind: string }> = {},
) {
  await saveCheckpoint(dir, {
    format: over.format ?? FORMAT,
    formatVersion: 2,
    kind: over.kind ?? 'state',
    config: { hidden: [64, 64], activation: 'relu', dropout: 0.1 },
    extra: { obsMean: [0.5, -1.25], obsStd: [1, 2] },
    tensors,
  });
}

async function expectLoadError(
  dir: string,
  pattern: RegExp,
  expect: LoadCheckpointExpectation = EXPECT,
): Promise<void> {
  const before = tf.memory().numTensors;
  await assert.rejects(loadCheckpoint(dir, expect), (err: unknown) => {
    assert.ok(err instanceof CheckpointError, `expected CheckpointError, got ${String(err)}`);
    assert.equal(err.dir, dir);
    assert.ok(err.message.includes(dir), `message should name the folder: ${err.message}`);
    assert.match(err.message, pattern);
    return true;
  });
  assert.equal(tf.memory().numTensors, before, 'a failed load leaves no tensors behind');
}

/** A saved checkpoint in `<root>/ckpt` whose source tensors are already disposed. */
async function savedCheckpoint(root: string): Promise<string> {
  const dir = join(root, 'ckpt');
  const tensors = makeTensors(1);
  await save(dir, tensors);
  dispose(tensors);
  return dir;
}

function editManifest(dir: string, edit: (m: Record<string, unknown>) => void): void {
  const file = join(dir, 'model.json');
  const m = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  edit(m);
  writeFileSync(file, JSON.stringify(m));
}

test('round trip: several float32 tensors come back identical, with manifest, and no tensor leaks', async () => {
  await withTmp(async (root) => {
    const dir = join(root, 'models', 'wm');
    const baseline = tf.memory().numTensors;
    const tensors = makeTensors(1);
    await save(dir, tensors);

    assert.deepEqual(readdirSync(dir).sort(), ['model.json', 'weights.bin']);
    assert.deepEqual(readdirSync(join(root, 'models')), ['wm'], 'no tmp/old folders left behind');

    const { manifest, tensors: loaded } = await loadCheckpoint(dir, { ...EXPECT, kinds: ['state', 'video'] });
    assert.equal(manifest.format, FORMAT);
    assert.equal(manifest.formatVersion, 2);
    assert.equal(manifest.kind, 'state');
    assert.deepEqual(manifest.config, { hidden: [64, 64], activation: 'relu', dropout: 0.1 });
    assert.deepEqual(manifest.extra, { obsMean: [0.5, -1.25], obsStd: [1, 2] });
    assert.ok(!Number.isNaN(Date.parse(manifest.createdAt)));
    assert.deepEqual(manifest.weightsManifest[0].paths, ['weights.bin']);
    assert.equal(manifest.weightsBytes, readFileSync(join(dir, 'weights.bin')).byteLength);
    assert.match(manifest.weightsSha256, /^[0-9a-f]{64}$/);

    assert.deepEqual(Object.keys(loaded).sort(), Object.keys(tensors).sort());
    for (const [name, t] of Object.entries(tensors)) {
      const l = loaded[name]!;
      assert.equal(l.dtype, 'float32');
      assert.deepEqual(l.shape, t.shape, name);
      assert.deepEqual(l.dataSync(), t.dataSync(), name);
    }
    expectShapes(loaded, Object.fromEntries(Object.entries(tensors).map(([k, t]) => [k, t.shape])), dir);

    dispose(tensors);
    dispose(loaded);
    assert.equal(tf.memory().numTensors, baseline);
  });
});

test('int32 and bool tensors round trip too', async () => {
  await withTmp(async (root) => {
    const dir = join(root, 'ckpt');
    const tensors = {
      flags: tf.tensor([true, false, true], [3], 'bool'),
      counts: tf.tensor([1, -2, 3, 2147483647], [2, 2], 'int32'),
      w: tf.tensor([1.5, -2.5, 3.25], [3]),
    };
    await save(dir, tensors);
    const { tensors: loaded } = await loadCheckpoint(dir, EXPECT);
    for (const [name, t] of Object.entries(tensors)) {
      assert.equal(loaded[name]!.dtype, t.dtype);
      assert.deepEqual(loaded[name]!.dataSync(), t.dataSync(), name);
    }
    dispose(tensors);
    dispose(loaded);
  });
});

test('overwriting an existing checkpoint leaves the new one, valid, and nothing else', async () => {
  await withTmp(async (root) => {
    const dir = join(root, 'ckpt');
    const first = makeTensors(1);
    const second = makeTensors(2);
    await save(dir, first, { kind: 'state' });
    await save(dir, second, { kind: 'video' });
    assert.deepEqual(readdirSync(root), ['ckpt'], 'no tmp/old folders left behind');

    const { manifest, tensors: loaded } = await loadCheckpoint(dir, EXPECT);
    assert.equal(manifest.kind, 'video');
    for (const [name, t] of Object.entries(second)) assert.deepEqual(loaded[name]!.dataSync(), t.dataSync(), name);
    assert.notDeepEqual(loaded['enc/dense/kernel']!.dataSync(), first['enc/dense/kernel']!.dataSync());
    dispose(first);
    dispose(second);
    dispose(loaded);
  });
});

test('a failed save leaves the previous checkpoint intact and no temp folder', async () => {
  await withTmp(async (root) => {
    const dir = await savedCheckpoint(root);
    const before = readFileSync(join(dir, 'weights.bin'));
    const bad = { w: tf.tensor([1, Number.NaN, 3]) };
    await assert.rejects(save(dir, bad), CheckpointError);
    bad.w.dispose();
    assert.deepEqual(readdirSync(root), ['ckpt']);
    assert.deepEqual(readFileSync(join(dir, 'weights.bin')), before);
    const { tensors } = await loadCheckpoint(dir, EXPECT);
    dispose(tensors);
  });
});

test('leftover tmp/old folders beside a checkpoint are ignored by load', async () => {
  await withTmp(async (root) => {
    const dir = await savedCheckpoint(root);
    mkdirSync(`${dir}.tmp-deadbeef`);
    writeFileSync(join(`${dir}.tmp-deadbeef`, 'weights.bin'), 'partial');
    mkdirSync(`${dir}.old-cafebabe`);
    const { tensors } = await loadCheckpoint(dir, EXPECT);
    assert.equal(Object.keys(tensors).length, 5);
    dispose(tensors);
  });
});

test('a missing checkpoint folder is reported, pointing at leftovers of an interrupted save', async () => {
  await withTmp(async (root) => {
    const dir = join(root, 'nope');
    await expectLoadError(dir, /no such folder/);
    mkdirSync(`${dir}.old-0123`);
    await expectLoadError(dir, /interrupted save left .*nope\.old-0123/);
  });
});

test('a flipped byte in weights.bin is a checksum error', async () => {
  await withTmp(async (root) => {
    const dir = await savedCheckpoint(root);
    const file = join(dir, 'weights.bin');
    const bytes = readFileSync(file);
    bytes[17] = bytes[17]! ^ 0x01;
    writeFileSync(file, bytes);
    await expectLoadError(dir, /weights\.bin is corrupt: checksum mismatch/);
  });
});

test('a truncated weights.bin is reported with its size', async () => {
  await withTmp(async (root) => {
    const dir = await savedCheckpoint(root);
    const file = join(dir, 'weights.bin');
    const full = readFileSync(file).byteLength;
    truncateSync(file, 40);
    await expectLoadError(dir, new RegExp(`weights\\.bin is truncated: 40 of ${full} bytes`));
    writeFileSync(file, Buffer.concat([Buffer.alloc(full), Buffer.from('xx')]));
    await expectLoadError(dir, new RegExp(`weights\\.bin is ${full + 2} bytes, expected ${full}`));
  });
});

test('missing files are reported', async () => {
  await withTmp(async (root) => {
    const dir = await savedCheckpoint(root);
    rmSync(join(dir, 'weights.bin'));
    await expectLoadError(dir, /weights\.bin is missing/);
    rmSync(join(dir, 'model.json'));
    await expectLoadError(dir, /model\.json is missing/);
  });
});

test('another format, version or kind is refused', async () => {
  await withTmp(async (root) => {
    const dir = await savedCheckpoint(root);
    await expectLoadError(dir, /is a wmrl-worldmodel checkpoint, expected wmrl-policy/, {
      format: 'wmrl-policy',
      formatVersion: 2,
    });
    await expectLoadError(dir, /is wmrl-worldmodel version 2, expected version 3/, {
      format: FORMAT,
      formatVersion: 3,
    });
    await expectLoadError(dir, /is a 'state' wmrl-worldmodel checkpoint, expected kind 'video' or 'tiny'/, {
      ...EXPECT,
      kinds: ['video', 'tiny'],
    });
    editManifest(dir, (m) => {
      m.format = 'wmrl-policy';
    });
    await expectLoadError(dir, /is a wmrl-policy checkpoint, expected wmrl-worldmodel/);
  });
});

test('model.json that is not JSON, or fails the schema, is refused', async () => {
  await withTmp(async (root) => {
    const dir = await savedCheckpoint(root);
    const file = join(dir, 'model.json');
    const good = readFileSync(file, 'utf8');

    writeFileSync(file, good.slice(0, good.length / 2));
    await expectLoadError(dir, /model\.json is not valid JSON/);

    writeFileSync(file, '[1, 2]');
    await expectLoadError(dir, /model\.json is not a checkpoint manifest/);

    writeFileSync(file, good);
    editManifest(dir, (m) => {
      m.weightsSha256 = 'abc';
    });
    await expectLoadError(dir, /not a valid wmrl-worldmodel manifest: field 'weightsSha256'/);

    writeFileSync(file, good);
    editManifest(dir, (m) => {
      (m.weightsManifest as { paths: string[] }[])[0]!.paths = ['other.bin'];
    });
    await expectLoadError(dir, /field 'weightsManifest\.0\.paths\.0'/);

    writeFileSync(file, good);
    editManifest(dir, (m) => {
      const w = (m.weightsManifest as { weights: { dtype: string; quantization?: unknown }[] }[])[0]!.weights;
      w[0]!.quantization = { dtype: 'uint8', scale: 1, min: 0 };
    });
    await expectLoadError(dir, /field 'weightsManifest\.0\.weights\.0'/);
  });
});

test('weight specs inconsistent with the byte length are refused', async () => {
  await withTmp(async (root) => {
    const dir = await savedCheckpoint(root);
    const file = join(dir, 'model.json');
    const good = readFileSync(file, 'utf8');
    type Specs = { name: string; shape: number[] }[];
    const specsOf = (m: Record<string, unknown>) => (m.weightsManifest as { weights: Specs }[])[0]!.weights;

    editManifest(dir, (m) => {
      specsOf(m)[0]!.shape = [3, 5];
    });
    await expectLoadError(dir, /model\.json is inconsistent: the weight specs describe more than/);

    writeFileSync(file, good);
    editManifest(dir, (m) => {
      specsOf(m)[0]!.shape = [3, 3];
    });
    await expectLoadError(dir, /the weight specs describe \d+ bytes but weightsBytes is \d+/);

    writeFileSync(file, good);
    editManifest(dir, (m) => {
      const specs = specsOf(m);
      specs[1]!.name = specs[0]!.name;
    });
    await expectLoadError(dir, /weight 'enc\/dense\/kernel' appears twice/);
  });
});

test('non-finite weights are refused at save time, and at load time if written by something else', async () => {
  await withTmp(async (root) => {
    const dir = join(root, 'ckpt');
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY]) {
      const tensors = {
        ok: tf.tensor([1, 2]),
        bad: tf.tensor([
          [0, 1],
          [2, bad],
        ]),
      };
      await assert.rejects(save(dir, tensors), (err: unknown) => {
        assert.ok(err instanceof CheckpointError);
        assert.match(
          err.message,
          new RegExp(`cannot save checkpoint .*ckpt: refusing to save tensor 'bad' holds ${bad} at flat index 3`),
        );
        return true;
      });
      dispose(tensors);
    }
    assert.equal(existsSync(dir), false);
    assert.deepEqual(readdirSync(root), [], 'no temp folder left behind');

    // A checkpoint with a NaN and a matching checksum (i.e. not from saveCheckpoint) is still refused.
    await savedCheckpoint(root);
    const wfile = join(dir, 'weights.bin');
    const bytes = readFileSync(wfile);
    bytes.writeFloatLE(Number.NaN, 8);
    writeFileSync(wfile, bytes);
    const { createHash } = await import('node:crypto');
    editManifest(dir, (m) => {
      m.weightsSha256 = createHash('sha256').update(bytes).digest('hex');
    });
    await expectLoadError(dir, /weights\.bin holds bad values: tensor '.*' holds NaN/);
  });
});

test('save refuses bad options and will not replace a folder that is not a checkpoint', async () => {
  await withTmp(async (root) => {
    const baseline = tf.memory().numTensors;
    const t = { w: tf.tensor([1, 2]) };
    const base = {
      format: FORMAT,
      formatVersion: 2,
      kind: 'state',
      config: {} as unknown,
      extra: null as unknown,
      tensors: t as Record<string, tf.Tensor>,
    };
    const refused = async (dir: string, opts: typeof base, pattern: RegExp) =>
      assert.rejects(saveCheckpoint(dir, opts), (err: unknown) => {
        assert.ok(err instanceof CheckpointError);
        assert.match(err.message, pattern);
        return true;
      });
    const dir = join(root, 'ckpt');
    await refused(dir, { ...base, tensors: {} }, /no tensors to save/);
    await refused(dir, { ...base, config: { lr: Number.NaN } }, /config\.lr is NaN/);
    await refused(dir, { ...base, config: { when: new Date() } }, /config\.when is a Date/);
    await refused(dir, { ...base, formatVersion: 1.5 }, /formatVersion must be a non-negative integer/);
    const s = tf.tensor(['a']);
    await refused(dir, { ...base, tensors: { s } }, /dtype string/);
    s.dispose();
    const gone = tf.tensor([1]);
    gone.dispose();
    await refused(dir, { ...base, tensors: { gone } }, /tensor 'gone' is disposed/);

    const precious = join(root, 'precious');
    mkdirSync(precious);
    writeFileSync(join(precious, 'notes.txt'), 'keep me');
    await refused(precious, base, /not a checkpoint folder/);
    assert.equal(readFileSync(join(precious, 'notes.txt'), 'utf8'), 'keep me');

    // An empty folder may become a checkpoint.
    const empty = join(root, 'empty');
    mkdirSync(empty);
    await saveCheckpoint(empty, base);
    const { tensors } = await loadCheckpoint(empty, EXPECT);
    dispose(tensors);
    t.w.dispose();
    assert.equal(tf.memory().numTensors, baseline);
    assert.deepEqual(readdirSync(root).sort(), ['empty', 'precious']);
  });
});

test('expectShapes names the first missing, mis-shaped or extra tensor', () => {
  const dir = '/some/ckpt';
  const tensors = { a: tf.zeros([2, 3]), b: tf.zeros([4]) };
  const check = (shapes: Record<string, number[]>, pattern: RegExp) =>
    assert.throws(
      () => expectShapes(tensors, shapes, dir),
      (err: unknown) => {
        assert.ok(err instanceof CheckpointError);
        assert.equal(err.dir, dir);
        assert.match(err.message, /checkpoint \/some\/ckpt does not match the model/);
        assert.match(err.message, pattern);
        return true;
      },
    );
  expectShapes(tensors, { a: [2, 3], b: [4] }, dir);
  check({ a: [2, 3], b: [4], c: [1] }, /tensor 'c' is missing/);
  check({ a: [3, 2], b: [4] }, /tensor 'a' has shape \[2, 3\], expected \[3, 2\]/);
  check({ a: [2, 3], b: [4, 1] }, /tensor 'b' has shape \[4\], expected \[4, 1\]/);
  check({ a: [2, 3] }, /unexpected tensor 'b' \(shape \[4\]\)/);
  check({ a: [2, 3], b: [4], toString: [1] }, /tensor 'toString' is missing/);
  dispose(tensors);
});

test('the manifest type matches what is written', async () => {
  await withTmp(async (root) => {
    const dir = await savedCheckpoint(root);
    const m = JSON.parse(readFileSync(join(dir, 'model.json'), 'utf8')) as CheckpointManifest;
    assert.deepEqual(Object.keys(m).sort(), [
      'config',
      'createdAt',
      'extra',
      'format',
      'formatVersion',
      'kind',
      'weightsBytes',
      'weightsManifest',
      'weightsSha256',
    ]);
    assert.deepEqual(
      m.weightsManifest[0].weights.map((w) => [w.name, w.dtype, w.shape]),
      [
        ['enc/dense/kernel', 'float32', [3, 4]],
        ['enc/dense/bias', 'float32', [4]],
        ['conv/kernel', 'float32', [2, 3, 2, 5]],
        ['scalar', 'float32', []],
        ['empty', 'float32', [0, 3]],
      ],
    );
  });
});
