/**
 * Counts over a dataset's episodes, as `wmrl info DIR` shows them.
 */
import type { Episode, Split } from '../core/types.ts';
import type { ChunkIssue } from './chunkFile.ts';
import { episodeRobotSeconds } from './robotTime.ts';

export interface GroupSummary {
  /** The episodes' task family. */
  family: string;
  split: Split;
  /** Complete (non-aborted) episodes. */
  episodes: number;
  successes: number;
  /** successes / episodes (0 when there are none). */
  successRate: number;
  steps: number;
  /**
   * Control steps the successful episodes took (nearest-rank percentiles; null: none succeeded):
   * how long a successful episode of the task takes.
   */
  successSteps: { median: number; p95: number; max: number } | null;
}

export interface DatasetSummary {
  dir: string;
  robot: string;
  datasetId: string;
  createdAt: string;
  /** Complete (non-aborted) episodes: the ones served for training. */
  episodes: number;
  /** Aborted episodes (stored, never served for training). */
  aborted: number;
  successes: number;
  successRate: number;
  /** Steps over complete episodes. */
  totalSteps: number;
  /** The robot time those steps took (each step 1/controlHz s): what the data cost to collect, resets aside. */
  robotSeconds: number;
  /** Per family × split, complete episodes only, sorted by family then split. */
  groups: GroupSummary[];
  /** Closed chunk files (`*.wmrl`). */
  chunks: number;
  /** `.tmp` chunk files: being written, or left over from a crash. */
  openChunks: number;
  /** Bytes of all files in the dataset folder. */
  bytesOnDisk: number;
  /** Truncated tails and skipped records met while reading. */
  issues: ChunkIssue[];
}

/** Accumulates episodes into the counts of a `DatasetSummary`. */
export class SummaryCounter {
  private readonly groups = new Map<string, GroupSummary>();
  private readonly successLengths = new Map<string, number[]>();
  aborted = 0;
  private robotSeconds = 0;

  add(episode: Episode): void {
    if (episode.status === 'aborted') {
      this.aborted++;
      return;
    }
    const { family, split } = episode.task;
    const key = `${family}\u0000${split}`;
    let g = this.groups.get(key);
    if (!g) {
      g = { family, split, episodes: 0, successes: 0, successRate: 0, steps: 0, successSteps: null };
      this.groups.set(key, g);
      this.successLengths.set(key, []);
    }
    g.episodes++;
    g.successes += episode.success ? 1 : 0;
    g.successRate = g.successes / g.episodes;
    g.steps += episode.steps;
    this.robotSeconds += episodeRobotSeconds(episode);
    if (episode.success) this.successLengths.get(key)!.push(episode.steps);
  }

  counts(): Pick<
    DatasetSummary,
    'episodes' | 'aborted' | 'successes' | 'successRate' | 'totalSteps' | 'robotSeconds' | 'groups'
  > {
    for (const [key, g] of this.groups) g.successSteps = percentiles(this.successLengths.get(key)!);
    const groups = [...this.groups.values()].sort(
      (a, b) => a.family.localeCompare(b.family) || a.split.localeCompare(b.split),
    );
    const episodes = groups.reduce((n, g) => n + g.episodes, 0);
    const successes = groups.reduce((n, g) => n + g.successes, 0);
    return {
      episodes,
      aborted: this.aborted,
      successes,
      successRate: episodes ? successes / episodes : 0,
      totalSteps: groups.reduce((n, g) => n + g.steps, 0),
      robotSeconds: this.robotSeconds,
      groups,
    };
  }
}

function percentiles(lengths: number[]): GroupSummary['successSteps'] {
  if (lengths.length === 0) return null;
  const sorted = [...lengths].sort((a, b) => a - b);
  const rank = (q: number) => sorted[Math.ceil(q * sorted.length) - 1]!;
  return { median: rank(0.5), p95: rank(0.95), max: sorted.at(-1)! };
}
