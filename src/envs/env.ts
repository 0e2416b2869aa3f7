/**
 * The environment contract every source of real episodes implements: the in-process
 * simulator today, a rosbridge robot tomorrow.
 */
import type { RobotDescription } from '../core/robotDescription.ts';
import type { Action, EpisodeSource, Observation, StepResult, TaskSpec } from '../core/types.ts';

export interface ResetOptions {
  task: TaskSpec;
  /** Decides the scene layout; the same task and seed give the same episode. */
  seed: number;
}

/**
 * Invariants: `reset` must be called before `step`; after `done` only `reset` or `close` are
 * valid; `step` never applies an action outside the robot's limits (it is clipped to them, and
 * a non-finite action is refused with an error, not applied). `close` frees every resource.
 */
export interface Env {
  readonly robot: RobotDescription;
  /** What kind of episodes this env produces (stored with every episode). */
  readonly source: EpisodeSource;
  /** Maximum control ticks of the current task's episode. */
  readonly horizon: number;
  reset(options: ResetOptions): Promise<Observation>;
  step(action: Action): Promise<StepResult>;
  close(): Promise<void>;
}
