/**
 * Model checkpoints, shared by the world model and the policy.
 *
 * A checkpoint is a folder holding two files:
 *  - `weights.bin`: every tensor's values, concatenated by `tf.io.encodeWeights` (tfjs's own
 *    weights format, one shard);
 *  - `model.json`: a {@link CheckpointManifest}: who wrote it (format, version, kind), the model's
 *    resolved config, extra JSON (e.g. normalisation statistics), and `weightsManifest` in the
 *    tfjs `model.json` layout (`[{ paths: ['weights.bin'], weights: [...specs] }]`), plus the
 *    byte length and SHA-256 of `weights.bin`.
 *
 * Saving is atomic: both files are written and fsynced in a fresh `<dir>.tmp-<random>` folder beside
 * `dir`, which then replaces `dir` by renames. Loading validates everything (schema, format,
 * version, kind, size, checksum, specs against the byte length, finiteness) and throws a
 * {@link CheckpointError} naming the folder and the problem rather than return a wrong model.
 *
 * Supported dtypes: float32, int32 and bool, unquantised (string and complex64 weights are refused:
 * their byte length cannot be checked against the specs up front).
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { z } from 'zod';
import { syncDir, writeFileSynced } from './durableFs.ts';

export const MODEL_FILE = 'model.json';
export const WEIGHTS_FILE = 'weights.bin';
const MAX_MODEL_JSON_BYTES = 64 * 1024 * 1024;
const SUPPORTED_DTYPES = ['float32', 'int32', 'bool'] as const;
type SupportedDtype = (typeof SUPPORTED_DTYPES)[number];
const BYTES_PER_VALUE: Record<SupportedDtype, number> = { float32: 4, int32: 4, bool: 1 };

export interface CheckpointManifest<C = unknown, E = unknown> {
  /** Which program's checkpoint this is, e.g. 'wmrl-worldmodel' or 'wmrl-policy'. */
  format: string;
  /** The writer's version of that format. */
  formatVersion: number;
  /** The model variant, e.g. 'state' | 'video' | 'tiny'. */
  kind: string;
  /** The model's resolved config. */
  config: C;
  /** Anything else the model needs, e.g. normalisation statistics. */
  extra: E;
  /** ISO 8601 time of the save. */
  createdAt: string;
  /** tfjs `model.json` layout: one group, one shard. */
  weightsManifest: [{ paths: ['weights.bin']; weights: tf.io.WeightsManifestEntry[] }];
  /** Byte length of `weights.bin`. */
  weightsBytes: number;
  /** Lower-case hex SHA-256 of `weights.bin`. */
  weightsSha256: string;
}

export interface SaveCheckpointOptions<C = unknown, E = unknown> {
  format: string;
  formatVersion: number;
  kind: string;
  config: C;
  extra: E;
  /** Named tensors to save; the names are the keys. Not disposed by the save. */
  tensors: Record<string, tf.Tensor>;
}

export interface LoadCheckpointExpectation {
  format: string;
  formatVersion: number;
  /** When given, the checkpoint's kind must be one of these. */
  kinds?: string[];
}

/** A checkpoint that cannot be saved or loaded as asked. `dir` is the checkpoint folder. */
export class CheckpointError extends Error {
  override readonly name = 'CheckpointError';
  constructor(
    readonly dir: string,
    message: string,
  ) {
    super(message);
  }
}

const nameSchema = z.string().min(1).max(1000);

const weightEntrySchema = z.strictObject({
  name: z.string().min(1).max(10_000),
  shape: z.array(z.number().int().nonnegative()).max(64),
  dtype: z.enum(SUPPORTED_DTYPES),
  group: z.enum(['model', 'optimizer']).optional(),
});

/** Just enough to say whose checkpoint this is, before holding it to this version's schema. */
const headerSchema = z.object({
  format: z.string(),
  formatVersion: z.number(),
  kind: z.string().optional(),
});

const manifestSchema = z.strictObject({
  format: nameSchema,
  formatVersion: z.number().int().nonnegative(),
  kind: nameSchema,
  config: z.unknown(),
  extra: z.unknown(),
  createdAt: z.string().min(1).max(100),
  weightsManifest: z.tuple([
    z.strictObject({
      paths: z.tuple([z.literal(WEIGHTS_FILE)]),
      weights: z.array(weightEntrySchema),
    }),
  ]),
  weightsBytes: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
  weightsSha256: z.string().regex(/^[0-9a-f]{64}$/, 'expected 64 lower-case hex digits'),
});

/**
 * Saves `opts.tensors` and the manifest as a checkpoint in `dir`, atomically replacing any
 * checkpoint already there. Refuses (CheckpointError) tensors holding NaN or ±Infinity, disposed
 * tensors, unsupported dtypes, config/extra that are not plain JSON, and an existing `dir` that is
 * not a checkpoint folder.
 */
