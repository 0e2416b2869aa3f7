/**
 * `dataset.json`: what marks a folder as a wmrl episode dataset, and for which robot.
 */
import { randomUUID } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../core/durableFs.ts';

export const MANIFEST_FILE = 'dataset.json';
export const DATASET_FORMAT = 'wmrl-episodes';
export const DATASET_VERSION = 1;
const MAX_MANIFEST_BYTES = 1024 * 1024;

const manifestSchema = z.object({
  format: z.literal(DATASET_FORMAT),
  version: z.literal(DATASET_VERSION),
  robot: z.string().min(1).max(1000),
  /** Absolute path of the robot's description when it is not this package's robots/<robot> (see robotRef). */
  robotPath: z.string().min(1).max(4096).optional(),
  createdAt: z.string().min(1).max(1000),
  datasetId: z.string().min(1).max(1000),
});
export type DatasetManifest = z.infer<typeof manifestSchema>;

/** A dataset folder that cannot be opened or written as asked. Nothing was changed. */
export class DatasetError extends Error {
  override readonly name = 'DatasetError';
  constructor(
    readonly dir: string,
    message: string,
  ) {
    super(message);
  }
}

export function newManifest(robot: string, datasetId: string = randomUUID(), robotPath?: string): DatasetManifest {
  return manifestSchema.parse({
    format: DATASET_FORMAT,
    version: DATASET_VERSION,
    robot,
    ...(robotPath ? { robotPath } : {}),
    createdAt: new Date().toISOString(),
    datasetId,
  });
}

/** Reads and validates `dir/dataset.json`; `null` when the file does not exist. */
export async function readManifest(dir: string): Promise<DatasetManifest | null> {
  const file = join(dir, MANIFEST_FILE);
  let size: number;
  try {
    size = (await stat(file)).size;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  if (size > MAX_MANIFEST_BYTES)
    throw new DatasetError(dir, `${file}: ${size} bytes, too large for a dataset manifest`);
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(file, 'utf8'));
  } catch (err) {
    throw new DatasetError(dir, `${file}: not valid JSON (${(err as Error).message})`);
  }
  const parsed = manifestSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.map(String).join('.') || '(root)';
    throw new DatasetError(
      dir,
      `${file}: not a wmrl dataset manifest: field '${field}': ${issue?.message ?? 'invalid'}`,
    );
  }
  return parsed.data;
}

/** Writes `dir/dataset.json` atomically (temp file, fsync, rename, fsync dir). */
export async function writeManifest(dir: string, manifest: DatasetManifest): Promise<void> {
  await writeFileAtomic(join(dir, MANIFEST_FILE), `${JSON.stringify(manifestSchema.parse(manifest), null, 2)}\n`);
}
