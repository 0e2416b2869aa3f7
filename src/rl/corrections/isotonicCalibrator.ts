/**
 * Online debiasing (docs/design.md, online debiasing): a monotone map from world-model scores r̂ to true
 * outcomes y, fitted on anchor pairs by pool-adjacent-violators over equal-width bins of
 * [0, 1]. It must be non-affine: GRPO standardises scores within a group, so an affine
 * correction would cancel out. Identity until `minPairs` pairs exist; refitted every
 * `refitEvery` new pairs on the newest `window` pairs (paper: 200 / 64 / 5000).
 * Between bins the map interpolates linearly through each bin's mean score, so scores inside
 * one bin keep their order (a step function would flatten a group's advantages).
 * `orderSlope` adds a small slope to the fitted map so that it is strictly increasing: a
 * stretch that pool-adjacent-violators flattened (and the flat ends beyond the outer knots)
 * then keeps the world model's order of a group's rollouts instead of tying them. Pooled over
 * groups the map is often flat where, within a group, the order still says which rollout did
 * better, and a flat map ties those pairs, which a group's advantages need told apart. With the slope the order
 * is the raw one, and calibration changes only the spacing of a group's scores (levels move by at most slope/2).
 */
import { clamp01 } from '../../core/clamp01.ts';

export interface IsotonicOptions {
  bins: number;
  minPairs: number;
  refitEvery: number;
  window: number;
  /** Slope added to the fitted map so it is strictly increasing (0 or absent: the paper's map). */
  orderSlope?: number;
}

export const PAPER_ISOTONIC: IsotonicOptions = { bins: 10, minPairs: 200, refitEvery: 64, window: 5000 };

export interface IsotonicState {
  options: IsotonicOptions;
  scores: number[];
  outcomes: number[];
  sinceFit: number;
  /** Fitted knots (x ascending, y non-decreasing); empty while the map is the identity. */
  knotX: number[];
  knotY: number[];
}

export class IsotonicCalibrator {
  readonly options: IsotonicOptions;
  #scores: number[] = [];
  #outcomes: number[] = [];
  #sinceFit = 0;
  #knotX: number[] = [];
  #knotY: number[] = [];

  constructor(options: IsotonicOptions = PAPER_ISOTONIC) {
    const slope = options.orderSlope ?? 0;
    if (
      !(
        options.bins >= 1 &&
        options.minPairs >= 1 &&
        options.refitEvery >= 1 &&
        options.window >= options.minPairs &&
        slope >= 0 &&
        Number.isFinite(slope)
      )
    ) {
      throw new Error(
        `isotonic calibration: need bins, minPairs, refitEvery >= 1, window >= ` +
          `minPairs and a finite orderSlope >= 0, got ${JSON.stringify(options)}`,
      );
    }
    this.options = options;
  }

  get pairs(): number {
    return this.#scores.length;
  }

  /** True once a fitted map replaces the identity. */
  get fitted(): boolean {
    return this.#knotX.length > 0;
  }

  /** Add anchor pairs (world-model score, true outcome); refits when due. Returns whether it refitted. */
  add(scores: ArrayLike<number>, outcomes: ArrayLike<number>): boolean {
    if (scores.length !== outcomes.length)
      throw new Error(`isotonic calibration: ${scores.length} scores but ${outcomes.length} outcomes`);
    for (let i = 0; i < scores.length; i++) {
      const s = scores[i]!;
      const y = outcomes[i]!;
      if (!Number.isFinite(s) || !Number.isFinite(y))
        throw new Error(`isotonic calibration: non-finite pair (${s}, ${y})`);
      this.#scores.push(clamp01(s));
      this.#outcomes.push(y);
    }
    const excess = this.#scores.length - this.options.window;
    if (excess > 0) {
      this.#scores.splice(0, excess);
      this.#outcomes.splice(0, excess);
    }
    this.#sinceFit += scores.length;
    const due =
      this.#scores.length >= this.options.minPairs && (!this.fitted || this.#sinceFit >= this.options.refitEvery);
    if (due) this.refit();
    return due;
  }

