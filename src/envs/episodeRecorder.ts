/**
 * Accumulates one episode's observations and actions and packs them into the columnar
 * `Episode` the store writes.
 */
import { randomUUID } from 'node:crypto';
import { concatFloat32 as concat } from '../core/arrays.ts';
import type { Action, Episode, EpisodeSource, EpisodeStatus, Observation, TaskSpec } from '../core/types.ts';

export interface EpisodeMeta {
  robot: string;
  task: TaskSpec;
  seed: number;
  source: EpisodeSource;
  policy: string;
  controlHz: number;
}

export class EpisodeRecorder {
  readonly meta: EpisodeMeta;
  /** Fixed when the episode begins, so a live view of it and its stored copy are one episode. */
  readonly id = randomUUID();
  #observations: Observation[] = [];
  #actions: Action[] = [];
  #progress: number[] = [];
  #successes: number[] = [];

  constructor(meta: EpisodeMeta, first: Observation, firstStatus: { progress: number; success: boolean }) {
    this.meta = meta;
    this.#push(first, firstStatus.progress, firstStatus.success);
  }

  get steps(): number {
    return this.#actions.length;
  }

  /** Whether the task succeeded at any step so far. */
  get succeeded(): boolean {
    return this.#successes.includes(1);
  }

  /** Record the action taken and what followed it. */
  record(action: Action, next: Observation, progress: number, success: boolean): void {
    this.#actions.push(Float32Array.from(action));
    this.#push(next, progress, success);
  }

  /**
   * Pack into an Episode (under this recorder's id, however often it is packed); an aborted episode is
   * kept (marked) for inspection, never for training.
   */
  finish(status: EpisodeStatus): Episode {
    const obs = this.#observations;
    const first = obs[0]!;
    const qposDim = first.qpos.length;
    const stateDim = first.state?.length ?? 0;
    const actionDim = this.#actions[0]?.length ?? qposDim;
    const cameras: Episode['cameras'] = {};
    for (const [name, img] of Object.entries(first.images)) {
      const frameBytes = img.width * img.height * 3;
      const frames = new Uint8Array(frameBytes * obs.length);
      obs.forEach((o, t) => {
        const frame = o.images[name];
        if (!frame || frame.data.length !== frameBytes)
          throw new Error(`camera '${name}' frame ${t} is missing or has another size`);
        frames.set(frame.data, t * frameBytes);
      });
      cameras[name] = { width: img.width, height: img.height, frames };
    }
    return {
      id: this.id,
      robot: this.meta.robot,
      task: this.meta.task,
      seed: this.meta.seed,
      source: this.meta.source,
      policy: this.meta.policy,
      status,
      success: this.#successes.some((s) => s === 1),
      controlHz: this.meta.controlHz,
      steps: this.#actions.length,
      createdAt: new Date().toISOString(),
      qposDim,
      stateDim,
      actionDim,
      qpos: concat(obs.map((o) => o.qpos)),
      qvel: concat(obs.map((o) => o.qvel)),
      state: stateDim > 0 ? concat(obs.map((o) => o.state!)) : new Float32Array(0),
      actions: concat(this.#actions),
      progress: Float32Array.from(this.#progress),
      successes: Uint8Array.from(this.#successes),
      cameras,
    };
  }

  #push(o: Observation, progress: number, success: boolean): void {
    this.#observations.push(o);
    this.#progress.push(progress);
    this.#successes.push(success ? 1 : 0);
  }
}
