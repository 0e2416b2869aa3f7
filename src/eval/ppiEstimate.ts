/**
 * Prediction-powered inference (Angelopoulos et al. 2023) of the policy's true success rate:
 * the mean calibrated prediction over all imagined rollouts, corrected by the mean prediction
 * error on the randomly chosen anchors, θ̂ = mean f(imagined) − mean(f(anchor) − y), with the
 * normal-approximation interval ± z·sqrt(σ²_f/N + σ²_{f−y}/n), clipped to [0, 1]; σ²_{f−y} is
 * guarded against small anchor sets (see below).
 */
import { clamp01 } from '../core/clamp01.ts';

export interface PpiEstimate {
  estimate: number;
  lower: number;
  upper: number;
  /** The uncorrected mean prediction (biased when the world model is). */
  naive: number;
  imagined: number;
  anchors: number;
}

export function ppiEstimate(
  imagined: ArrayLike<number>,
  anchorPredicted: ArrayLike<number>,
  anchorOutcomes: ArrayLike<number>,
  z = 1.96,
): PpiEstimate {
  if (anchorPredicted.length !== anchorOutcomes.length)
    throw new Error(`PPI: ${anchorPredicted.length} anchor predictions but ${anchorOutcomes.length} outcomes`);
  if (imagined.length < 2 || anchorOutcomes.length < 2)
    throw new Error(
      `PPI needs at least 2 imagined and 2 anchor rollouts (got ${imagined.length} and ${anchorOutcomes.length})`,
    );
  return ppiFromUnits(imagined, anchorPredicted, anchorOutcomes, z);
}

/**
 * PPI over groups: rollouts of one group share a start and an instruction, so their outcomes and
 * the world model's errors on them are correlated, and counting them as independent samples makes
 * the interval too narrow (one hard anchor group then drags the estimate with false confidence).
 * Each group counts as one sample, its mean; the estimate is the same as ppiEstimate's when the
 * groups are equal in size, the interval honest about how few starts were seen. One anchor group
 * is enough to compute it (the small-sample guard gives the rectifier a variance).
 */
export function groupedPpiEstimate(
  imagined: ArrayLike<number>,
  anchorPredicted: ArrayLike<number>,
  anchorOutcomes: ArrayLike<number>,
  groupSize: number,
  z = 1.96,
): PpiEstimate {
  if (anchorPredicted.length !== anchorOutcomes.length)
    throw new Error(`PPI: ${anchorPredicted.length} anchor predictions but ${anchorOutcomes.length} outcomes`);
  const imaginedGroups = groupMeans(imagined, groupSize);
  const anchorGroups = groupMeans(anchorOutcomes, groupSize);
  if (imaginedGroups.length < 2 || anchorGroups.length < 1)
    throw new Error(
      `grouped PPI needs at least 2 imagined groups and 1 anchor ` +
        `group (got ${imaginedGroups.length} and ${anchorGroups.length})`,
    );
  return ppiFromUnits(imaginedGroups, groupMeans(anchorPredicted, groupSize), anchorGroups, z);
}

/**
 * Grouped PPI whose anchor groups weigh unequally: the rectifier is their weighted mean, and its
 * variance counts the effective number of groups, (Σw)²/Σw². The training window weighs its groups
 * by recency: the world model and the policy both change from step to step, so an older group's
 * prediction error says less about the current one's. Equal weights give groupedPpiEstimate's over
 * the same group means.
 */
export function weightedGroupsPpiEstimate(
  imaginedGroups: ArrayLike<number>,
  anchorPredicted: ArrayLike<number>,
  anchorOutcomes: ArrayLike<number>,
  anchorWeights: ArrayLike<number>,
  z = 1.96,
): PpiEstimate {
  const n = anchorOutcomes.length;
  if (anchorPredicted.length !== n || anchorWeights.length !== n)
    throw new Error(
      `PPI: ${anchorPredicted.length} anchor predictions, ${n} outcomes and ${anchorWeights.length} weights`,
    );
  if (imaginedGroups.length < 2 || n < 1)
    throw new Error(
      `grouped PPI needs at least 2 imagined groups and 1 anchor group (got ${imaginedGroups.length} and ${n})`,
    );
  for (let i = 0; i < n; i++)
    if (!(anchorWeights[i]! > 0 && Number.isFinite(anchorWeights[i]!)))
      throw new Error(`PPI: anchor group ${i} has weight ${anchorWeights[i]}; weights must be positive`);
  return ppiFromUnits(imaginedGroups, anchorPredicted, anchorOutcomes, z, 1, anchorWeights);
}

