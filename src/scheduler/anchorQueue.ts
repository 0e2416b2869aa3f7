/**
 * The durable queue of anchor episode requests, with the budget ledger and the results, behind
 * one small interface so an embedded store (SqliteQueue) and a distributed one (RedisQueue,
 * BullMQ) are interchangeable and pass the same behavioural tests.
 *
 * Invariants every implementation keeps:
 *  - `enqueue` is idempotent by request id: asking again for a known id changes nothing;
 *  - `complete` writes the outcome, the ledger entry and the state `done` atomically, and only
 *    once per id: a second `complete` returns false and charges nothing;
 *  - a failed attempt is retried (on another robot when one exists) until `maxAttempts`, then
 *    the request is `failed`, kept with its error: never dropped;
 *  - nothing is lost across a crash: `requeueRunning` returns requests whose runner died to the queue.
 */
import type { EpisodeOutcome, EpisodeRequest, RequestRecord, RequestState } from './episodeRequest.ts';

export interface LedgerTotals {
  episodes: number;
  robotSeconds: number;
}

export interface LedgerFilter {
  /** UTC day, YYYY-MM-DD. */
  day?: string;
  run?: string;
  step?: number;
}

export interface RobotHealth {
  healthy: boolean;
  /** Epoch ms before which an unhealthy robot is not tried again. */
  retryAt: number;
  failures: number;
  lastError: string | null;
}

export interface RobotUsage {
  episodes: number;
  robotSeconds: number;
  /** First episode start and last episode end (epoch ms), for utilisation. */
  firstStart: number | null;
  lastEnd: number | null;
  health: RobotHealth | null;
}

export interface QueueSummary {
  counts: Record<RequestState, number>;
  total: LedgerTotals;
  robots: Record<string, RobotUsage>;
  /** Mean time from enqueue to start of the done episodes, ms. */
  meanQueueDelayMs: number | null;
}

export interface ClaimOptions {
  /** Robots in the pool: a request that failed on this robot waits for another unless all have failed it. */
  poolSize?: number;
  /** Only these requests (a trainer claims only what it asks for now, never a stale request of another step). */
  ids?: ReadonlySet<string>;
}

export interface AnchorQueue {
  /** Adds the requests whose ids are new; returns how many were new. */
  enqueue(requests: EpisodeRequest[]): Promise<number>;
  /** The oldest queued request `robot` may run, now marked running on it; null when none. */
  claim(robot: string, options?: ClaimOptions): Promise<RequestRecord | null>;
  /** Outcome + ledger + done, atomically; false (and nothing charged) when the request was already done. */
  complete(id: string, robot: string, outcome: EpisodeOutcome): Promise<boolean>;
  /** A failed attempt: back to the queue, or `failed` for good after `maxAttempts` attempts. */
  fail(id: string, robot: string, error: string, maxAttempts: number): Promise<'queued' | 'failed'>;
  /**
   * Asked for again after it was reported failed (the robots were fixed):
   * back to `queued` with its attempts reset. False when it was not failed.
   */
  requeueFailed(id: string): Promise<boolean>;
  /** After a crash: every `running` request goes back to `queued` (not counted as an attempt). Returns how many. */
  requeueRunning(): Promise<number>;
  get(id: string): Promise<RequestRecord | undefined>;
  /** Charged so far (done episodes), optionally for one day / run / step. */
  spent(filter?: LedgerFilter): Promise<LedgerTotals>;
  /** Every ledger entry's request id (to check against the episode store). */
  ledgerIds(): Promise<string[]>;
  setRobotHealth(robot: string, health: RobotHealth): Promise<void>;
  summary(): Promise<QueueSummary>;
  close(): Promise<void>;
}

export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}
