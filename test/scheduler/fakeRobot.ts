/**
 * A stand-in robot for the scheduler's tests: an Env whose episodes take a set wall time per
 * step and whose outcome follows the scene seed, and which can drop mid-episode like a robot
 * whose connection fails (EpisodeAbortedError).
 */
import type { RobotDescription } from '../../src/core/robotDescription.ts';
import type { Action, Episode, Observation, StepResult } from '../../src/core/types.ts';
import { EpisodeAbortedError, type Env, type ResetOptions } from '../../src/envs/env.ts';
import { runEpisode } from '../../src/envs/rollout.ts';
import type { EpisodeRequest } from '../../src/scheduler/episodeRequest.ts';

export const FAKE_ROBOT = { name: 'test-arm', controlHz: 10, cameras: [] } as unknown as RobotDescription;

export interface FakeEnvOptions {
  steps?: number;
  stepMs?: number;
  /** Throw EpisodeAbortedError at this step of every episode (a robot that keeps dropping). */
  dropAtStep?: number;
}

export class FakeEnv implements Env {
  readonly robot = FAKE_ROBOT;
  readonly source = 'sim' as const;
  readonly horizon: number;
  #t = 0;
  #seed = 0;
  episodes = 0;

  constructor(private readonly options: FakeEnvOptions = {}) {
    this.horizon = options.steps ?? 5;
  }

  #obs(): Observation {
    return {
      images: {},
      qpos: Float32Array.of(this.#t / 10, 0),
      qvel: Float32Array.of(0, 0),
      instruction: 'reach the red block',
    };
  }

  async reset({ seed }: ResetOptions): Promise<Observation> {
    this.#t = 0;
    this.#seed = seed;
    this.episodes++;
    return this.#obs();
  }

  async step(_action: Action): Promise<StepResult> {
    if (this.options.stepMs) await new Promise((r) => setTimeout(r, this.options.stepMs));
    this.#t++;
    if (this.options.dropAtStep !== undefined && this.#t >= this.options.dropAtStep)
      throw new EpisodeAbortedError('rosbridge connection dropped mid-episode', 'connection-lost');
    const done = this.#t >= this.horizon;
    const success = done && this.#seed % 2 === 0;
    return { observation: this.#obs(), reward: this.#t / this.horizon, success, done };
  }

  async close(): Promise<void> {}
}

/** Runs a request with a zero-action controller. */
export function runFakeEpisode(env: Env, request: EpisodeRequest): Promise<Episode> {
  return runEpisode(
    env,
    { name: 'zero', reset() {}, act: () => new Float32Array(2) },
    { task: request.task, seed: request.seed },
  );
}
