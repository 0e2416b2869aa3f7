/**
 * Exploration noise, made explicit: one standard-normal sequence per rollout, drawn from its own
 * seed, so the same rollout can be imagined in the world model and executed on the environment
 * (in-process, robot pool or remote worker) with exactly the same noise. A batch of rollouts is
 * described by a `NoiseSpec`; rollout b of it draws from rolloutNoiseSeed(seed, b).
 *
 * Each sequence is AR(1) with unit marginal variance: n₀ = z₀, nₜ = ρ·nₜ₋₁ + √(1 − ρ²)·zₜ.
 * ρ = 0 is white noise (a fresh draw every control step); ρ → 1 holds one offset for the whole
 * episode. At 10 Hz, white joint-delta noise averages out within a few steps, so its rollouts
 * barely differ in outcome; correlated noise explores as a persistent drift (as colored-noise
 * exploration does for continuous control).
 */
import { Rng } from '../core/rng.ts';

/** How a batch of rollouts explores: its seed, and the step-to-step correlation ρ ∈ [0, 1] of each rollout's noise. */
export interface NoiseSpec {
  seed: number;
  correlation: number;
}

/** The noise seed of rollout `index` (group-major: g·M + m) of a batch drawn under `noiseSeed`. */
export function rolloutNoiseSeed(noiseSeed: number, index: number): number {
  return noiseSeed * 100_003 + index * 7_919;
}

export class RolloutNoise {
  readonly actionDim: number;
  readonly correlation: number;
  #rngs: Rng[];
  /** Per rollout, the values drawn so far (step-major, actionDim per step). */
  #drawn: number[][];

  /** `rollouts` sequences of the batch `spec`: rollout b is seeded by rolloutNoiseSeed(spec.seed, b). */
  constructor(rollouts: number, actionDim: number, spec: NoiseSpec) {
    if (!(spec.correlation >= 0 && spec.correlation <= 1))
      throw new Error(`noise correlation must lie in [0, 1], got ${spec.correlation}`);
    this.actionDim = actionDim;
    this.correlation = spec.correlation;
    this.#rngs = Array.from({ length: rollouts }, (_, b) => new Rng(rolloutNoiseSeed(spec.seed, b)));
    this.#drawn = Array.from({ length: rollouts }, () => []);
  }

  /**
   * One rollout's sequence from its own seed: what rollout b of
   * a batch under `seed` draws, given rolloutNoiseSeed(seed, b).
   */
  static single(rolloutSeed: number, actionDim: number, correlation: number): (t: number) => Float32Array {
    const noise = RolloutNoise.ofSeeds([rolloutSeed], actionDim, correlation);
    return (t) => noise.at(0, t);
  }

  /**
   * A batch whose rollout b draws the sequence of `rolloutSeeds[b]` (as `single` does): rollouts
   * keyed by something other than their place in one batch, e.g. an evaluation episode's scene seed.
   */
  static ofSeeds(rolloutSeeds: readonly number[], actionDim: number, correlation: number): RolloutNoise {
    const noise = new RolloutNoise(0, actionDim, { seed: 0, correlation });
    noise.#rngs = rolloutSeeds.map((s) => new Rng(s));
    noise.#drawn = rolloutSeeds.map(() => []);
    return noise;
  }

  get rollouts(): number {
    return this.#rngs.length;
  }

  /** Rollout b's noise at step t (actionDim values); the same whenever asked. */
  at(b: number, t: number): Float32Array {
    const A = this.actionDim;
    const drawn = this.#drawn[b];
    if (!drawn) throw new Error(`rollout ${b} out of range (${this.rollouts} rollouts)`);
    const rho = this.correlation;
    const fresh = Math.sqrt(1 - rho * rho);
    while (drawn.length < (t + 1) * A) {
      const i = drawn.length;
      const z = this.#rngs[b]!.normal();
      drawn.push(i < A ? z : rho * drawn[i - A]! + fresh * z);
    }
    return Float32Array.from(drawn.slice(t * A, (t + 1) * A));
  }

  /** Every rollout's noise at step t, B × actionDim. */
  step(t: number): Float32Array {
    const out = new Float32Array(this.rollouts * this.actionDim);
    for (let b = 0; b < this.rollouts; b++) out.set(this.at(b, t), b * this.actionDim);
    return out;
  }
}
