/**
 * One arm's lead over another at equal robot time: per seed, the difference of their held-out
 * success at the same robot seconds (linear between evaluations), paired because both arms of a
 * seed start from the same clone and draw the same evaluation episodes. The seeds' mean difference
 * comes with a Student's t interval: at the benchmark's 5–30 seeds the per-seed differences spread
 * by several points, and an unpaired comparison of the two arms' means would be wider still. (The
 * demo's src/eval/robotTimeComparison.ts pairs the episodes of one run each instead.)
 */
import { type CurvePoint, mean, sd, successAt } from './learningCurves.ts';
import { studentT } from './ratioInterval.ts';

export interface PairedLead {
  robotSeconds: number;
  /** Mean over seeds of success(a) − success(b) (a fraction, not points). */
  mean: number;
  low: number;
  high: number;
  /** Seeds where a was strictly ahead, and strictly behind (the rest tie: early, an ablation can act as its parent). */
  ahead: number;
  behind: number;
  seeds: number;
}

/**
 * a's lead over b at `robotSeconds`, over the seeds both arms ran; null when fewer than 2 seeds
 * pair up or either arm of a seed had not spent that much robot time (no extrapolation).
 */
export function pairedLead(
  a: Map<number, CurvePoint[]>,
  b: Map<number, CurvePoint[]>,
  robotSeconds: number,
  z = 1.959964,
): PairedLead | null {
  const diffs: number[] = [];
  for (const [seed, curveA] of a) {
    const curveB = b.get(seed);
    if (!curveB) continue;
    const x = successAt(curveA, robotSeconds);
    const y = successAt(curveB, robotSeconds);
    if (x === null || y === null) return null;
    diffs.push(x - y);
  }
  if (diffs.length < 2) return null;
  const m = mean(diffs);
  const half = (studentT(z, diffs.length - 1) * sd(diffs)) / Math.sqrt(diffs.length);
  return {
    robotSeconds,
    mean: m,
    low: m - half,
    high: m + half,
    ahead: diffs.filter((d) => d > 0).length,
    behind: diffs.filter((d) => d < 0).length,
    seeds: diffs.length,
  };
}

const points = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(100 * x).toFixed(1)}`;

/** One lead as the benchmark prints it: "+3.2 at 50 robot-s (−1.0 to +7.4; ahead in 6, behind in 4 of 10)". */
export function describeLead(l: PairedLead): string {
  const seeds =
    l.ahead + l.behind === 0
      ? `the same in all ${l.seeds} seeds`
      : `ahead in ${l.ahead}, behind in ${l.behind} of ${l.seeds}`;
  return `${points(l.mean)} at ${l.robotSeconds} robot-s (${points(l.low)} to ${points(l.high)}; ${seeds})`;
}
