/**
 * How sure the headline ratio is: real-only GRPO's mean robot time to the target over WMRL's, from a
 * handful of seeds whose times spread by half their mean or more. The interval is taken on the log
 * of the ratio (a ratio's error is multiplicative), with the delta method's standard error and
 * Welch's degrees of freedom for two arms of unequal spread. A percentile bootstrap over seeds was
 * the first choice; at 10 seeds a side with WMRL-like skew (sd/mean 0.8) it covered 89% at 95%
 * nominal, this one 93% (test/eval/ratioInterval.test.ts). The common target is held fixed, so
 * the interval leaves out that target's own noise.
 */

import { mean, sd } from './learningCurves.ts';

export interface RatioInterval {
  /** mean(numerator) / mean(denominator). */
  ratio: number;
  low: number;
  high: number;
  /** The normal quantile of the nominal coverage (1.96: 95%), widened to Student's t. */
  z: number;
}

/**
 * The ratio of two arms' mean per-seed values with its interval; null with fewer than 2 seeds on a
 * side (one seed says nothing of the spread).
 */
export function ratioOfMeansInterval(numerator: number[], denominator: number[], z = 1.959964): RatioInterval | null {
  if (![...numerator, ...denominator].every((x) => Number.isFinite(x) && x >= 0))
    throw new Error('a ratio interval takes finite non-negative values (robot seconds)');
  if (!(z > 0)) throw new Error(`z must be positive, got ${z}`);
  if (numerator.length < 2 || denominator.length < 2) return null;
  const a = mean(numerator);
  const b = mean(denominator);
  if (a === 0 || b === 0) throw new Error(`a ratio interval needs both means above 0 (got ${a} and ${b})`);
  // Relative variances of the two means: the variance of log(mean) by the delta method.
  const va = sd(numerator) ** 2 / numerator.length / (a * a);
  const vb = sd(denominator) ** 2 / denominator.length / (b * b);
  const ratio = a / b;
  const se = Math.sqrt(va + vb);
  if (se === 0) return { ratio, low: ratio, high: ratio, z };
  const df = (va + vb) ** 2 / (va ** 2 / (numerator.length - 1) + vb ** 2 / (denominator.length - 1));
  const t = studentT(z, df);
  return { ratio, low: ratio * Math.exp(-t * se), high: ratio * Math.exp(t * se), z };
}

/**
 * Student's t quantile at the normal quantile `z` by the Cornish–Fisher expansion (Abramowitz &
 * Stegun 26.7.5): within 0.1% of the exact value at z = 1.96 for df ≥ 3, close enough for an
 * interval on a handful of seeds. Below 1 degree of freedom df is taken as 1.
 */
export function studentT(z: number, df: number): number {
  const n = Math.max(1, df);
  const z3 = z ** 3;
  const z5 = z ** 5;
  const z7 = z ** 7;
  return (
    z +
    (z3 + z) / (4 * n) +
    (5 * z5 + 16 * z3 + 3 * z) / (96 * n ** 2) +
    (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * n ** 3) +
    (79 * z ** 9 + 776 * z7 + 1482 * z5 - 1920 * z3 - 945 * z) / (92160 * n ** 4)
  );
}
