/**
 * Which task and seed each episode of a collection gets: families in turn, seeds counting up
 * from a base, so a plan is reproducible and two plans with different bases never overlap.
 */
import { Rng } from '../core/rng.ts';
import type { Split, TaskSpec } from '../core/types.ts';
import { sampleTask } from './sampleTask.ts';
import type { TaskSelector } from './selectors.ts';

export interface PlannedEpisode {
  task: TaskSpec;
  seed: number;
}

export type SplitChoice = Split | 'both';

export function planEpisodes(
  selectors: TaskSelector[],
  split: SplitChoice,
  count: number,
  baseSeed: number,
): PlannedEpisode[] {
  if (selectors.length === 0) throw new Error('no tasks selected');
  return Array.from({ length: count }, (_, i) => {
    const seed = baseSeed + i;
    const selector = selectors[i % selectors.length]!;
    const episodeSplit: Split =
      split === 'both' ? (Math.floor(i / selectors.length) % 2 === 0 ? 'train' : 'test') : split;
    return { task: sampleTask(selector, episodeSplit, new Rng(seed ^ 0x7a5c0de)), seed };
  });
}