/**
 * Power-tuned PPI (PPI++, Angelopoulos, Duchi & Zrnic 2023) for a mean: with paired predictions f
 * and outcomes y on n real episodes and predictions on N imagined ones,
 *   θ̂_λ = λ·mean f(imagined) − mean(λ·f(paired) − y),
 * unbiased for every λ. Its variance λ²·σ²_f/N + Var(λf − y)/n is smallest at
 *   λ* = Cov(f, y) / ((1 + n/N)·Var(f)),
 * estimated here from the data (σ²_f over every prediction) and clipped to [0, 1]: λ = 1 is plain
 * PPI, λ = 0 the real-only mean. A predictor that does not track the outcome then gets λ near 0
 * and cannot widen the interval much beyond the real-only one, as plain PPI's does (Var(f − y) >
 * Var(y) when f and y are unrelated); one that tracks it well keeps most of PPI's gain.
 */
export interface TunedPpiEstimate extends PpiEstimate {
  lambda: number;
}

export function tunedPpiEstimate(
  imagined: ArrayLike<number>,
  pairedPredicted: ArrayLike<number>,
  pairedOutcomes: ArrayLike<number>,
  z = 1.96,
): TunedPpiEstimate {
  if (pairedPredicted.length !== pairedOutcomes.length)
    throw new Error(`PPI++: ${pairedPredicted.length} paired predictions but ${pairedOutcomes.length} outcomes`);
  const N = imagined.length;
  const n = pairedOutcomes.length;
  if (N < 2 || n < 2) throw new Error(`PPI++ needs at least 2 imagined and 2 paired real episodes (got ${N} and ${n})`);
  const all = [...Array.from(imagined), ...Array.from(pairedPredicted)];
  const varF = variance(all);
  const lambda = varF > 0 ? clamp01(covariance(pairedPredicted, pairedOutcomes) / ((1 + n / N) * varF)) : 0;
  return { ...ppiFromUnits(imagined, pairedPredicted, pairedOutcomes, z, lambda), lambda };
}

/** The estimate and interval from independent units (rollouts, or group means), predictions weighed by λ. */
function ppiFromUnits(
  imagined: ArrayLike<number>,
  anchorPredicted: ArrayLike<number>,
  anchorOutcomes: ArrayLike<number>,
  z: number,
  lambda = 1,
  weights?: ArrayLike<number>,
): PpiEstimate {
  const N = imagined.length;
  const n = anchorOutcomes.length;
  const w = weights ?? new Array<number>(n).fill(1);
  const rectifier = Array.from({ length: n }, (_, i) => lambda * anchorPredicted[i]! - anchorOutcomes[i]!);
  const naive = mean(imagined);
  const estimate = lambda * naive - weightedMean(rectifier, w);
  let sw = 0;
  let sw2 = 0;
  for (let i = 0; i < n; i++) {
    sw += w[i]!;
    sw2 += w[i]! * w[i]!;
  }
  const effective = (sw * sw) / sw2;
  // Small-sample guard (in the spirit of Agresti–Coull's "plus four"): the rectifier's variance
  // also counts four pseudo-anchors at the mean prediction with outcomes 1, 1, 0, 0. With a few
  // anchors that all failed, the plain sample variance is 0 and the interval collapses around a
  // biased estimate; the guard's effect fades as anchors accumulate.
  const fBar = lambda * weightedMean(anchorPredicted, w);
  const guarded = [...rectifier, fBar - 1, fBar - 1, fBar, fBar];
  const half = z * Math.sqrt((lambda * lambda * variance(imagined)) / N + variance(guarded) / effective);
  // A success rate lies in [0, 1]: clipping the interval there loses no coverage.
  return {
    estimate: clamp01(estimate),
    lower: clamp01(estimate - half),
    upper: clamp01(estimate + half),
    naive,
    imagined: N,
    anchors: n,
  };
}

/** Mean of each consecutive group of `groupSize` values (group-major rollouts → one value per group). */
export function groupMeans(values: ArrayLike<number>, groupSize: number): number[] {
  if (!(Number.isInteger(groupSize) && groupSize >= 1) || values.length % groupSize !== 0)
    throw new Error(`PPI: ${values.length} values do not split into groups of ${groupSize}`);
  const sums = new Array<number>(values.length / groupSize).fill(0);
  for (let i = 0; i < values.length; i++) sums[Math.floor(i / groupSize)]! += values[i]!;
  return sums.map((s) => s / groupSize);
}

function mean(a: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]!;
  return s / a.length;
}

function weightedMean(a: ArrayLike<number>, w: ArrayLike<number>): number {
  let s = 0;
  let sw = 0;
  for (let i = 0; i < a.length; i++) {
    s += w[i]! * a[i]!;
    sw += w[i]!;
  }
  return s / sw;
}

/** Unbiased sample covariance of paired values. */
function covariance(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const ma = mean(a);
  const mb = mean(b);
  let s = 0;
  for (let i = 0; i < a.length; i++) s += (a[i]! - ma) * (b[i]! - mb);
  return s / (a.length - 1);
}

/** Unbiased sample variance. */
function variance(a: ArrayLike<number>): number {
  const m = mean(a);
  let s = 0;
  for (let i = 0; i < a.length; i++) s += (a[i]! - m) ** 2;
  return s / (a.length - 1);
}
