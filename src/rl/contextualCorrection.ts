/**
 * Contextual debiasing: a ridge regression of the world model's error, y − r̂, on what a rollout
 * is — its task context, the mean of the actions it was imagined with, and r̂ itself — fitted on
 * anchor pairs. The corrected score is clamp(r̂ + wᵀφ, 0, 1).
 *
 * A pooled, score-only map (src/rl/isotonicCalibrator.ts) is monotone in r̂, so it keeps the
 * world model's order within a group: when the model is wrong in an action-dependent way (it
 * over-rates the rollouts that move one way), that order is what GRPO learns from, and no such
 * map can undo it. A correction that sees the action can.
 */
import { z } from 'zod';
import { solve } from '../core/linearSolve.ts';

export const contextualOptionsSchema = z
  .object({
    ridge: z.number().min(0).default(1).describe('L2 penalty λ on the weights (not on the intercept)'),
    minPairs: z.number().int().min(1).default(64).describe('identity below this many anchor pairs'),
    window: z.number().int().min(1).default(2000).describe('newest pairs kept'),
  })
  .strict();

export type ContextualOptions = z.infer<typeof contextualOptionsSchema>;

export interface ContextualState {
  options: ContextualOptions;
  width: number;
  features: number[];
  scores: number[];
  outcomes: number[];
  weights: number[];
}

export class ContextualCorrection {
  readonly options: ContextualOptions;
  /** Features per rollout (context, mean action), fixed by the first pairs added. */
  #width = -1;
  #features: number[] = [];
  #scores: number[] = [];
  #outcomes: number[] = [];
  /** [w for each feature, w for r̂, intercept]; empty: the identity. */
  #weights: number[] = [];

  constructor(options: ContextualOptions) {
    if (!(options.ridge >= 0 && options.minPairs >= 1 && options.window >= options.minPairs)) {
      throw new Error(
        `contextual correction: need ridge >= 0, minPairs >= 1, window >= minPairs; got ${JSON.stringify(options)}`,
      );
    }
    this.options = options;
  }

  get pairs(): number {
    return this.#scores.length;
  }

  get fitted(): boolean {
    return this.#weights.length > 0;
  }

  /** The fitted weights: one per feature, then r̂'s, then the intercept (empty: identity). */
  get weights(): number[] {
    return [...this.#weights];
  }

  /** Anchor pairs: `features` holds `scores.length` rows of equal width. Refits once minPairs are held. */
  add(features: ArrayLike<number>, scores: ArrayLike<number>, outcomes: ArrayLike<number>): void {
    const n = scores.length;
    if (outcomes.length !== n) throw new Error(`contextual correction: ${n} scores but ${outcomes.length} outcomes`);
    if (n === 0) return;
    const width = this.#checkWidth(features, n);
    for (let i = 0; i < features.length; i++) {
      if (!Number.isFinite(features[i]!)) throw new Error(`contextual correction: non-finite feature ${features[i]}`);
      this.#features.push(features[i]!);
    }
    for (let i = 0; i < n; i++) {
      if (!Number.isFinite(scores[i]!) || !Number.isFinite(outcomes[i]!)) {
        throw new Error(`contextual correction: non-finite pair (${scores[i]}, ${outcomes[i]})`);
      }
      this.#scores.push(scores[i]!);
      this.#outcomes.push(outcomes[i]!);
    }
    const excess = this.#scores.length - this.options.window;
    if (excess > 0) {
      this.#scores.splice(0, excess);
      this.#outcomes.splice(0, excess);
      this.#features.splice(0, excess * width);
    }
    this.#weights = this.#scores.length >= this.options.minPairs ? this.#fit(width) : [];
  }

  /** Corrected scores of rollouts with these features (identity until fitted). */
  mapAll(features: ArrayLike<number>, scores: ArrayLike<number>): Float32Array {
    const n = scores.length;
    if (!this.fitted) return Float32Array.from(scores);
    const width = this.#checkWidth(features, n);
    const w = this.#weights;
    return Float32Array.from({ length: n }, (_, i) => {
      let residual = w[width]! * scores[i]! + w[width + 1]!;
      for (let j = 0; j < width; j++) residual += w[j]! * features[i * width + j]!;
      return Math.min(1, Math.max(0, scores[i]! + residual));
    });
  }

  toJSON(): ContextualState {
    return {
      options: this.options,
      width: this.#width,
      features: [...this.#features],
      scores: [...this.#scores],
      outcomes: [...this.#outcomes],
      weights: [...this.#weights],
    };
  }

  static fromJSON(state: ContextualState): ContextualCorrection {
    const c = new ContextualCorrection(state.options);
    c.#width = state.width;
    c.#features = [...state.features];
    c.#scores = [...state.scores];
    c.#outcomes = [...state.outcomes];
    c.#weights = [...state.weights];
    return c;
  }

  #checkWidth(features: ArrayLike<number>, n: number): number {
    if (features.length % n !== 0) {
      throw new Error(`contextual correction: ${features.length} feature values for ${n} rollouts`);
    }
    const width = features.length / n;
    if (this.#width === -1) this.#width = width;
    if (width !== this.#width) {
      throw new Error(`contextual correction: rollouts of ${width} features, but it was fitted on ${this.#width}`);
    }
    return width;
  }

  /** Ridge regression of y − r̂ on [φ, r̂, 1] (normal equations; the intercept is not penalised). */
  #fit(width: number): number[] {
    const d = width + 2;
    const n = this.#scores.length;
    const xtx = Array.from({ length: d }, () => new Float64Array(d));
    const xty = new Float64Array(d);
    const row = new Float64Array(d);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < width; j++) row[j] = this.#features[i * width + j]!;
      row[width] = this.#scores[i]!;
      row[width + 1] = 1;
      const target = this.#outcomes[i]! - this.#scores[i]!;
      for (let a = 0; a < d; a++) {
        xty[a]! += row[a]! * target;
        for (let b = 0; b < d; b++) xtx[a]![b]! += row[a]! * row[b]!;
      }
    }
    for (let a = 0; a < d - 1; a++) xtx[a]![a]! += this.options.ridge;
    return solve(xtx, xty);
  }
}
