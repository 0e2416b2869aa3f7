/**
 * What waits for the operator, shared between the process that asks (the trainer) and the viewer
 * (another process): `<run>/operator/pending.json`, replaced atomically whenever the list changes,
 * and `<run>/operator/resets.jsonl`, the reset confirmations (append-only, fsynced; each prompt has
 * its own id, so an old confirmation never confirms a new reset). Labels go to labels.jsonl.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../core/durableFs.ts';
import type { PendingItem } from './pendingItem.ts';

export const OPERATOR_DIR = 'operator';

export type { PendingItem };

function pendingFile(runDir: string): string {
  return join(runDir, OPERATOR_DIR, 'pending.json');
}

function resetsFile(runDir: string): string {
  return join(runDir, OPERATOR_DIR, 'resets.jsonl');
}

export async function writePending(runDir: string, items: PendingItem[]): Promise<void> {
  mkdirSync(join(runDir, OPERATOR_DIR), { recursive: true });
  await writeFileAtomic(pendingFile(runDir), JSON.stringify({ items }, null, 1) + '\n');
}

/** The items waiting now ([] when nothing asks, or the file is being replaced). */
export async function readPending(runDir: string): Promise<PendingItem[]> {
  try {
    const raw = JSON.parse(await readFile(pendingFile(runDir), 'utf8')) as { items?: unknown };
    return Array.isArray(raw.items) ? (raw.items as PendingItem[]).filter(isPendingItem) : [];
  } catch {
    return [];
  }
}

function isPendingItem(v: unknown): boolean {
  const item = v as Partial<PendingItem> | null;
  return !!item && typeof item.id === 'string' && (item.kind === 'label' || item.kind === 'reset');
}

/** Records that the operator confirmed reset prompt `id` (fsynced). */
export async function confirmResetPrompt(runDir: string, id: string, by: string): Promise<void> {
  mkdirSync(join(runDir, OPERATOR_DIR), { recursive: true });
  const fh = await open(resetsFile(runDir), 'a');
  try {
    // A leading newline keeps a line torn by a kill from swallowing this one.
    await fh.writeFile(`\n${JSON.stringify({ id, by, at: new Date().toISOString() })}\n`);
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** Ids of the reset prompts confirmed so far. */
export async function confirmedResets(runDir: string): Promise<Set<string>> {
  const file = resetsFile(runDir);
  if (!existsSync(file)) return new Set();
  const ids = new Set<string>();
  for (const line of (await readFile(file, 'utf8')).split('\n')) {
    try {
      const r = JSON.parse(line) as { id?: unknown };
      if (typeof r.id === 'string') ids.add(r.id);
    } catch {
      // An empty or torn line.
    }
  }
  return ids;
}