export async function saveCheckpoint<C, E>(dir: string, opts: SaveCheckpointOptions<C, E>): Promise<void> {
  const fail: (problem: string) => never = (problem) => {
    throw new CheckpointError(dir, `cannot save checkpoint ${dir}: ${problem}`);
  };
  if (typeof opts.format !== 'string' || opts.format.length === 0) fail('format must be a non-empty string');
  if (!Number.isSafeInteger(opts.formatVersion) || opts.formatVersion < 0) {
    fail(`formatVersion must be a non-negative integer, got ${opts.formatVersion}`);
  }
  if (typeof opts.kind !== 'string' || opts.kind.length === 0) fail('kind must be a non-empty string');
  const configProblem = jsonProblem(opts.config, 'config');
  if (configProblem) fail(configProblem);
  const extraProblem = jsonProblem(opts.extra, 'extra');
  if (extraProblem) fail(extraProblem);

  const names = Object.keys(opts.tensors);
  if (names.length === 0) fail('no tensors to save');
  for (const name of names) {
    const t = opts.tensors[name];
    if (name.length === 0) fail('a tensor has an empty name');
    if (!(t instanceof tf.Tensor)) fail(`'${name}' is not a tf.Tensor`);
    if (t.isDisposed) fail(`tensor '${name}' is disposed`);
    if (!(SUPPORTED_DTYPES as readonly string[]).includes(t.dtype)) {
      fail(`tensor '${name}' has dtype ${t.dtype}; checkpoints hold ${SUPPORTED_DTYPES.join(', ')}`);
    }
  }

  const { data, specs } = await tf.io.encodeWeights(opts.tensors);
  const bytes = new Uint8Array(data);
  const weights = specs as z.infer<typeof weightEntrySchema>[];
  const specProblem = checkSpecs(weights, bytes.byteLength);
  if (specProblem) fail(`tfjs encoded the weights inconsistently: ${specProblem}`);
  const valueProblem = findBadValue(weights, bytes);
  if (valueProblem) fail(`refusing to save ${valueProblem}`);

  const manifest: CheckpointManifest<C, E> = {
    format: opts.format,
    formatVersion: opts.formatVersion,
    kind: opts.kind,
    config: opts.config,
    extra: opts.extra,
    createdAt: new Date().toISOString(),
    weightsManifest: [{ paths: [WEIGHTS_FILE], weights: specs }],
    weightsBytes: bytes.byteLength,
    weightsSha256: sha256(bytes),
  };
  const json = JSON.stringify(manifest, null, 2) + '\n';
  const check = manifestSchema.safeParse(JSON.parse(json));
  if (!check.success) fail(`the manifest does not pass its own schema: ${describeIssue(check.error)}`);

  const target = resolve(dir);
  const parent = dirname(target);
  const base = basename(target);
  await mkdir(parent, { recursive: true });

  // Never rename away (and then delete) something that is not a checkpoint.
  const existing = await statOrNull(target);
  if (existing) {
    if (!existing.isDirectory()) fail('it exists and is not a folder');
    const entries = await readdir(target);
    if (entries.length > 0 && !entries.includes(MODEL_FILE)) {
      fail(`it exists and is not a checkpoint folder (no ${MODEL_FILE}); refusing to replace it`);
    }
  }

  const tmp = join(parent, `${base}.tmp-${randomSuffix()}`);
  await mkdir(tmp);
  let old: string | null = null;
  let swapped = false;
  try {
    await writeFileSynced(join(tmp, WEIGHTS_FILE), bytes);
    await writeFileSynced(join(tmp, MODEL_FILE), json);
    await syncDir(tmp);
    if (existing) {
      old = join(parent, `${base}.old-${randomSuffix()}`);
      await rename(target, old);
    }
    await rename(tmp, target);
    swapped = true;
    await syncDir(parent);
  } catch (err) {
    if (!swapped) {
      if (old) await rename(old, target).catch(() => undefined);
      await rm(tmp, { recursive: true, force: true }).catch(() => undefined);
    }
    if (err instanceof CheckpointError) throw err;
    fail((err as Error).message);
  }
  if (old) {
    // The new checkpoint is in place; a leftover .old- folder is harmless (load ignores it).
    await rm(old, { recursive: true, force: true }).catch(() => undefined);
    await syncDir(parent).catch(() => undefined);
  }
}

/**
 * Loads and validates the checkpoint in `dir`. The caller owns (and must dispose) the returned
 * tensors and should check their names and shapes against its model (see {@link expectShapes}).
 */
