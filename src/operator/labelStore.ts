/**
 * Operator labels, durable: `<run>/labels.jsonl`, one JSON line per label, appended and fsynced
 * before the label is used. Several writers may append (the trainer's terminal prompt, the
 * viewer); the first line for an episode id is its label and later ones are ignored, so a label
 * written twice (two answers racing, or a retry after a crash) still counts once. A torn last
 * line (a kill mid-write) is ignored and the next append starts on a fresh line.
 */
import { existsSync } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { OperatorVerdict } from './askOperator.ts';

export const LABELS_FILE = 'labels.jsonl';

/** Where a label came from, for the record. */
export type LabelSource = 'viewer' | 'terminal' | (string & {});

export interface OperatorLabel {
  /** The labelled episode's id (its id in the run's anchor store). */
  episode: string;
  verdict: 'success' | 'failure' | 'skip';
  note?: string;
  by: LabelSource;
  /** ISO time the label was given. */
  at: string;
}

/** The verdict a stored label stands for. */
export function labelVerdict(label: OperatorLabel): OperatorVerdict {
  if (label.verdict === 'skip') return 'skip';
  return { success: label.verdict === 'success', ...(label.note ? { note: label.note } : {}) };
}

export class LabelStore {
  readonly file: string;
  #labels = new Map<string, OperatorLabel>();
  /** Bytes of the file read so far (whole lines only). */
  #offset = 0;
  /** Whether the file ends in a torn line, which the next append must not continue. */
  #torn = false;
  /** One read or append at a time: two reads racing would both advance the offset past the same lines. */
  #busy: Promise<unknown> = Promise.resolve();

  private constructor(file: string) {
    this.file = file;
  }

  /** Opens (reads back) the labels of the run in `runDir`; the file is created by the first label. */
  static async open(runDir: string): Promise<LabelStore> {
    const store = new LabelStore(join(runDir, LABELS_FILE));
    await store.refresh();
    return store;
  }

  get size(): number {
    return this.#labels.size;
  }

  /** The label that counts for `episodeId`, if any. */
  get(episodeId: string): OperatorLabel | undefined {
    return this.#labels.get(episodeId);
  }

  all(): OperatorLabel[] {
    return [...this.#labels.values()];
  }

  /** Reads lines other writers appended since the last read; returns the labels that are new. */
  refresh(): Promise<OperatorLabel[]> {
    return this.#serial(() => this.#read());
  }

  #serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#busy.then(work);
    this.#busy = run.catch(() => {});
    return run;
  }

  async #read(): Promise<OperatorLabel[]> {
    if (!existsSync(this.file)) return [];
    const size = (await stat(this.file)).size;
    if (size <= this.#offset) return [];
    const fh = await open(this.file, 'r');
    let text: string;
    try {
      const buf = Buffer.alloc(size - this.#offset);
      const { bytesRead } = await fh.read(buf, 0, buf.length, this.#offset);
      text = buf.subarray(0, bytesRead).toString('utf8');
    } finally {
      await fh.close();
    }
    const end = text.lastIndexOf('\n') + 1;
    this.#offset += Buffer.byteLength(text.slice(0, end));
    this.#torn = end < text.length;
    const added: OperatorLabel[] = [];
    for (const line of text.slice(0, end).split('\n')) {
      const label = parseLabel(line);
      if (label && !this.#labels.has(label.episode)) {
        this.#labels.set(label.episode, label);
        added.push(label);
      }
    }
    return added;
  }

  /**
   * Appends `label` (fsynced) unless its episode already has one; returns the label that counts,
   * the earlier one when there was.
   */
  add(label: OperatorLabel): Promise<OperatorLabel> {
    return this.#serial(async () => {
      requireLabel(label);
      await this.#read();
      const existing = this.#labels.get(label.episode);
      if (existing) return existing;
      const fh = await open(this.file, 'a');
      try {
        await fh.writeFile(`${this.#torn ? '\n' : ''}${JSON.stringify(label)}\n`);
        await fh.sync();
      } finally {
        await fh.close();
      }
      // Read back through the file: another writer's line for this episode may have landed first.
      await this.#read();
      return this.#labels.get(label.episode)!;
    });
  }
}

const VERDICTS = new Set(['success', 'failure', 'skip']);

function requireLabel(label: OperatorLabel): void {
  if (typeof label.episode !== 'string' || label.episode.length === 0)
    throw new Error('an operator label needs the episode id');
  if (!VERDICTS.has(label.verdict))
    throw new Error(
      `label of episode ${label.episode}: verdict must be success, failure or skip, not ${label.verdict}`,
    );
}

/** A stored line as a label, or null for a line that is not one (skipped: the others still count). */
function parseLabel(line: string): OperatorLabel | null {
  if (!line.trim()) return null;
  try {
    const raw = JSON.parse(line) as Partial<OperatorLabel>;
    if (typeof raw.episode !== 'string' || !raw.episode || !VERDICTS.has(raw.verdict as string)) return null;
    return {
      episode: raw.episode,
      verdict: raw.verdict!,
      ...(typeof raw.note === 'string' && raw.note ? { note: raw.note } : {}),
      by: typeof raw.by === 'string' ? raw.by : 'unknown',
      at: typeof raw.at === 'string' ? raw.at : '',
    };
  } catch {
    return null;
  }
}
