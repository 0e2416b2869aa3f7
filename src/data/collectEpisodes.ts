/**
 * Collect planned episodes from an env with a controller into an episode store. Stops cleanly
 * between episodes when `signal` aborts, so every stored episode is complete.
 */
import type { Episode } from '../core/types.ts';
import type { Controller } from '../envs/controller.ts';
import type { Env } from '../envs/env.ts';
import { runEpisode } from '../envs/rollout.ts';
import type { EpisodeStore } from './episodeStore.ts';
import type { PlannedEpisode } from '../../sim/episodePlan.ts';

export interface CollectOptions {
  env: Env;
  controller: Controller;
  store: EpisodeStore;
  plan: PlannedEpisode[];
  initialStatus?: () => { progress: number; success: boolean };
  onEpisode?: (episode: Episode, index: number) => void;
  signal?: AbortSignal;
}

export async function collectEpisodes(options: CollectOptions): Promise<{ episodes: number; successes: number }> {
  let successes = 0;
  let done = 0;
  for (const [i, planned] of options.plan.entries()) {
    if (options.signal?.aborted) break;
    const episode = await runEpisode(options.env, options.controller, { ...planned, initialStatus: options.initialStatus });
    await options.store.append(episode);
    if (episode.success) successes++;
    done++;
    options.onEpisode?.(episode, i);
  }
  return { episodes: done, successes };
}
