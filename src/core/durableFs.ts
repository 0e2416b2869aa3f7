/** File-system helpers for durable writes. */
import { open } from 'node:fs/promises';

/** fsyncs a folder so that creations and renames in it are durable (best effort where unsupported). */
export async function syncDir(dir: string): Promise<void> {
  let fh;
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
