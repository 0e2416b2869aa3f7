/**
 * Episode <-> msgpack payload.
 *
 * The payload is a msgpack map with the `Episode` fields; typed arrays are stored as raw
 * little-endian bytes (msgpack `bin`). Decoding treats the payload as untrusted: records and
 * structured clone are off, every field is validated with zod (the task by src/tasks' one
 * TaskSpec schema), every array's length is checked against the shape it must have, floats must
 * be finite, and typed arrays are copied into fresh, aligned buffers (never views into the file
 * buffer).
 */
import { Packr } from 'msgpackr';
import { endianness } from 'node:os';
import { z } from 'zod';
import type { Episode } from '../core/types.ts';
import { taskSpecSchema } from '../tasks/taskSpec.ts';

if (endianness() !== 'LE') {
  throw new Error('wmrl episode files store little-endian floats; big-endian hosts are not supported');
}

/** An episode (or payload) that breaks the schema. `field` is a dotted path, e.g. `task.family`. */
export class EpisodeValidationError extends Error {
  override readonly name = 'EpisodeValidationError';
  constructor(
    readonly field: string,
    readonly problem: string,
  ) {
    super(`invalid episode: field '${field}': ${problem}`);
  }
}

const packr = new Packr({ useRecords: false, structuredClone: false, moreTypes: false });

/** Generous sanity caps so that shape products stay far below 2^53 and errors stay readable. */
const MAX_STEPS = 10_000_000;
const MAX_DIM = 65_536;
const MAX_IMAGE_SIDE = 16_384;

const count = (max: number) => z.int().min(0).max(max);
const text = z.string().min(1).max(10_000);
const CAMERA_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** Builds the episode schema for a given representation of float and byte arrays. */
function episodeSchema<F extends z.ZodType, B extends z.ZodType>(floats: F, bytes: B) {
  return z.object({
    id: text,
    robot: text,
    task: taskSpecSchema,
    seed: z.int(),
    source: z.enum(['sim', 'rosbridge', 'robot', 'imagined']),
    policy: text,
    status: z.enum(['complete', 'aborted']),
    success: z.boolean(),
    outcome: z
      .object({
        source: z.enum(['detector', 'operator']),
        score: z.number().min(0).max(1),
        corrected: z.number().min(0).max(1),
        threshold: z.number().min(0).max(1),
      })
      .optional(),
    successUnknown: z.literal(true).optional(),
    controlHz: z.number().positive(),
    steps: count(MAX_STEPS),
    createdAt: text,
    qposDim: count(MAX_DIM),
    stateDim: count(MAX_DIM),
    actionDim: count(MAX_DIM),
    qpos: floats,
    qvel: floats,
    state: floats,
    actions: floats,
    progress: floats,
    successes: bytes,
    cameras: z.record(
      z
        .string()
        .regex(CAMERA_NAME, 'camera names are 1-64 characters of [A-Za-z0-9_.-], starting with a letter or digit'),
      z.object({ width: count(MAX_IMAGE_SIDE), height: count(MAX_IMAGE_SIDE), frames: bytes }),
    ),
  });
}

/** In-memory form: typed arrays of the right class. */
const memorySchema = episodeSchema(z.instanceof(Float32Array), z.instanceof(Uint8Array));
/** Wire form: every array is raw bytes. */
const wireSchema = episodeSchema(z.instanceof(Uint8Array), z.instanceof(Uint8Array));

type Parsed<S extends z.ZodType> = z.infer<S>;

function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown): Parsed<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue && issue.path.length > 0 ? issue.path.map(String).join('.') : '(root)';
  throw new EpisodeValidationError(field, issue?.message ?? 'invalid');
}

function expectLength(field: string, actual: number, expected: number, formula: string): void {
  if (actual !== expected) {
    throw new EpisodeValidationError(field, `length ${actual} does not match ${formula} = ${expected}`);
  }
}

/** Checks the shape invariants and value ranges of an episode whose field types are already valid. */
function checkContents(ep: Episode): void {
  const n = ep.steps + 1;
  expectLength('qpos', ep.qpos.length, n * ep.qposDim, '(steps+1)*qposDim');
  expectLength('qvel', ep.qvel.length, n * ep.qposDim, '(steps+1)*qposDim');
  if (ep.state.length !== 0) {
    expectLength('state', ep.state.length, n * ep.stateDim, '(steps+1)*stateDim (or 0 when no privileged state)');
  }
  expectLength('actions', ep.actions.length, ep.steps * ep.actionDim, 'steps*actionDim');
  expectLength('progress', ep.progress.length, n, 'steps+1');
  expectLength('successes', ep.successes.length, n, 'steps+1');
  for (const [field, values] of [
    ['qpos', ep.qpos],
    ['qvel', ep.qvel],
    ['state', ep.state],
    ['actions', ep.actions],
    ['progress', ep.progress],
  ] as const) {
    const bad = values.findIndex((v) => !Number.isFinite(v));
    if (bad >= 0) throw new EpisodeValidationError(field, `value at index ${bad} is ${values[bad]} (must be finite)`);
  }
  const outOfRange = ep.progress.findIndex((v) => v < 0 || v > 1);
  if (outOfRange >= 0) {
    throw new EpisodeValidationError(
      'progress',
      `value at index ${outOfRange} is ${ep.progress[outOfRange]} (must be in [0, 1])`,
    );
  }
  const notFlag = ep.successes.findIndex((v) => v > 1);
  if (notFlag >= 0) {
    throw new EpisodeValidationError(
      'successes',
      `value at index ${notFlag} is ${ep.successes[notFlag]} (must be 0 or 1)`,
    );
  }
  for (const [name, cam] of Object.entries(ep.cameras)) {
    expectLength(
      `cameras.${name}.frames`,
      cam.frames.length,
      n * cam.height * cam.width * 3,
      '(steps+1)*height*width*3',
    );
  }
}

