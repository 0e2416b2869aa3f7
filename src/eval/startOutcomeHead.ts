/**
 * A success head on the start: how often the policy succeeded from starts that look like this one,
 * by kernel (Nadaraya–Watson) regression over labelled real episodes of the same policy. A start is
 * described by what the policy perceives of its first observation (the world model's start state:
 * proprio and the perception latent, src/worldmodel/perceptionWorldModel.ts), standardised per
 * dimension; dimensions that never vary over the labelled starts are left out.
 *
 * Why: PPI evaluation narrows the interval by the squared correlation of its prediction with the real
 * outcome, and the world model's imagined score tracks which starts a policy solves only loosely
 * (corr ≈ 0.45 on reach after a refit on the policy's episodes). Where the outcome is mostly decided
 * by the start (a deterministic policy: mean actions), the outcomes of nearby starts say more.
 *
 * The bandwidth is chosen by leave-one-out squared error on the labelled episodes alone, so nothing
 * about the evaluation's own episodes tunes the head. A pseudo-episode at the labelled mean (weight
 * `prior`) keeps a start far from every labelled one at the mean instead of at a lone neighbour's.
 */

export interface StartOutcomeHeadState {
  /** Standardised labelled features, `kept.length` per episode. */
  features: number[];
  outcomes: number[];
  /** Indices of the input dimensions used, with their mean and standard deviation. */
  kept: number[];
  mean: number[];
  scale: number[];
  bandwidth: number;
  prior: number;
}

/** Bandwidths tried (in standard deviations of each kept dimension). */
export const HEAD_BANDWIDTHS = [0.1, 0.15, 0.2, 0.3, 0.5, 0.7, 1, 1.5];

export class StartOutcomeHead {
  readonly state: StartOutcomeHeadState;

  private constructor(state: StartOutcomeHeadState) {
    this.state = state;
  }

  /**
   * Fit on `outcomes.length` labelled starts (`features`: that many rows of `width`), outcomes in [0, 1].
   * Needs at least 10 episodes and some spread in the outcomes, which is what a head learns from.
   */
  static fit(
    features: ArrayLike<number>,
    width: number,
    outcomes: ArrayLike<number>,
    options: { bandwidths?: number[]; prior?: number } = {},
  ): StartOutcomeHead {
    const n = outcomes.length;
    if (!(Number.isInteger(width) && width > 0) || features.length !== n * width)
      throw new Error(`start head: ${features.length} feature values for ${n} starts of width ${width}`);
    if (n < 10) throw new Error(`start head: ${n} labelled episodes; it needs at least 10`);
    for (let i = 0; i < n; i++)
      if (!(outcomes[i]! >= 0 && outcomes[i]! <= 1))
        throw new Error(`start head: outcome ${outcomes[i]} is not in [0, 1]`);
    for (let i = 0; i < features.length; i++)
      if (!Number.isFinite(features[i]!)) throw new Error(`start head: non-finite feature ${features[i]}`);
    const kept: number[] = [];
    const mean: number[] = [];
    const scale: number[] = [];
    for (let j = 0; j < width; j++) {
      let m = 0;
      for (let i = 0; i < n; i++) m += features[i * width + j]! / n;
      let v = 0;
      for (let i = 0; i < n; i++) v += (features[i * width + j]! - m) ** 2 / n;
      if (v > 1e-12) {
        kept.push(j);
        mean.push(m);
        scale.push(Math.sqrt(v));
      }
    }
    if (kept.length === 0) throw new Error('start head: the labelled starts do not differ in any feature');
    const ys = Array.from(outcomes);
    const yMean = ys.reduce((s, y) => s + y, 0) / n;
    if (ys.every((y) => y === ys[0]))
      throw new Error(`start head: every labelled outcome is ${ys[0]}: nothing to learn`);
    const standardised = standardise(features, width, kept, mean, scale);
    const prior = options.prior ?? 1;
    let best = { bandwidth: Number.NaN, error: Number.POSITIVE_INFINITY };
    for (const bandwidth of options.bandwidths ?? HEAD_BANDWIDTHS) {
      const loo = kernelMeans(standardised, ys, standardised, kept.length, bandwidth, prior, yMean, true);
      let error = 0;
      for (let i = 0; i < n; i++) error += (loo[i]! - ys[i]!) ** 2;
      if (error < best.error) best = { bandwidth, error };
    }
    return new StartOutcomeHead({
      features: Array.from(standardised),
      outcomes: ys,
      kept,
      mean,
      scale,
      bandwidth: best.bandwidth,
      prior,
    });
  }

  /** The predicted success of each start (rows of the width the head was fitted on), in [0, 1]. */
  predict(features: ArrayLike<number>, width: number): Float32Array {
    const s = this.state;
    if (features.length % width !== 0)
      throw new Error(`start head: ${features.length} values are not rows of ${width}`);
    if (s.kept.some((j) => j >= width))
      throw new Error(`start head: starts of width ${width}, but it was fitted on wider ones`);
    const query = standardise(features, width, s.kept, s.mean, s.scale);
    return kernelMeans(s.features, s.outcomes, query, s.kept.length, s.bandwidth, s.prior, this.#yMean(), false);
  }

  /** Each labelled start's prediction from the others: what the head does for a start it has not seen. */
  leaveOneOut(): Float32Array {
    const s = this.state;
    return kernelMeans(s.features, s.outcomes, s.features, s.kept.length, s.bandwidth, s.prior, this.#yMean(), true);
  }

  #yMean(): number {
    return this.state.outcomes.reduce((a, y) => a + y, 0) / this.state.outcomes.length;
  }
}

function standardise(
  features: ArrayLike<number>,
  width: number,
  kept: number[],
  mean: number[],
  scale: number[],
): Float64Array {
  const n = features.length / width;
  const out = new Float64Array(n * kept.length);
  for (let i = 0; i < n; i++)
    for (let k = 0; k < kept.length; k++)
      out[i * kept.length + k] = (features[i * width + kept[k]!]! - mean[k]!) / scale[k]!;
  return out;
}

/** Gaussian-kernel weighted mean outcome of the labelled rows around each query row (optionally skipping itself). */
function kernelMeans(
  labelled: ArrayLike<number>,
  outcomes: number[],
  query: ArrayLike<number>,
  d: number,
  bandwidth: number,
  prior: number,
  yMean: number,
  leaveOneOut: boolean,
): Float32Array {
  const n = outcomes.length;
  const q = query.length / d;
  const out = new Float32Array(q);
  const inv = 1 / (2 * bandwidth * bandwidth);
  for (let a = 0; a < q; a++) {
    let w = prior;
    let wy = prior * yMean;
    for (let i = 0; i < n; i++) {
      if (leaveOneOut && i === a) continue;
      let d2 = 0;
      for (let k = 0; k < d; k++) d2 += (query[a * d + k]! - labelled[i * d + k]!) ** 2;
      const k = Math.exp(-d2 * inv);
      w += k;
      wy += k * outcomes[i]!;
    }
    out[a] = wy / w;
  }
  return out;
}
