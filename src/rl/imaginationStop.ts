/**
 * When imagination trains the policy: until an update with imagined samples leaves the clone by
 * more than the configured KL, and, with a restart, again after a few all-real steps. The world
 * model was fit near the clone's behaviour, and past that radius its gradient led pick's policies
 * astray in every seed (docs/benchmarks.md). A restart is the model-based loop of ME-TRPO and MBPO:
 * the stopped policy's own rollouts refit the model, then imagination may move the policy one more
 * radius, measured from where it now stands (the KL of the last update before the restart).
 */
import type { TrainingProgress } from './trainer.ts';

export interface ImaginationLimit {
  /** KL(π ‖ π_BC) an update may add with imagined samples before imagination stops (absent: never). */
  imaginedKlLimit?: number;
  /** All-real steps after a stop before imagination resumes (absent: it never does). */
  imaginationRestartAfter?: number;
}

/**
 * After step `step`'s update (KL `kl` to the clone): stops imagination when an update with imagined
 * samples passed the limit; while stopped with a restart due, the KL it will start from follows the policy.
 * Returns whether imagination stopped at this step.
 */
export function afterUpdate(
  progress: TrainingProgress,
  limits: ImaginationLimit,
  step: number,
  kl: number,
  imaginedInUpdate: boolean,
): boolean {
  const limit = limits.imaginedKlLimit;
  if (limit === undefined) return false;
  // Only a restart counts from a base: without one the limit stays measured from the clone.
  const restarts = limits.imaginationRestartAfter !== undefined;
  if (progress.imaginationStoppedAt !== undefined) {
    if (restarts) progress.imaginationKlBase = kl;
    return false;
  }
  if (!imaginedInUpdate || kl <= (progress.imaginationKlBase ?? 0) + limit) return false;
  progress.imaginationStoppedAt = step;
  if (restarts) progress.imaginationKlBase = kl;
  return true;
}

/**
 * Before step `step` draws its groups: imagination resumes once the configured number of all-real steps
 * followed its stop. Returns whether it resumed.
 */
export function resumeIfDue(progress: TrainingProgress, limits: ImaginationLimit, step: number): boolean {
  const after = limits.imaginationRestartAfter;
  const stopped = progress.imaginationStoppedAt;
  if (after === undefined || stopped === undefined || step - stopped <= after) return false;
  delete progress.imaginationStoppedAt;
  return true;
}
