/**
 * `meta/info.json` of a LeRobot dataset (codebase v2.1 and v3.0), validated at load.
 *
 * The fields follow LeRobot's `create_empty_dataset_info` and its v2.1 → v3.0 conversion script
 * (`lerobot/datasets/utils.py`, `lerobot/datasets/v30/convert_dataset_v21_to_v30.py`): v2.1 keeps one
 * parquet and one mp4 per episode under `episode_chunk`; v3.0 packs episodes into
 * `chunk-NNN/file-NNN` files and records per-episode row ranges and video timestamps in
 * `meta/episodes/`. A feature is `{dtype, shape, names}`; names are a list, a `{motors: [...]}`-style
 * map with one list (older datasets), or null.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';

export const INFO_PATH = 'meta/info.json';
export const LEROBOT_VERSIONS = ['v2.0', 'v2.1', 'v3.0'] as const;
export type LerobotVersion = (typeof LEROBOT_VERSIONS)[number];

/** A LeRobot dataset file that cannot be read as the format says. Names the file and, where known, the field. */
export class LerobotFormatError extends Error {
  override readonly name = 'LerobotFormatError';
  constructor(
    readonly file: string,
    readonly field: string | null,
    problem: string,
  ) {
    super(`${file}: ${field ? `field '${field}': ` : ''}${problem}`);
  }
}

const featureSchema = z
  .object({
    /** float32, float64, int64, bool, string, image or video (numpy names for numbers). */
    dtype: z.string().min(1),
    shape: z.array(z.int().min(0)),
    /** Per-dimension names: a list, a one-entry map of a list, or null. */
    names: z.union([z.array(z.string()), z.record(z.string(), z.array(z.string())), z.null()]).optional(),
    /** v3.0: the frame rate of non-video features. */
    fps: z.number().positive().optional(),
    /** Video features: codec, pixel format, size (LeRobot writes `video.codec` etc.). */
    info: z.record(z.string(), z.unknown()).nullable().optional(),
  })
  .passthrough();
export type LerobotFeature = z.infer<typeof featureSchema>;

const infoSchema = z
  .object({
    codebase_version: z.enum(LEROBOT_VERSIONS),
    robot_type: z.string().nullable().optional(),
    total_episodes: z.int().min(0),
    total_frames: z.int().min(0),
    total_tasks: z.int().min(0),
    chunks_size: z.int().min(1),
    fps: z.number().positive(),
    splits: z.record(z.string(), z.string()).optional(),
    data_path: z.string().min(1),
    video_path: z.string().min(1).nullable().optional(),
    features: z.record(z.string(), featureSchema),
  })
  .passthrough();
export type LerobotInfo = z.infer<typeof infoSchema>;

/** Reads and validates `dir/meta/info.json`. */
export async function readLerobotInfo(dir: string): Promise<LerobotInfo> {
  const file = join(dir, INFO_PATH);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new LerobotFormatError(file, null, `not found: ${dir} is not a LeRobot dataset (no ${INFO_PATH})`);
    }
    throw err;
  }
  return parseJson(file, text, infoSchema);
}

/** The text of `file`, or null when there is no such file. */
export async function readTextIfAny(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/**
 * `text`, read from `where` (a file, or `file:line`), as the JSON `schema` takes; a LerobotFormatError naming
 * `where` and the first field at fault otherwise.
 */
export function parseJson<S extends z.ZodType>(where: string, text: string, schema: S): z.infer<S> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new LerobotFormatError(where, null, `not valid JSON (${(err as Error).message})`);
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new LerobotFormatError(where, issue?.path.map(String).join('.') || '(root)', issue?.message ?? 'invalid');
  }
  return parsed.data;
}

/** The names of a feature's dimensions (`"0"`, `"1"`, … when the dataset gives none). */
export function featureNames(feature: LerobotFeature): string[] {
  const size = feature.shape.reduce((a, b) => a * b, 1);
  const names = feature.names;
  if (Array.isArray(names)) return names;
  if (names && typeof names === 'object') {
    const lists = Object.values(names);
    if (lists.length === 1 && lists[0]!.length === size) return lists[0]!;
  }
  return Array.from({ length: size }, (_, i) => String(i));
}

/** Fills a LeRobot path template (`data/chunk-{chunk_index:03d}/file-{file_index:03d}.parquet`), Python style. */
export function formatPath(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{(\w+)(?::0?(\d+)d)?\}/g, (_match, key: string, width?: string) => {
    const value = values[key];
    if (value === undefined) throw new Error(`path template ${template}: no value for {${key}}`);
    return width && typeof value === 'number' ? String(value).padStart(Number(width), '0') : String(value);
  });
}
