/**
 * Explicit exploration noise: one standard-normal sequence per rollout, drawn from its own seed,
 * so the same rollout can be imagined in the world model and executed on the environment with
 * exactly the same noise (the imagination check pairs the two).
 */
import { Rng } from '../core/rng.ts';

export class RolloutNoise {
  readonly actionDim: number;
  #rngs: Rng[];
  /** Per rollout, the values drawn so far (step-major, actionDim per step). */
  #drawn: number[][];

  constructor(rollouts: number, actionDim: number, seed: number) {
    this.actionDim = actionDim;
    this.#rngs = Array.from({ length: rollouts }, (_, b) => new Rng(seed * 100_003 + b * 7_919));
    this.#drawn = Array.from({ length: rollouts }, () => []);
  }

  get rollouts(): number {
    return this.#rngs.length;
  }

  /** Rollout b's noise at step t (actionDim values); the same whenever asked. */
  at(b: number, t: number): Float32Array {
    const A = this.actionDim;
    const drawn = this.#drawn[b];
    if (!drawn) throw new Error(`rollout ${b} out of range (${this.rollouts} rollouts)`);
    while (drawn.length < (t + 1) * A) drawn.push(this.#rngs[b]!.normal());
    return Float32Array.from(drawn.slice(t * A, (t + 1) * A));
  }

  /** Every rollout's noise at step t, B × actionDim. */
  step(t: number): Float32Array {
    const out = new Float32Array(this.rollouts * this.actionDim);
    for (let b = 0; b < this.rollouts; b++) out.set(this.at(b, t), b * this.actionDim);
    return out;
  }
}
