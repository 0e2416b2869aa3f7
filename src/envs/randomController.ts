/** Uniformly random normalised actions: the floor every learned policy must beat. */
import { Rng } from '../core/rng.ts';
import type { Action, Observation, TaskSpec } from '../core/types.ts';
import type { Controller } from '../core/controller.ts';

export class RandomController implements Controller {
  readonly name = 'random';
  readonly actionDim: number;
  #rng = new Rng(0);

  constructor(actionDim: number) {
    this.actionDim = actionDim;
  }

  reset(_task: TaskSpec, seed: number): void {
    this.#rng = new Rng(seed ^ 0x5eed);
  }

  act(_observation: Observation): Action {
    return Float32Array.from({ length: this.actionDim }, () => this.#rng.uniform(-1, 1));
  }
}
