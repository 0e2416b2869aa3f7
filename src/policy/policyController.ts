/** A trained policy driving one Env, one observation at a time (evaluation, anchor episodes). */
import * as tf from '@tensorflow/tfjs';
import type { Action, Observation, TaskSpec } from '../core/types.ts';
import type { Controller } from '../core/controller.ts';
import { policyCamera } from './policyConfig.ts';
import { disposeInput, observationInput } from './policyInputs.ts';
import type { VlaPolicy } from './vlaPolicy.ts';

export interface PolicyControllerOptions {
  /** Act with the mean action (evaluation) rather than sampling. */
  deterministic: boolean;
  /** Replace every instruction by this text (a language-grounding ablation). */
  instructionOverride?: (task: TaskSpec) => string;
  /** The standard-normal exploration noise of step t (one value per action output), instead of
   * drawing it: a rollout's own seeded sequence, which imagination can replay (src/policy/rolloutNoise.ts). */
  noise?: (t: number) => ArrayLike<number>;
  /** A fresh noise sequence for each episode, from its scene seed (instead of `noise`): evaluation episodes
   * whose imagined twins, keyed by the same seed, explore alike (src/rl/estimates/evaluationImagination.ts). */
  episodeNoise?: (seed: number) => (t: number) => ArrayLike<number>;
  name?: string;
}

export class PolicyController implements Controller {
  readonly name: string;
  readonly policy: VlaPolicy;
  #options: PolicyControllerOptions;
  #seed = 0;
  #t = 0;
  #task: TaskSpec | undefined;
  #noise: ((t: number) => ArrayLike<number>) | undefined;
  /** Actions of the current chunk still to execute (actionChunk > 1). */
  #queue: Float32Array[] = [];

  constructor(policy: VlaPolicy, options: PolicyControllerOptions) {
    this.policy = policy;
    this.#options = options;
    this.#noise = options.noise;
    this.name = options.name ?? `vla:${policy.config.size}`;
  }

  reset(task: TaskSpec, seed: number): void {
    this.#task = task;
    this.#seed = seed;
    this.#t = 0;
    this.#queue = [];
    this.#noise = this.#options.episodeNoise?.(seed) ?? this.#options.noise;
  }

  act(observation: Observation): Action {
    const queued = this.#queue.shift();
    if (queued) return queued;
    const instruction =
      this.#options.instructionOverride && this.#task
        ? this.#options.instructionOverride(this.#task)
        : observation.instruction;
    const input = observationInput(
      this.policy.tokenizer,
      policyCamera(this.policy.config, Object.keys(observation.images)[0]),
      this.policy.config.encoder.imageSize,
      [{ ...observation, instruction }],
    );
    try {
      return tf.tidy(() => {
        const given = this.#noise?.(this.#t);
        const width = this.policy.outputDim;
        if (given && given.length !== width)
          throw new Error(`noise gives ${given.length} values per step; the policy outputs ${width}`);
        const noise = given ? tf.tensor2d(Array.from(given), [1, width]) : undefined;
        const out = this.policy.act(input, {
          deterministic: this.#options.deterministic,
          seed: this.#seed * 1000 + this.#t++,
          ...(noise ? { noise } : {}),
        });
        const all = out.action.dataSync();
        const A = this.policy.actionDim;
        for (let c = 1; c < all.length / A; c++) this.#queue.push(Float32Array.from(all.subarray(c * A, (c + 1) * A)));
        return Float32Array.from(all.subarray(0, A));
      });
    } finally {
      disposeInput(input);
    }
  }
}