export async function loadCheckpoint(
  dir: string,
  expect: LoadCheckpointExpectation,
): Promise<{ manifest: CheckpointManifest; tensors: Record<string, tf.Tensor> }> {
  const fail: (problem: string) => never = (problem) => {
    throw new CheckpointError(dir, `checkpoint ${dir}: ${problem}`);
  };
  const target = resolve(dir);
  const dirStat = await statOrNull(target);
  if (!dirStat) {
    const leftovers = await findLeftovers(target);
    const hint = leftovers.length
      ? ` (an interrupted save left ${leftovers.join(', ')}: a .old- folder holds the previous checkpoint and` +
        ` a .tmp- folder may hold the new one; check that one loads and rename it to ${basename(target)})`
      : '';
    fail(`no such folder${hint}`);
  }
  if (!dirStat.isDirectory()) fail('not a folder');

  // model.json
  const modelFile = join(target, MODEL_FILE);
  let text: string;
  try {
    const fh = await open(modelFile, 'r');
    try {
      const size = (await fh.stat()).size;
      if (size > MAX_MODEL_JSON_BYTES) fail(`${MODEL_FILE} is ${size} bytes, too large for a checkpoint manifest`);
      text = await fh.readFile('utf8');
    } finally {
      await fh.close();
    }
  } catch (err) {
    if (err instanceof CheckpointError) throw err;
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') fail(`${MODEL_FILE} is missing`);
    fail(`cannot read ${MODEL_FILE}: ${(err as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    fail(`${MODEL_FILE} is not valid JSON (${(err as Error).message})`);
  }

  // Whose checkpoint is it? Checked before the full schema so that another format or version
  // is reported as such rather than as a schema failure.
  const header = headerSchema.safeParse(raw);
  if (!header.success) fail(`${MODEL_FILE} is not a checkpoint manifest: ${describeIssue(header.error)}`);
  const { format, formatVersion } = header.data;
  if (format !== expect.format) fail(`is a ${format} checkpoint, expected ${expect.format}`);
  if (formatVersion !== expect.formatVersion) {
    fail(`is ${format} version ${formatVersion}, expected version ${expect.formatVersion}`);
  }
  const parsed = manifestSchema.safeParse(raw);
  if (!parsed.success) fail(`${MODEL_FILE} is not a valid ${format} manifest: ${describeIssue(parsed.error)}`);
  const manifest = parsed.data as CheckpointManifest;
  if (expect.kinds && !expect.kinds.includes(manifest.kind)) {
    fail(
      `is a '${manifest.kind}' ${format} checkpoint, expected kind ${expect.kinds.map((k) => `'${k}'`).join(' or ')}`,
    );
  }
  const specs = manifest.weightsManifest[0].weights as z.infer<typeof weightEntrySchema>[];
  const specProblem = checkSpecs(specs, manifest.weightsBytes);
  if (specProblem) fail(`${MODEL_FILE} is inconsistent: ${specProblem}`);

  // weights.bin
  const weightsFile = join(target, WEIGHTS_FILE);
  let bytes: Uint8Array;
  try {
    const fh = await open(weightsFile, 'r');
    try {
      const size = (await fh.stat()).size;
      if (size < manifest.weightsBytes) {
        fail(`${WEIGHTS_FILE} is truncated: ${size} of ${manifest.weightsBytes} bytes`);
      }
      if (size > manifest.weightsBytes) {
        fail(`${WEIGHTS_FILE} is ${size} bytes, expected ${manifest.weightsBytes} (trailing data)`);
      }
      bytes = new Uint8Array(size);
      let done = 0;
      while (done < size) {
        const { bytesRead } = await fh.read(bytes, done, size - done, done);
        if (bytesRead === 0) fail(`${WEIGHTS_FILE} is truncated: ${done} of ${manifest.weightsBytes} bytes`);
        done += bytesRead;
      }
    } finally {
      await fh.close();
    }
  } catch (err) {
    if (err instanceof CheckpointError) throw err;
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') fail(`${WEIGHTS_FILE} is missing`);
    fail(`cannot read ${WEIGHTS_FILE}: ${(err as Error).message}`);
  }
  if (sha256(bytes) !== manifest.weightsSha256) fail(`${WEIGHTS_FILE} is corrupt: checksum mismatch`);
  const valueProblem = findBadValue(specs, bytes);
  if (valueProblem) fail(`${WEIGHTS_FILE} holds bad values: ${valueProblem}`);

  let tensors: Record<string, tf.Tensor>;
  try {
    // tidy: a throw part-way leaves no tensors behind; the returned map survives.
    tensors = tf.tidy(() => tf.io.decodeWeights(bytes.buffer as ArrayBuffer, specs) as Record<string, tf.Tensor>);
  } catch (err) {
    fail(`cannot decode ${WEIGHTS_FILE}: ${(err as Error).message}`);
  }
  return { manifest, tensors };
}

/**
 * Throws a CheckpointError naming the first tensor that `shapes` expects but `tensors` lacks, or
 * has with another shape, or that `tensors` has but `shapes` does not expect.
 */
export function expectShapes(tensors: Record<string, tf.Tensor>, shapes: Record<string, number[]>, dir: string): void {
  const fail: (problem: string) => never = (problem) => {
    throw new CheckpointError(dir, `checkpoint ${dir} does not match the model: ${problem}`);
  };
  for (const [name, shape] of Object.entries(shapes)) {
    const t = Object.hasOwn(tensors, name) ? tensors[name] : undefined;
    if (!t) fail(`tensor '${name}' is missing`);
    if (!sameShape(t.shape, shape)) {
      fail(`tensor '${name}' has shape [${t.shape.join(', ')}], expected [${shape.join(', ')}]`);
    }
  }
  for (const name of Object.keys(tensors)) {
    if (!Object.hasOwn(shapes, name)) fail(`unexpected tensor '${name}' (shape [${tensors[name]!.shape.join(', ')}])`);
  }
}

// ---------------------------------------------------------------------------------------------

type Spec = z.infer<typeof weightEntrySchema>;

/** Names unique, sizes representable, and the specs' byte lengths summing to `byteLength`. */
function checkSpecs(specs: Spec[], byteLength: number): string | null {
  const seen = new Set<string>();
  let total = 0;
  for (const spec of specs) {
    if (seen.has(spec.name)) return `weight '${spec.name}' appears twice`;
    seen.add(spec.name);
    let size = 1;
    for (const d of spec.shape) size *= d;
    const bytes = size * BYTES_PER_VALUE[spec.dtype];
    if (!Number.isSafeInteger(bytes)) return `weight '${spec.name}' has an impossible shape [${spec.shape.join(', ')}]`;
    total += bytes;
    if (total > byteLength) {
      return (
        `the weight specs describe more than ${byteLength} bytes ` +
        `(at '${spec.name}'), weightsBytes is ${byteLength}`
      );
    }
  }
  if (total !== byteLength) return `the weight specs describe ${total} bytes but weightsBytes is ${byteLength}`;
  return null;
}

/** The first NaN/±Infinity in a float32 weight, or non-0/1 byte in a bool weight; null if none. */
function findBadValue(specs: Spec[], bytes: Uint8Array): string | null {
  let offset = 0;
  for (const spec of specs) {
    let size = 1;
    for (const d of spec.shape) size *= d;
    const len = size * BYTES_PER_VALUE[spec.dtype];
    if (spec.dtype === 'float32') {
      const start = bytes.byteOffset + offset;
      const values =
        start % 4 === 0
          ? new Float32Array(bytes.buffer, start, size)
          : new Float32Array(bytes.slice(offset, offset + len).buffer);
      for (let i = 0; i < values.length; i++) {
        const v = values[i]!;
        if (!Number.isFinite(v)) return `tensor '${spec.name}' holds ${v} at flat index ${i} (non-finite weights)`;
      }
    } else if (spec.dtype === 'bool') {
      for (let i = 0; i < size; i++) {
        const v = bytes[offset + i]!;
        if (v > 1) return `bool tensor '${spec.name}' holds byte ${v} at flat index ${i}`;
      }
    }
    offset += len;
  }
  return null;
}

/** Why `value` would not survive a JSON round trip unchanged, or null. */
function jsonProblem(value: unknown, path: string): string | null {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return null;
  if (typeof value === 'number') return Number.isFinite(value) ? null : `${path} is ${value}, which JSON cannot hold`;
  if (value === undefined) return `${path} is undefined, which JSON cannot hold (use null)`;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const p = jsonProblem(value[i], `${path}[${i}]`);
      if (p) return p;
    }
    return null;
  }
  if (typeof value === 'object') {
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) {
      return `${path} is a ${(value as object).constructor?.name ?? 'non-plain object'}, not plain JSON`;
    }
    for (const [k, v] of Object.entries(value)) {
      if (v === undefined) continue; // dropped by JSON, as an absent optional field
      const p = jsonProblem(v, `${path}.${k}`);
      if (p) return p;
    }
    return null;
  }
  return `${path} is a ${typeof value}, not JSON`;
}

function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  const field = issue?.path.map(String).join('.') || '(root)';
  return `field '${field}': ${issue?.message ?? 'invalid'}`;
}

function sameShape(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((d, i) => d === b[i]);
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function randomSuffix(): string {
  return randomBytes(6).toString('hex');
}

async function statOrNull(p: string) {
  try {
    return await stat(p);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

async function findLeftovers(target: string): Promise<string[]> {
  const name = basename(target);
  try {
    const entries = await readdir(dirname(target));
    return entries
      .filter((e) => e.startsWith(`${name}.old-`) || e.startsWith(`${name}.tmp-`))
      .sort()
      .map((e) => join(dirname(target), e));
  } catch {
    return [];
  }
}
