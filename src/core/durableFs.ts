/** File-system helpers for durable writes. */
import { randomUUID } from 'node:crypto';
import { type FileHandle, open, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';

/** fsyncs a folder so that creations and renames in it are durable (best effort where unsupported). */
export async function syncDir(dir: string): Promise<void> {
  let fh: FileHandle | undefined;
  try {
    fh = await open(dir, 'r');
    await fh.sync();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EISDIR' && code !== 'EPERM' && code !== 'EINVAL') throw err;
  } finally {
    await fh?.close();
  }
}

/** Creates `file` (it must not exist) with `data` and fsyncs it before returning. */
export async function writeFileSynced(file: string, data: Uint8Array | string): Promise<void> {
  const fh = await open(file, 'wx');
  try {
    await fh.writeFile(data);
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** The file name whose writeFileAtomic temp `name` is (killed before its rename), or null. */
export function atomicTempTarget(name: string): string | null {
  return /^(.+)\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.tmp$/.exec(name)?.[1] ?? null;
}

/**
 * Replaces `file` atomically (temp file, fsync, rename, fsync the
 * folder): a crash leaves the old file or the new one, never half of one.
 */
export async function writeFileAtomic(file: string, text: string): Promise<void> {
  const tmp = `${file}.${randomUUID()}.tmp`;
  await writeFileSynced(tmp, text);
  try {
    await rename(tmp, file);
  } catch (err) {
    await unlink(tmp).catch(() => {});
    throw err;
  }
  await syncDir(dirname(file));
}
