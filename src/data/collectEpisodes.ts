/**
 * Collect planned episodes from an env with a controller into an episode store. Stops cleanly
 * between episodes when `signal` aborts, so every stored episode is complete. An episode the env
 * aborts (a dropped connection, a failed service call, a silent robot, a bad measurement) is
 * stored marked 'aborted' — never served for training — and, once the robot answers again, the
 * same planned episode runs again, up to `maxConsecutiveAborts` attempts in a row.
 */
import type { Episode } from '../core/types.ts';
import type { Controller } from '../core/controller.ts';
import type { EpisodeAbortedError, Env } from '../envs/env.ts';
import { EpisodeRerunsExhaustedError, runWithReruns } from '../envs/rerunAborted.ts';
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
  /** Longest wait for the robot to answer again after an abort (default: the env's connect timeout). */
  waitForRobotMs?: number;
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
    const episode = await runWithReruns(
      options.env,
      () => runEpisode(options.env, options.controller, { ...planned, initialStatus: options.initialStatus }),
      {
        what: `episode ${i} (seed ${planned.seed})`,
        ...(options.maxConsecutiveAborts !== undefined ? { maxAttempts: options.maxConsecutiveAborts } : {}),
        ...(options.waitForRobotMs !== undefined ? { waitForRobotMs: options.waitForRobotMs } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
        onAbort: async (err) => {
          aborted++;
          if (err.episode) await options.store?.append(err.episode);
          options.onAbort?.(err, i);
        },
      },
    ).catch((err: unknown) => {
      if (err instanceof EpisodeRerunsExhaustedError) err.message += '. Every earlier episode is stored.';
      throw err;
    });
    if (!episode) break;
    await options.store?.append(episode);
    if (episode.success) successes++;
    done++;
    options.onEpisode?.(episode, i);
    // An in-process simulator never waits on I/O, so the episodes would run as one long chain of
    // microtasks: let signals (Ctrl-C), sockets and child processes' events through between them.
    await new Promise((r) => setImmediate(r));
  }
  return { episodes: done, successes, aborted };
}
