/**
 * Chunk file names in a dataset folder: `chunk-NNNNNN.wmrl` (closed) and
 * `chunk-NNNNNN.wmrl.tmp` (being written, or left over from a crash).
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

const CHUNK_NAME = /^chunk-(\d{6,})\.wmrl(\.tmp)?$/;

export interface ChunkFileRef {
  number: number;
  name: string;
  path: string;
  /** True for a `.tmp` chunk: still being written or left over from a crash. */
  open: boolean;
}

export function chunkFileName(number: number, open: boolean): string {
  return `chunk-${String(number).padStart(6, '0')}.wmrl${open ? '.tmp' : ''}`;
}

export function parseChunkFileName(name: string): { number: number; open: boolean } | null {
  const m = CHUNK_NAME.exec(name);
  return m ? { number: Number(m[1]), open: m[2] !== undefined } : null;
}

/** Chunk files in `dir`, by number (a closed chunk before a `.tmp` of the same number). */
export async function listChunkFiles(dir: string): Promise<ChunkFileRef[]> {
  const refs: ChunkFileRef[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const parsed = entry.isFile() ? parseChunkFileName(entry.name) : null;
    if (parsed) refs.push({ ...parsed, name: entry.name, path: join(dir, entry.name) });
  }
  return refs.sort((a, b) => a.number - b.number || Number(a.open) - Number(b.open));
}
