/** Success per task family and split, with 95% Wilson intervals. */
import type { Episode, Split } from '../core/types.ts';
import { wilsonInterval } from './proportion.ts';

export interface SuccessRow {
  /** A task family, or 'all'. */
  family: string;
  split: Split;
  episodes: number;
  successes: number;
  rate: number;
  low: number;
  high: number;
}

export class SuccessTable {
  #counts = new Map<string, { family: string; split: Split; episodes: number; successes: number }>();

  add(episode: Pick<Episode, 'task' | 'success'>): void {
    for (const family of [episode.task.family, 'all'] as const) {
      const key = `${family}/${episode.task.split}`;
      const c = this.#counts.get(key) ?? { family, split: episode.task.split, episodes: 0, successes: 0 };
      c.episodes++;
      if (episode.success) c.successes++;
      this.#counts.set(key, c);
    }
  }

  rows(): SuccessRow[] {
    const order = (r: { family: string; split: string }) =>
      `${r.split === 'train' ? 0 : 1}${r.family === 'all' ? 'z' : r.family}`;
    return [...this.#counts.values()]
      .map((c) => ({ ...c, ...wilsonInterval(c.successes, c.episodes) }))
      .sort((a, b) => order(a).localeCompare(order(b)));
  }

  format(): string {
    const lines = [`${'split'.padEnd(6)} ${'family'.padEnd(7)} ${'success'.padStart(8)}   95% interval     episodes`];
    for (const r of this.rows()) {
      lines.push(
        `${r.split.padEnd(6)} ${r.family.padEnd(7)} ${(100 * r.rate).toFixed(1).padStart(7)}%   ` +
          `[${(100 * r.low).toFixed(1).padStart(5)}, ` +
          `${(100 * r.high).toFixed(1).padStart(5)}]%   ${String(r.episodes).padStart(5)}`,
      );
    }
    return lines.join('\n');
  }
}
