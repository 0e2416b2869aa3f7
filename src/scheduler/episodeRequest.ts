/**
 * One anchor episode asked of the robot pool, and what became of it. Every request has a stable
 * id built from (run, step, group, rollout): a restarted trainer asks for the same ids again,
 * which is how the queue tells "already done" from "never asked" (exactly-once).
 */
import type { TaskSpec } from '../core/types.ts';

export interface EpisodeRequest {
  /** Stable id, see `requestId`. Also the stored episode's id. */
  id: string;
  run: string;
  step: number;
  group: number;
  rollout: number;
  task: TaskSpec;
  /** Scene seed. */
  seed: number;
  /**
   * Seed of the policy's action noise for this rollout, and its
   * step-to-step correlation (src/policy/rolloutNoise.ts; absent: 0).
   */
  noiseSeed: number;
  noiseCorrelation?: number;
  /** Control steps after which the episode ends unless the task ended it sooner (absent: the task's horizon). */
  maxSteps?: number;
  /** Longest this episode can take on a robot, in seconds (steps / control rate): reserved against the budget. */
  maxRobotSeconds: number;
  /** Policy to run for remote workers (a folder they can read); in-process pools run the trainer's own. */
  policy?: string;
}

export type RequestState = 'queued' | 'running' | 'done' | 'failed';

/** What the robot returned, stored with the ledger entry in one transaction. */
export interface EpisodeOutcome {
  episodeId: string;
  success: boolean;
  /** Robot time of the episode itself (steps / control rate). */
  robotSeconds: number;
  /** Wall-clock milliseconds (epoch) the episode started and finished on the robot. */
  startedAt: number;
  finishedAt: number;
  /** The encoded episode, for queues whose workers cannot write the trainer's episode store (remote workers). */
  payload?: Uint8Array;
}

export interface RequestRecord {
  request: EpisodeRequest;
  state: RequestState;
  /** Failed attempts so far. */
  attempts: number;
  /** Robots an attempt failed on (a retry prefers another). */
  failedOn: string[];
  robot: string | null;
  enqueuedAt: number;
  outcome: EpisodeOutcome | null;
  error: string | null;
}

/**
 * `run.s<step>.g<group>.r<rollout>` (no colons: BullMQ job ids may
 * not hold them): stable across restarts, unique within a run.
 */
export function requestId(run: string, step: number, group: number, rollout: number): string {
  if (!/^[\w.-]+$/.test(run)) throw new Error(`run id '${run}' may hold only letters, digits, '.', '_' and '-'`);
  return `${run}.s${step}.g${group}.r${rollout}`;
}
