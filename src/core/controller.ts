/**
 * Something that chooses actions one episode at a time: a scripted expert, a random policy, or
 * a trained policy wrapped for a single env. In core so that sim's experts need not import envs.
 */
import type { Action, Observation, TaskSpec } from './types.ts';

export interface Controller {
  /** Stored with each episode as its `policy`. */
  readonly name: string;
  reset(task: TaskSpec, seed: number): void;
  act(observation: Observation): Action;
  close?(): void;
}
