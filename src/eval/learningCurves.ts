/**
 * Held-out success against the robot time spent to get there, and the one robot-time metric the
 * benchmark and the demo report for every arm: the robot time at which a run first reaches a
 * common target success (linear between evaluations; the start is the BC policy's success at 0 s).
 */

export interface CurvePoint {
  robotSeconds: number;
  success: number;
}

/** The common target: the start plus `fraction` of the reference arm's mean final gain. */
export function commonTarget(start: number, referenceFinal: number, fraction = 0.8): number {
  return start + fraction * (referenceFinal - start);
}

/** Robot seconds at which a curve first reaches `target` (linear between evaluations), or null if never. */
export function timeToReach(curve: CurvePoint[], target: number): number | null {
  for (let i = 0; i < curve.length; i++) {
    const p = curve[i]!;
    if (p.success >= target - 1e-9) {
      if (i === 0) return p.robotSeconds;
      const q = curve[i - 1]!;
      return q.robotSeconds + ((target - q.success) / (p.success - q.success)) * (p.robotSeconds - q.robotSeconds);
    }
  }
  return null;
}

/**
 * Time to target per run, a run that never reaches it counted at its whole budget (its last
 * evaluation's robot time), so an arm cannot look fast by leaving its failures out.
 */
export function timeToTarget(curve: CurvePoint[], target: number): { seconds: number; reached: boolean } {
  const t = timeToReach(curve, target);
  return t === null ? { seconds: curve.at(-1)?.robotSeconds ?? 0, reached: false } : { seconds: t, reached: true };
}

/** Success at a robot time (linear between evaluations); null beyond the last evaluation. */
export function successAt(curve: CurvePoint[], robotSeconds: number): number | null {
  if (curve.length === 0 || robotSeconds > curve.at(-1)!.robotSeconds + 1e-9) return null;
  for (let i = 0; i < curve.length; i++) {
    const p = curve[i]!;
    if (p.robotSeconds >= robotSeconds - 1e-9) {
      if (i === 0) return p.success;
      const q = curve[i - 1]!;
      const f = (robotSeconds - q.robotSeconds) / (p.robotSeconds - q.robotSeconds);
      return q.success + f * (p.success - q.success);
    }
  }
  return curve.at(-1)!.success;
}

/**
 * Robot seconds at which the mean over runs of their success curves (each linear between its evaluations)
 * first reaches `target`; null if it does not within the shortest run. Each run's first crossing rewards
 * a noisy curve evaluated often (a peak counts whole); on the mean a run's peak counts by its share.
 */
export function meanCurveTimeToReach(curves: CurvePoint[][], target: number): number | null {
  if (curves.length === 0 || curves.some((c) => c.length === 0)) return null;
  const end = Math.min(...curves.map((c) => c.at(-1)!.robotSeconds));
  // The mean of piecewise-linear curves is linear between the union of their evaluation times.
  const times = [...new Set(curves.flatMap((c) => c.map((p) => p.robotSeconds)))]
    .filter((t) => t <= end)
    .sort((a, b) => a - b);
  const points = times.map((t) => ({ robotSeconds: t, success: mean(curves.map((c) => successAt(c, t)!)) }));
  return timeToReach(points, target);
}

export interface MeanPoint {
  robotSeconds: number;
  mean: number;
  sd: number;
  runs: number;
}

/**
 * Per evaluation index, the mean robot time and the mean and sd of success over runs (the runs of
 * one arm evaluate at the same steps, so their robot times differ only by episode lengths).
 */
export function meanCurve(curves: CurvePoint[][]): MeanPoint[] {
  const length = Math.min(...curves.map((c) => c.length));
  if (!Number.isFinite(length)) return [];
  return Array.from({ length }, (_, i) => {
    const xs = curves.map((c) => c[i]!.success);
    return {
      robotSeconds: mean(curves.map((c) => c[i]!.robotSeconds)),
      mean: mean(xs),
      sd: sd(xs),
      runs: xs.length,
    };
  });
}

export const mean = (xs: number[]): number => xs.reduce((s, v) => s + v, 0) / Math.max(1, xs.length);

/** Sample standard deviation (0 for fewer than two values). */
export const sd = (xs: number[]): number =>
  xs.length > 1 ? Math.sqrt(xs.reduce((s, v) => s + (v - mean(xs)) ** 2, 0) / (xs.length - 1)) : 0;
