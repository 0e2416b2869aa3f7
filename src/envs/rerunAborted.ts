/**
 * How an episode that aborts is run again: the attempt's partial episode goes to `onAbort` (to be
 * stored, marked aborted), the caller waits for the robot to serve again (`env.waitForRobot`),
 * pauses `rerunDelayMs`, and the same episode runs again, at most `maxAttempts` attempts in a row.
 * Any other error ends it at once. The pause is there because a robot that answers its services
 * at once can still be in the state that aborted the attempt (a sensor's burst of NaN lasting a
 * second): without it, on a real ROS 1 arm all three attempts were spent within 350 ms.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Episode } from '../core/types.ts';
import { EpisodeAbortedError, type Env } from './env.ts';

export interface RerunOptions {
  /** What runs, for messages, e.g. "episode 3 (seed 42)". */
  what: string;
  /** Attempts in a row before giving up (default 3). */
  maxAttempts?: number;
  /** Longest wait for the robot after an abort (default: the env's own, e.g. its connect timeout). */
  waitForRobotMs?: number;
  /** Pause before each rerun, once the robot serves again (default 1000 ms). */
  rerunDelayMs?: number;
  /** Each aborted attempt (1-based), with its partial episode in `error.episode` when it had started. */
  onAbort?: (error: EpisodeAbortedError, attempt: number) => Promise<void> | void;
  /** Stops between attempts: the result is then undefined. */
  signal?: AbortSignal;
}

/** The attempts ran out, or the robot did not come back: `last` is the final abort. */
export class EpisodeRerunsExhaustedError extends Error {
  override name = 'EpisodeRerunsExhaustedError';
  constructor(
    message: string,
    readonly last: EpisodeAbortedError,
  ) {
    super(message);
  }
}

/** Run `attempt` until it returns an episode; undefined when `signal` stopped it after an abort. */
export async function runWithReruns(
  env: Env,
  attempt: () => Promise<Episode>,
  options: Omit<RerunOptions, 'signal'>,
): Promise<Episode>;
export async function runWithReruns(
  env: Env,
  attempt: () => Promise<Episode>,
  options: RerunOptions,
): Promise<Episode | undefined>;
export async function runWithReruns(
  env: Env,
  attempt: () => Promise<Episode>,
  options: RerunOptions,
): Promise<Episode | undefined> {
  const limit = options.maxAttempts ?? 3;
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (err) {
      if (!(err instanceof EpisodeAbortedError)) throw err;
      await options.onAbort?.(err, n);
      if (n >= limit)
        throw new EpisodeRerunsExhaustedError(`${options.what} aborted ${n} times in a row; last: ${err.message}`, err);
      if (options.signal?.aborted) return undefined;
      try {
        await env.waitForRobot?.({
          ...(options.waitForRobotMs !== undefined ? { timeoutMs: options.waitForRobotMs } : {}),
          ...(options.signal ? { signal: options.signal } : {}),
        });
      } catch (waitError) {
        throw new EpisodeRerunsExhaustedError(
          `${options.what} aborted (${err.message}), and then ${(waitError as Error).message}`,
          err,
        );
      }
      if (options.signal?.aborted) return undefined;
      const delay = options.rerunDelayMs ?? 1000;
      if (delay > 0)
        try {
          await sleep(delay, undefined, options.signal ? { signal: options.signal } : {});
        } catch {
          return undefined; // stopped during the pause
        }
    }
  }
}
