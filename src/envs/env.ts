/**
 * The environment contract every source of real episodes implements: the in-process
 * simulator today, a rosbridge robot tomorrow.
 */
import type { RobotDescription } from '../core/robotDescription.ts';
import type { Action, Episode, EpisodeSource, Observation, StepResult, TaskSpec } from '../core/types.ts';

export interface ResetOptions {
  task: TaskSpec;
  /** Decides the scene layout; the same task and seed give the same episode. */
  seed: number;
}

/** Why an episode could not go on. */
export type AbortFault =
  /** The connection to the robot dropped. */
  | 'connection-lost'
  /** The robot stopped publishing (no fresh measurement in time). */
  | 'robot-silent'
  /** A robot service call (task status, reset) failed or timed out. */
  | 'service-failed'
  /** The robot sent a measurement that is not a finite number (NaN, an infinity, null). */
  | 'bad-value';

/**
 * The episode could not run to its end (e.g. the robot's connection dropped): whatever was
 * recorded is marked aborted and never stored or used as a complete episode. The env stays
 * usable: the next `reset` starts a fresh episode (after reconnecting, for remote robots).
 */
export class EpisodeAbortedError extends Error {
  override name = 'EpisodeAbortedError';
  readonly fault: AbortFault;
  /** The partial episode, status 'aborted' (set by runEpisode when it had started recording). */
  episode: Episode | undefined;

  constructor(message: string, fault: AbortFault) {
    super(message);
    this.fault = fault;
  }
}

/**
 * Invariants: `reset` must be called before `step`; after `done` only `reset` or `close` are
 * valid; `step` never applies an action outside the robot's limits (it is clipped to them, and
 * a non-finite action is refused with an error, not applied). `reset` and `step` throw
 * EpisodeAbortedError when the episode cannot go on. `close` frees every resource.
 */
export interface Env {
  readonly robot: RobotDescription;
  /** What kind of episodes this env produces (stored with every episode). */
  readonly source: EpisodeSource;
  /** Maximum control ticks of the current task's episode. */
  readonly horizon: number;
  reset(options: ResetOptions): Promise<Observation>;
  step(action: Action): Promise<StepResult>;
  /**
   * After an aborted episode: resolves once the robot answers again (remote robots: connected and
   * serving), rejects with an error saying why after `timeoutMs`, resolves early when `signal`
   * aborts. Envs that cannot lose their robot (the in-process simulator) leave it out.
   */
  waitForRobot?(options?: { timeoutMs?: number; signal?: AbortSignal }): Promise<void>;
  /** Wall seconds the last reset took, a person's set-up included, where the env measures it (rosbridge). */
  readonly lastResetSeconds?: number;
  close(): Promise<void>;
}