  /**
   * Fit now on the pairs held. Identity below minPairs, and while the scores populate fewer than
   * two bins: one knot is a constant map, which would tie every score (the paper's reference
   * keeps the identity then too).
   */
  refit(): void {
    this.#sinceFit = 0;
    const { x, y } =
      this.#scores.length >= this.options.minPairs
        ? fitBinnedIsotonic(this.#scores, this.#outcomes, this.options.bins)
        : { x: [], y: [] };
    const populated = x.length >= 2;
    this.#knotX = populated ? x : [];
    this.#knotY = populated ? y : [];
  }

  /** Calibrated score f̂(r̂). */
  map(score: number): number {
    if (this.#knotX.length === 0) return score;
    return this.#fitted(score) + (this.options.orderSlope ?? 0) * (score - 0.5);
  }

  /** The fitted knots, interpolated linearly, flat beyond the outer ones. */
  #fitted(score: number): number {
    const x = this.#knotX;
    const y = this.#knotY;
    if (score <= x[0]!) return y[0]!;
    if (score >= x.at(-1)!) return y.at(-1)!;
    let i = 1;
    while (x[i]! < score) i++;
    const t = (score - x[i - 1]!) / (x[i]! - x[i - 1]!);
    return y[i - 1]! + t * (y[i]! - y[i - 1]!);
  }

  mapAll(scores: ArrayLike<number>): Float32Array {
    return Float32Array.from(scores, (s) => this.map(s));
  }

  /** The fitted map (for the metrics log and the viewer). */
  knots(): { x: number[]; y: number[] } {
    return { x: [...this.#knotX], y: [...this.#knotY] };
  }

  toJSON(): IsotonicState {
    return {
      options: this.options,
      scores: [...this.#scores],
      outcomes: [...this.#outcomes],
      sinceFit: this.#sinceFit,
      knotX: [...this.#knotX],
      knotY: [...this.#knotY],
    };
  }

  static fromJSON(state: IsotonicState): IsotonicCalibrator {
    const c = new IsotonicCalibrator(state.options);
    c.#scores = [...state.scores];
    c.#outcomes = [...state.outcomes];
    c.#sinceFit = state.sinceFit;
    c.#knotX = [...state.knotX];
    c.#knotY = [...state.knotY];
    return c;
  }
}

/**
 * Bin the pairs by score into `bins` equal bins of [0, 1], then pool adjacent violators on the
 * bins' mean outcomes weighted by their counts. Knots: each non-empty bin's mean score and its
 * pooled outcome (non-decreasing).
 */
export function fitBinnedIsotonic(
  scores: ArrayLike<number>,
  outcomes: ArrayLike<number>,
  bins: number,
): { x: number[]; y: number[] } {
  const sumS = new Float64Array(bins);
  const sumY = new Float64Array(bins);
  const count = new Float64Array(bins);
  for (let i = 0; i < scores.length; i++) {
    const s = clamp01(scores[i]!);
    const b = Math.min(bins - 1, Math.floor(s * bins));
    sumS[b]! += s;
    sumY[b]! += outcomes[i]!;
    count[b]! += 1;
  }
  const x: number[] = [];
  const means: number[] = [];
  const weights: number[] = [];
  for (let b = 0; b < bins; b++) {
    if (count[b] === 0) continue;
    x.push(sumS[b]! / count[b]!);
    means.push(sumY[b]! / count[b]!);
    weights.push(count[b]!);
  }
  return { x, y: poolAdjacentViolators(means, weights) };
}

/** Weighted isotonic (non-decreasing) regression of `values` by pool-adjacent-violators. */
export function poolAdjacentViolators(values: readonly number[], weights: readonly number[]): number[] {
  const blocks: { value: number; weight: number; size: number }[] = [];
  values.forEach((v, i) => {
    blocks.push({ value: v, weight: weights[i]!, size: 1 });
    while (blocks.length > 1 && blocks.at(-2)!.value > blocks.at(-1)!.value) {
      const b = blocks.pop()!;
      const a = blocks.pop()!;
      const weight = a.weight + b.weight;
      blocks.push({ value: (a.value * a.weight + b.value * b.weight) / weight, weight, size: a.size + b.size });
    }
  });
  return blocks.flatMap((b) => Array<number>(b.size).fill(b.value));
}
