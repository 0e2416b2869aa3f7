/**
 * An env that takes as long as a real robot would: each step lasts at least 1/(controlHz·speed)
 * seconds of wall time. Makes in-process simulators behave like robots for the scheduler and
 * its benchmark (speed 1 = real time).
 */
import type { Action, Observation, StepResult } from '../core/types.ts';
import type { Env, ResetOptions } from '../envs/env.ts';

export class PacedEnv implements Env {
  readonly #inner: Env;
  readonly #tickMs: number;
  #next = 0;

  constructor(inner: Env, options: { speed: number }) {
    if (!(options.speed > 0)) throw new Error(`pacing speed must be > 0, got ${options.speed}`);
    this.#inner = inner;
    this.#tickMs = 1000 / (inner.robot.controlHz * options.speed);
  }

  get robot() {
    return this.#inner.robot;
  }
  get source() {
    return this.#inner.source;
  }
  get horizon() {
    return this.#inner.horizon;
  }

  async reset(options: ResetOptions): Promise<Observation> {
    const o = await this.#inner.reset(options);
    this.#next = performance.now() + this.#tickMs;
    return o;
  }

  async step(action: Action): Promise<StepResult> {
    const r = await this.#inner.step(action);
    const wait = this.#next - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    this.#next = Math.max(this.#next, performance.now()) + this.#tickMs;
    return r;
  }

  close(): Promise<void> {
    return this.#inner.close();
  }
}
