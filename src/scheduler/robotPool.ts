/**
 * The robots anchor episodes run on, each with its availability windows, reset/operator time
 * between episodes and health. A robot is ready when it is idle, inside a window, past its reset
 * time and healthy (or past its back-off). A failure marks it unhealthy and backs it off,
 * doubling with each further failure; a success makes it healthy again. Envs open lazily, and a
 * robot's env is closed and reopened after any failure other than an aborted episode.
 */
import type { Env } from '../envs/env.ts';
import { EpisodeAbortedError } from '../envs/env.ts';
import type { RobotHealth } from './anchorQueue.ts';
import { isAvailable, nextAvailable } from './availability.ts';
import type { RobotConfig } from './robotConfig.ts';

export interface PoolRobot {
  config: RobotConfig;
  /** Opens this robot's env (called lazily, and again after a failure closed it). */
  open: () => Promise<Env>;
}

export class RobotSlot {
  readonly config: RobotConfig;
  readonly #open: () => Promise<Env>;
  #env: Env | null = null;
  busy = false;
  /** Epoch ms the last episode ended (reset time counts from here). */
  lastEnd = -Infinity;
  health: RobotHealth = { healthy: true, retryAt: 0, failures: 0, lastError: null };
  /** Wall ms spent running episodes (for utilisation), resets included. */
  busyMs = 0;
  /** Of busyMs, the resets: a person's set-up time for robots reset by an operator. */
  resetMs = 0;

  constructor(robot: PoolRobot) {
    this.config = robot.config;
    this.#open = robot.open;
  }

  get name(): string {
    return this.config.name;
  }

  /** The earliest epoch ms this robot can start an episode (Infinity while busy). */
  readyAt(now: number): number {
    if (this.busy) return Infinity;
    const t = Math.max(
      now,
      this.lastEnd + this.config.resetSeconds * 1000,
      this.health.healthy ? 0 : this.health.retryAt,
    );
    return nextAvailable(this.config.windows, t);
  }

  isReady(now: number): boolean {
    return this.readyAt(now) <= now && isAvailable(this.config.windows, now);
  }

  async env(): Promise<Env> {
    this.#env ??= await this.#open();
    return this.#env;
  }

  succeeded(at: number): void {
    this.lastEnd = at;
    this.health = { healthy: true, retryAt: 0, failures: 0, lastError: null };
  }

  async failed(err: unknown, at: number): Promise<void> {
    this.lastEnd = at;
    const failures = this.health.failures + 1;
    const backoff = this.config.backoffSeconds * 1000 * 2 ** Math.min(5, failures - 1);
    this.health = {
      healthy: false,
      retryAt: at + backoff,
      failures,
      lastError: err instanceof Error ? err.message : String(err),
    };
    // An aborted episode leaves the env usable (it reconnects on reset); anything else may have broken it.
    if (!(err instanceof EpisodeAbortedError)) await this.close();
  }

  async close(): Promise<void> {
    const env = this.#env;
    this.#env = null;
    try {
      await env?.close();
    } catch {
      // The robot already failed; a second error while closing tells nothing new.
    }
  }
}

export class RobotPool {
  readonly slots: RobotSlot[];

  constructor(robots: PoolRobot[]) {
    if (robots.length === 0) throw new Error('the robot pool is empty: add robots with `wmrl robot add`');
    this.slots = robots.map((r) => new RobotSlot(r));
  }

  ready(now: number): RobotSlot[] {
    return this.slots.filter((s) => s.isReady(now));
  }

  /** When the next idle robot becomes ready (Infinity when all are busy). */
  nextReadyAt(now: number): number {
    return Math.min(...this.slots.map((s) => s.readyAt(now)));
  }

  async close(): Promise<void> {
    for (const s of this.slots) await s.close();
  }
}
