/**
 * Success per task family and split estimated from real episodes plus imagined ones
 * (`wmrl eval --world-model`): beside the real-only rate and its Wilson interval, the PPI estimate
 * (the imagined mean corrected by the paired prediction errors) and PPI++ (the same with the
 * predictions weighed by λ; see ppiEstimate.ts). 'all' pools a split's families: fair because
 * every family has the same number of real and of imagined episodes.
 */
import type { Split } from '../core/types.ts';
import { ppiEstimate, type PpiEstimate, tunedPpiEstimate, type TunedPpiEstimate } from './ppiEstimate.ts';
import { wilsonInterval } from './proportion.ts';

/** An episode's prediction, with its real outcome when it ran for real (paired) or null (imagined only). */
export interface PpiUnit {
  family: string;
  split: Split;
  predicted: number;
  outcome: number | null;
}

export interface PpiRow {
  /** A task family, or 'all'. */
  family: string;
  split: Split;
  /** Real episodes: their success rate with its 95% Wilson interval. */
  real: { episodes: number; successes: number; rate: number; low: number; high: number };
  imagined: number;
  /** Mean prediction over the paired real episodes, and its correlation with their outcomes (null: undefined). */
  pairedPredicted: number;
  correlation: number | null;
  /** Null with fewer than 2 real or 2 imagined episodes. */
  ppi: PpiEstimate | null;
  tuned: TunedPpiEstimate | null;
}

export function ppiRows(units: PpiUnit[]): PpiRow[] {
  const cells = new Map<string, { family: string; split: Split; units: PpiUnit[] }>();
  for (const u of units) {
    for (const family of [u.family, 'all']) {
      const key = `${u.split}/${family}`;
      const cell = cells.get(key) ?? { family, split: u.split, units: [] };
      cell.units.push(u);
      cells.set(key, cell);
    }
  }
  const order = (r: { family: string; split: string }) =>
    `${r.split === 'train' ? 0 : 1}${r.family === 'all' ? 'z' : r.family}`;
  return [...cells.values()]
    .sort((a, b) => order(a).localeCompare(order(b)))
    .map(({ family, split, units: cell }) => {
      const paired = cell.filter((u) => u.outcome !== null);
      const f = paired.map((u) => u.predicted);
      const y = paired.map((u) => u.outcome!);
      const imagined = cell.filter((u) => u.outcome === null).map((u) => u.predicted);
      const successes = y.filter((v) => v === 1).length;
      const { rate, low, high } = wilsonInterval(successes, y.length);
      const enough = paired.length >= 2 && imagined.length >= 2;
      return {
        family,
        split,
        real: { episodes: y.length, successes, rate, low, high },
        imagined: imagined.length,
        pairedPredicted: f.length > 0 ? f.reduce((s, v) => s + v, 0) / f.length : Number.NaN,
        correlation: correlation(f, y),
        ppi: enough ? ppiEstimate(imagined, f, y) : null,
        tuned: enough ? tunedPpiEstimate(imagined, f, y) : null,
      };
    });
}

/** The table `wmrl eval --world-model` prints: estimate [95% interval] ± half-width, in percent. */
export function formatPpiRows(rows: PpiRow[]): string {
  const pct = (v: number) => (100 * v).toFixed(1).padStart(5);
  const cell = (v: number, lo: number, hi: number) =>
    `${pct(v)} [${pct(lo)}, ${pct(hi)}] ±${(50 * (hi - lo)).toFixed(1)}`;
  const est = (e: PpiEstimate | null) => (e ? cell(e.estimate, e.lower, e.upper) : '–').padEnd(29);
  const lines = [
    `${'split'.padEnd(6)} ${'family'.padEnd(7)} ${'real'.padStart(5)} ${'imag'.padStart(5)}  ` +
      `${'real only (Wilson)'.padEnd(29)} ${'PPI'.padEnd(29)} ${'PPI++'.padEnd(29)} ${'λ'.padStart(4)}  corr`,
  ];
  for (const r of rows) {
    lines.push(
      `${r.split.padEnd(6)} ${r.family.padEnd(7)} ${String(r.real.episodes).padStart(5)} ` +
        `${String(r.imagined).padStart(5)}  ${cell(r.real.rate, r.real.low, r.real.high).padEnd(29)} ` +
        `${est(r.ppi)} ${est(r.tuned)} ${r.tuned ? r.tuned.lambda.toFixed(2) : '   –'}  ` +
        `${r.correlation === null ? '–' : r.correlation.toFixed(2)}`,
    );
  }
  return lines.join('\n');
}

/** Pearson correlation; null when either side is constant or there are fewer than 2 pairs. */
export function correlation(a: ArrayLike<number>, b: ArrayLike<number>): number | null {
  const n = a.length;
  if (n < 2) return null;
  let ma = 0;
  let mb = 0;
  for (let i = 0; i < n; i++) {
    ma += a[i]! / n;
    mb += b[i]! / n;
  }
  let sab = 0;
  let saa = 0;
  let sbb = 0;
  for (let i = 0; i < n; i++) {
    sab += (a[i]! - ma) * (b[i]! - mb);
    saa += (a[i]! - ma) ** 2;
    sbb += (b[i]! - mb) ** 2;
  }
  return saa > 0 && sbb > 0 ? sab / Math.sqrt(saa * sbb) : null;
}
