/**
 * Reading a `wmrl train` run folder while training may still write it: train.metrics.jsonl
 * (tailed: only whole lines are taken, a resumed run's rewrite is noticed), checkpoint/state.json
 * (completed steps and which anchor episodes count) and anchors/ (an episode store).
 */
import { existsSync } from 'node:fs';
import { open, readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { CatalogSource } from './episodeCatalog.ts';
import type { MetricsRecord } from './messages.ts';

export const METRICS_FILE = 'train.metrics.jsonl';

interface CheckpointState {
  step: number;
  anchorEpisodeIds: string[];
}

/** What changed since the last poll. `reset` means the metrics file was rewritten: drop what was read. */
export interface RunChanges {
  records: MetricsRecord[];
  reset: boolean;
  checkpointChanged: boolean;
  anchorsChanged: boolean;
}

export class RunFolder {
  readonly dir: string;
  #offset = 0;
  #partial = '';
  #records: MetricsRecord[] = [];
  #checkpoint: CheckpointState | null = null;
  #checkpointStamp = '';
  #anchorsStamp = '';

  constructor(dir: string) {
    if (!existsSync(dir)) throw new Error(`run folder ${dir} does not exist`);
    if (!existsSync(join(dir, METRICS_FILE)) && !existsSync(join(dir, 'checkpoint')))
      throw new Error(`${dir} is not a wmrl train run folder (no ${METRICS_FILE}, no checkpoint/)`);
    this.dir = dir;
  }

  get records(): readonly MetricsRecord[] {
    return this.#records;
  }

  get checkpointStep(): number | null {
    return this.#checkpoint?.step ?? null;
  }

  get anchorsDir(): string {
    return join(this.dir, 'anchors');
  }

  /** Where the latest checkpoint's policy and world model are (null before the first checkpoint). */
  checkpointModels(): { policyDir: string; worldModelDir: string } | null {
    const ck = join(this.dir, 'checkpoint');
    if (!existsSync(join(ck, 'worldmodel', 'model.json')) || !existsSync(join(ck, 'policy', 'model.json'))) return null;
    return { policyDir: join(ck, 'policy'), worldModelDir: join(ck, 'worldmodel') };
  }

  /**
   * The anchors as a catalogue source: only completed steps' anchors, each with its step, and the
   * episodes in `waiting` (anchors of the step in progress that wait for the operator's label).
   */
  anchorSource(waiting: ReadonlySet<string> = new Set()): CatalogSource {
    // Step s's anchors follow step s-1's in storage order, realRollouts of them per step.
    const counts = this.#records
      .filter((r) => r.kind === 'step' && typeof r.step === 'number')
      .map((r) => ({ step: r.step as number, n: Number(r.realRollouts ?? 0) }));
    const ids = this.#checkpoint ? new Set(this.#checkpoint.anchorEpisodeIds) : null;
    return {
      dir: this.anchorsDir,
      origin: 'anchor',
      ...(ids ? { keep: (id: string) => ids.has(id) || waiting.has(id) } : {}),
      stepOf: (index) => {
        let seen = 0;
        for (const c of counts) {
          seen += c.n;
          if (index < seen) return c.step;
        }
        return null;
      },
    };
  }

  /** Read what training appended since the last poll. */
  async poll(): Promise<RunChanges> {
    const changes: RunChanges = { records: [], reset: false, checkpointChanged: false, anchorsChanged: false };
    await this.#readMetrics(changes);
    const ckStamp = await stamp(join(this.dir, 'checkpoint', 'state.json'));
    if (ckStamp !== this.#checkpointStamp) {
      const state = await readState(join(this.dir, 'checkpoint', 'state.json'));
      // Mid-swap (checkpoint renamed away for an instant): keep what we had, look again next poll.
      if (state || !ckStamp) {
        this.#checkpointStamp = ckStamp;
        this.#checkpoint = state;
        changes.checkpointChanged = true;
      }
    }
    const anchorsStamp = await dirStamp(this.anchorsDir);
    // Which anchors count, and their steps, follow the checkpoint and the step records too.
    changes.anchorsChanged =
      anchorsStamp !== this.#anchorsStamp ||
      changes.checkpointChanged ||
      changes.reset ||
      changes.records.some((r) => r.kind === 'step');
    this.#anchorsStamp = anchorsStamp;
    return changes;
  }

  async #readMetrics(changes: RunChanges): Promise<void> {
    const file = join(this.dir, METRICS_FILE);
    let size: number;
    try {
      size = (await stat(file)).size;
    } catch {
      return;
    }
    if (size < this.#offset) {
      // Rewritten (a resumed run truncates records of unfinished steps): read it afresh.
      this.#offset = 0;
      this.#partial = '';
      this.#records = [];
      changes.reset = true;
    }
    if (size === this.#offset) return;
    const fh = await open(file, 'r');
    try {
      const buf = Buffer.alloc(size - this.#offset);
      const { bytesRead } = await fh.read(buf, 0, buf.length, this.#offset);
      this.#offset += bytesRead;
      const text = this.#partial + buf.subarray(0, bytesRead).toString('utf8');
      const lines = text.split('\n');
      this.#partial = lines.pop()!;
      for (const line of lines) {
        if (!line.trim()) continue;
        try {
          const r = JSON.parse(line) as unknown;
          if (r && typeof r === 'object' && !Array.isArray(r)) changes.records.push(r as MetricsRecord);
        } catch {
          // A damaged line is skipped; the rest of the log still shows.
        }
      }
    } finally {
      await fh.close();
    }
    this.#records.push(...changes.records);
  }
}

async function stamp(file: string): Promise<string> {
  try {
    const s = await stat(file);
    return `${s.size}:${s.mtimeMs}:${s.ino}`;
  } catch {
    return '';
  }
}

async function dirStamp(dir: string): Promise<string> {
  if (!existsSync(dir)) return '';
  const parts: string[] = [];
  for (const name of (await readdir(dir)).sort()) parts.push(`${name}=${await stamp(join(dir, name))}`);
  return parts.join('|');
}

async function readState(file: string): Promise<CheckpointState | null> {
  try {
    const raw = JSON.parse(await readFile(file, 'utf8')) as Partial<CheckpointState>;
    if (typeof raw.step !== 'number' || !Array.isArray(raw.anchorEpisodeIds)) return null;
    return { step: raw.step, anchorEpisodeIds: raw.anchorEpisodeIds.filter((x): x is string => typeof x === 'string') };
  } catch {
    return null;
  }
}