/** Throws `EpisodeValidationError` (naming the field) unless `episode` is a well-formed `Episode`. */
export function validateEpisode(episode: unknown): asserts episode is Episode {
  const parsed = parseOrThrow(memorySchema, episode);
  checkContents(parsed as Episode);
}

function bytesOf(a: Float32Array | Uint8Array): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}

function floatsFrom(field: string, bytes: Uint8Array): Float32Array {
  if (bytes.byteLength % 4 !== 0) {
    throw new EpisodeValidationError(field, `byte length ${bytes.byteLength} is not a multiple of 4 (float32)`);
  }
  const out = new Float32Array(bytes.byteLength / 4);
  new Uint8Array(out.buffer).set(bytes);
  return out;
}

/** Validates `episode` and encodes it as a msgpack payload. */
export function encodeEpisode(episode: Episode): Uint8Array {
  validateEpisode(episode);
  const e = episode;
  // A family of fixed texts has no colour or object: keys with no value are left out.
  const task: Record<string, unknown> = { family: e.task.family };
  if (e.task.color !== undefined) task.color = e.task.color;
  if (e.task.object !== undefined) task.object = e.task.object;
  Object.assign(task, { template: e.task.template, split: e.task.split, instruction: e.task.instruction });
  if (e.task.zoneColor !== undefined) task.zoneColor = e.task.zoneColor;
  const cameras: Record<string, unknown> = {};
  for (const [name, cam] of Object.entries(e.cameras)) {
    cameras[name] = { width: cam.width, height: cam.height, frames: bytesOf(cam.frames) };
  }
  const outcome = e.outcome ? { outcome: { ...e.outcome } } : {};
  return packr.pack({
    id: e.id,
    robot: e.robot,
    task,
    seed: e.seed,
    source: e.source,
    policy: e.policy,
    status: e.status,
    success: e.success,
    ...outcome,
    ...(e.successUnknown ? { successUnknown: true } : {}),
    controlHz: e.controlHz,
    steps: e.steps,
    createdAt: e.createdAt,
    qposDim: e.qposDim,
    stateDim: e.stateDim,
    actionDim: e.actionDim,
    qpos: bytesOf(e.qpos),
    qvel: bytesOf(e.qvel),
    state: bytesOf(e.state),
    actions: bytesOf(e.actions),
    progress: bytesOf(e.progress),
    successes: bytesOf(e.successes),
    cameras,
  });
}

/** Decodes and validates a payload made by `encodeEpisode`. Throws `EpisodeValidationError`. */
export function decodeEpisode(payload: Uint8Array): Episode {
  let raw: unknown;
  try {
    // A fresh Buffer view: msgpackr caches a DataView on the source object.
    raw = packr.unpack(Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength));
  } catch (err) {
    throw new EpisodeValidationError('(payload)', `not valid msgpack: ${(err as Error).message}`);
  }
  const w = parseOrThrow(wireSchema, raw);
  const cameras: Episode['cameras'] = {};
  for (const [name, cam] of Object.entries(w.cameras)) {
    cameras[name] = { width: cam.width, height: cam.height, frames: new Uint8Array(cam.frames) };
  }
  const { zoneColor, ...task } = w.task;
  const episode: Episode = {
    id: w.id,
    robot: w.robot,
    task: zoneColor === undefined ? task : { ...task, zoneColor },
    seed: w.seed,
    source: w.source,
    policy: w.policy,
    status: w.status,
    success: w.success,
    ...(w.outcome ? { outcome: w.outcome } : {}),
    ...(w.successUnknown ? { successUnknown: true as const } : {}),
    controlHz: w.controlHz,
    steps: w.steps,
    createdAt: w.createdAt,
    qposDim: w.qposDim,
    stateDim: w.stateDim,
    actionDim: w.actionDim,
    qpos: floatsFrom('qpos', w.qpos),
    qvel: floatsFrom('qvel', w.qvel),
    state: floatsFrom('state', w.state),
    actions: floatsFrom('actions', w.actions),
    progress: floatsFrom('progress', w.progress),
    successes: new Uint8Array(w.successes),
    cameras,
  };
  checkContents(episode);
  return episode;
}
