/**
 * Evaluation metrics over plain number arrays (no tfjs): ranking quality (AUROC, Spearman) and
 * calibration (expected calibration error) of world-model predictions, e.g. predicted success
 * probabilities against real-robot outcomes.
 *
 * Labels are binary: 1/0 or true/false (1/true is the positive class). Inputs of different
 * lengths, NaN values, or non-binary labels throw; degenerate-but-valid inputs (empty arrays, a
 * single class, a constant series) give NaN rather than a misleading number.
 */

export type Labels = ArrayLike<number | boolean>;

/**
 * 1-based ranks of `values` in ascending order, ties getting the average of the ranks they span
 * (e.g. [10, 20, 20, 5] -> [2, 3.5, 3.5, 1]). ±Infinity rank as the extremes; NaN throws.
 */
export function rankAverage(values: ArrayLike<number>): number[] {
  const n = values.length;
  const order = Array.from({ length: n }, (_, i) => i);
  for (let i = 0; i < n; i++) {
    if (Number.isNaN(values[i])) throw new Error(`rankAverage: value ${i} is NaN`);
  }
  order.sort((i, j) => (values[i] as number) - (values[j] as number) || i - j);
  const ranks = new Array<number>(n);
  let start = 0;
  while (start < n) {
    const v = values[order[start] as number] as number;
    let end = start + 1;
    while (end < n && values[order[end] as number] === v) end++;
    // Positions start..end-1 (0-based) hold ranks start+1..end; their mean is (start+1+end)/2.
    const r = (start + 1 + end) / 2;
    for (let k = start; k < end; k++) ranks[order[k] as number] = r;
    start = end;
  }
  return ranks;
}

/**
 * Area under the ROC curve: the probability that a random positive scores above a random
 * negative, ties counting one half. Computed from average ranks (Mann-Whitney U):
 * (sum of positive ranks - nPos(nPos+1)/2) / (nPos * nNeg). NaN when either class is absent.
 */
export function auroc(scores: ArrayLike<number>, labels: Labels): number {
  sameLength('auroc', scores, labels);
  const pos = binaryLabels('auroc', labels);
  const nPos = pos.reduce((s, p) => s + (p ? 1 : 0), 0);
  const nNeg = pos.length - nPos;
  if (nPos === 0 || nNeg === 0) return NaN;
  const ranks = rankAverage(scores);
  let rankSum = 0;
  for (let i = 0; i < ranks.length; i++) if (pos[i]) rankSum += ranks[i] as number;
  return (rankSum - (nPos * (nPos + 1)) / 2) / (nPos * nNeg);
}

/**
 * Expected calibration error of binary probabilities `probs` (each P(label = 1), in [0, 1]):
 * split [0, 1] into `bins` equal-width bins ([i/bins, (i+1)/bins), the last one closed), and sum
 * over non-empty bins (count/N) * |mean label - mean prob|. NaN for empty input.
 */
export function expectedCalibrationError(probs: ArrayLike<number>, labels: Labels, bins = 10): number {
  sameLength('expectedCalibrationError', probs, labels);
  if (!Number.isInteger(bins) || bins < 1)
    throw new Error(`expectedCalibrationError: bins must be a positive integer, got ${bins}`);
  const pos = binaryLabels('expectedCalibrationError', labels);
  const n = probs.length;
  if (n === 0) return NaN;
  const count = new Array<number>(bins).fill(0);
  const sumProb = new Array<number>(bins).fill(0);
  const sumLabel = new Array<number>(bins).fill(0);
  for (let i = 0; i < n; i++) {
    const p = probs[i] as number;
    if (!(p >= 0 && p <= 1)) throw new Error(`expectedCalibrationError: prob ${i} is ${p}, outside [0, 1]`);
    const b = binOf(p, bins);
    count[b]! += 1;
    sumProb[b]! += p;
    sumLabel[b]! += pos[i] ? 1 : 0;
  }
  let ece = 0;
  for (let b = 0; b < bins; b++) {
    const c = count[b] as number;
    if (c === 0) continue;
    ece += (c / n) * Math.abs((sumLabel[b] as number) / c - (sumProb[b] as number) / c);
  }
  return ece;
}

/** Bin index of p in [0, 1] for `bins` equal-width bins, exact at the edges despite rounding in p * bins. */
function binOf(p: number, bins: number): number {
  let b = Math.min(Math.floor(p * bins), bins - 1);
  if (b > 0 && p < b / bins) b--;
  else if (b < bins - 1 && p >= (b + 1) / bins) b++;
  return b;
}

/**
 * Spearman rank correlation: the Pearson correlation of the average ranks of `a` and `b`.
 * 1 for any strictly increasing relation, -1 for a decreasing one. NaN when fewer than two
 * points or when either series is constant.
 */
export function spearman(a: ArrayLike<number>, b: ArrayLike<number>): number {
  sameLength('spearman', a, b);
  const n = a.length;
  if (n < 2) return NaN;
  const ra = rankAverage(a);
  const rb = rankAverage(b);
  // Both rank vectors have mean (n + 1) / 2.
  const mean = (n + 1) / 2;
  let sab = 0;
  let saa = 0;
  let sbb = 0;
  for (let i = 0; i < n; i++) {
    const da = (ra[i] as number) - mean;
    const db = (rb[i] as number) - mean;
    sab += da * db;
    saa += da * da;
    sbb += db * db;
  }
  if (saa === 0 || sbb === 0) return NaN;
  // Clamp rounding overshoot so perfect monotone relations give exactly ±1.
  return Math.max(-1, Math.min(1, sab / Math.sqrt(saa * sbb)));
}

function sameLength(fn: string, a: ArrayLike<unknown>, b: ArrayLike<unknown>): void {
  if (a.length !== b.length) throw new Error(`${fn}: length mismatch (${a.length} vs ${b.length})`);
}

function binaryLabels(fn: string, labels: Labels): boolean[] {
  return Array.from(labels, (l, i) => {
    if (l === true || l === 1) return true;
    if (l === false || l === 0) return false;
    throw new Error(`${fn}: label ${i} is ${String(l)}; labels must be 0/1 or booleans`);
  });
}
