/**
 * Conversions write into a hidden sibling folder and move it into place only when everything is
 * written, so a failed or interrupted run leaves `--out` as it was (absent or empty) and never a
 * half-written dataset that looks whole.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, readdir, rename, rm, rmdir } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';

/** Refuses an `out` that exists and is not an empty folder, before any work is done. */
export async function requireEmptyOutput(out: string): Promise<void> {
  let entries: string[];
  try {
    entries = await readdir(out);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return;
    if (code === 'ENOTDIR') throw new Error(`--out ${out} is a file, not a folder`);
    throw err;
  }
  if (entries.length > 0) throw new Error(`refusing to write to ${out}: the folder is not empty`);
}

/** Runs `write(staging)` and then moves the staging folder to `out`; removes it on failure. */
export async function writeThenMove<T>(out: string, write: (staging: string) => Promise<T>): Promise<T> {
  await requireEmptyOutput(out);
  const target = resolve(out);
  const staging = join(dirname(target), `.${basename(target)}.partial-${randomUUID().slice(0, 8)}`);
  await mkdir(staging, { recursive: true });
  try {
    const result = await write(staging);
    await requireEmptyOutput(out); // nobody filled it meanwhile
    await rmdir(target).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });
    await rename(staging, target);
    return result;
  } catch (err) {
    await rm(staging, { recursive: true, force: true });
    throw err;
  }
}
