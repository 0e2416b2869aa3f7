/**
 * Collect planned episodes from an env with a controller into an episode store. Stops cleanly
 * between episodes when `signal` aborts, so every stored episode is complete. An episode the env
 * aborts (a robot's connection dropped) is stored marked 'aborted' — never served for training —
 * and the same planned episode runs again, up to `maxConsecutiveAborts` times in a row.
 */
import type { Episode } from '../core/types.ts';
import type { Controller } from '../core/controller.ts';
import { EpisodeAbortedError, type Env } from '../envs/env.ts';
import { runEpisode } from '../envs/rollout.ts';
import type { EpisodeStore } from './episodeStore.ts';
import type { PlannedEpisode } from '../tasks/episodePlan.ts';

export interface CollectOptions {
  env: Env;
  controller: Controller;
  /** Where episodes (and aborted attempts) are stored; absent: they are only counted and handed to onEpisode. */
  store?: EpisodeStore;
  plan: PlannedEpisode[];
  initialStatus?: () => { progress: number; success: boolean };
  onEpisode?: (episode: Episode, index: number) => void;
  /** An aborted attempt of planned episode `index` (it will be retried). */
  onAbort?: (error: EpisodeAbortedError, index: number) => void;
  /** Aborted attempts in a row before collection gives up (default 3). */
  maxConsecutiveAborts?: number;
  signal?: AbortSignal;
}

export async function collectEpisodes(
  options: CollectOptions,
): Promise<{ episodes: number; successes: number; aborted: number }> {
  let successes = 0;
  let done = 0;
  let aborted = 0;
  for (const [i, planned] of options.plan.entries()) {
    if (options.signal?.aborted) break;
    let episode: Episode | undefined;
    for (let attempt = 1; !episode; attempt++) {
      try {
        episode = await runEpisode(options.env, options.controller, {
          ...planned,
          initialStatus: options.initialStatus,
        });
      } catch (err) {
        if (!(err instanceof EpisodeAbortedError)) throw err;
        aborted++;
        if (err.episode) await options.store?.append(err.episode);
        options.onAbort?.(err, i);
        const limit = options.maxConsecutiveAborts ?? 3;
        if (attempt >= limit)
          throw new Error(
            `episode ${i} (seed ${planned.seed}) aborted ${attempt} times ` +
              `in a row; last: ${err.message}. Every earlier episode is stored.`,
          );
        if (options.signal?.aborted) return { episodes: done, successes, aborted };
      }
    }
    await options.store?.append(episode);
    if (episode.success) successes++;
    done++;
    options.onEpisode?.(episode, i);
  }
  return { episodes: done, successes, aborted };
}
