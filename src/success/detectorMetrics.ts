/**
 * How well success probabilities separate and are calibrated against true outcomes: AUROC, the
 * expected calibration error over equal-width bins, the Brier score, and the confusion at a
 * threshold; and the threshold itself, chosen where the balanced accuracy is highest.
 */

export interface Confusion {
  truePositive: number;
  falsePositive: number;
  trueNegative: number;
  falseNegative: number;
}

export interface CalibrationBin {
  lower: number;
  upper: number;
  count: number;
  /** Mean predicted probability in the bin (null: empty). */
  predicted: number | null;
  /** Observed success rate in the bin (null: empty). */
  observed: number | null;
}

export interface DetectorFigures {
  episodes: number;
  successes: number;
  /** Null when only one class is present. */
  auroc: number | null;
  brier: number;
  /** Count-weighted mean |predicted − observed| over the bins. */
  ece: number;
  bins: CalibrationBin[];
  threshold: number;
  confusion: Confusion;
  accuracy: number;
}

/**
 * Probability that a random success scores above a random failure (ties count one half): the
 * Mann–Whitney statistic over mid-ranks. Null without both classes.
 */
export function auroc(scores: ArrayLike<number>, outcomes: ArrayLike<boolean>): number | null {
  const n = scores.length;
  if (outcomes.length !== n) throw new Error(`AUROC: ${n} scores but ${outcomes.length} outcomes`);
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => scores[a]! - scores[b]!);
  const ranks = new Float64Array(n);
  for (let i = 0; i < n; ) {
    let j = i;
    while (j + 1 < n && scores[order[j + 1]!] === scores[order[i]!]) j++;
    for (let k = i; k <= j; k++) ranks[order[k]!] = (i + j) / 2 + 1;
    i = j + 1;
  }
  let positives = 0;
  let rankSum = 0;
  for (let i = 0; i < n; i++)
    if (outcomes[i]) {
      positives++;
      rankSum += ranks[i]!;
    }
  const negatives = n - positives;
  if (positives === 0 || negatives === 0) return null;
  return (rankSum - (positives * (positives + 1)) / 2) / (positives * negatives);
}

export function confusionAt(scores: ArrayLike<number>, outcomes: ArrayLike<boolean>, threshold: number): Confusion {
  const c: Confusion = { truePositive: 0, falsePositive: 0, trueNegative: 0, falseNegative: 0 };
  for (let i = 0; i < scores.length; i++) {
    const said = scores[i]! >= threshold;
    if (outcomes[i]) said ? c.truePositive++ : c.falseNegative++;
    else said ? c.falsePositive++ : c.trueNegative++;
  }
  return c;
}

/**
 * The threshold with the highest balanced accuracy (mean of the true-positive and true-negative
 * rates), among midpoints between consecutive distinct scores; ties go to the one nearest 0.5.
 * Balanced, because anchor batches can be mostly failures or mostly successes.
 */
export function chooseThreshold(scores: ArrayLike<number>, outcomes: ArrayLike<boolean>): number {
  const distinct = [...new Set(Array.from(scores))].sort((a, b) => a - b);
  const candidates = [0.5];
  for (let i = 0; i + 1 < distinct.length; i++) candidates.push((distinct[i]! + distinct[i + 1]!) / 2);
  let best = 0.5;
  let bestScore = -1;
  for (const t of candidates) {
    const c = confusionAt(scores, outcomes, t);
    const tpr = c.truePositive / Math.max(1, c.truePositive + c.falseNegative);
    const tnr = c.trueNegative / Math.max(1, c.trueNegative + c.falsePositive);
    const score = (tpr + tnr) / 2;
    if (
      score > bestScore + 1e-12 ||
      (Math.abs(score - bestScore) <= 1e-12 && Math.abs(t - 0.5) < Math.abs(best - 0.5))
    ) {
      best = t;
      bestScore = score;
    }
  }
  return best;
}

export function calibrationBins(scores: ArrayLike<number>, outcomes: ArrayLike<boolean>, bins = 10): CalibrationBin[] {
  const sums = Array.from({ length: bins }, () => ({ count: 0, predicted: 0, observed: 0 }));
  for (let i = 0; i < scores.length; i++) {
    const b = sums[Math.min(bins - 1, Math.max(0, Math.floor(scores[i]! * bins)))]!;
    b.count++;
    b.predicted += scores[i]!;
    b.observed += outcomes[i] ? 1 : 0;
  }
  return sums.map((b, k) => ({
    lower: k / bins,
    upper: (k + 1) / bins,
    count: b.count,
    predicted: b.count ? b.predicted / b.count : null,
    observed: b.count ? b.observed / b.count : null,
  }));
}

export function detectorFigures(
  scores: ArrayLike<number>,
  outcomes: ArrayLike<boolean>,
  threshold: number,
): DetectorFigures {
  const n = scores.length;
  if (n === 0) throw new Error('no episodes to measure the detector on');
  const bins = calibrationBins(scores, outcomes);
  let brier = 0;
  let successes = 0;
  for (let i = 0; i < n; i++) {
    const y = outcomes[i] ? 1 : 0;
    brier += (scores[i]! - y) ** 2;
    successes += y;
  }
  const ece = bins.reduce((s, b) => s + (b.count ? (b.count / n) * Math.abs(b.predicted! - b.observed!) : 0), 0);
  const confusion = confusionAt(scores, outcomes, threshold);
  return {
    episodes: n,
    successes,
    auroc: auroc(scores, outcomes),
    brier: brier / n,
    ece,
    bins,
    threshold,
    confusion,
    accuracy: (confusion.truePositive + confusion.trueNegative) / n,
  };
}
