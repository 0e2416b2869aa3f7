/**
 * Held-out success against robot time, per arm the mean over seeds with a ±1 sd band, on a log
 * time axis (WMRL and real-only GRPO spend robot time tenfold apart), the common target marked.
 * Two renderings of one layout: an SVG for the run folder and a few lines of text for the terminal.
 */
import type { MeanPoint } from './learningCurves.ts';

/** A point of a curve; `low`/`high` (e.g. one run's 95% interval) replace the ±1 sd band when given. */
export interface PlotPoint extends MeanPoint {
  low?: number;
  high?: number;
}

export interface PlotArm {
  name: string;
  colour: string;
  points: PlotPoint[];
}

const bandOf = (p: PlotPoint) => [p.low ?? p.mean - p.sd, p.high ?? p.mean + p.sd] as const;

export interface CurvePlot {
  arms: PlotArm[];
  /** The common target success, drawn as a dashed line. */
  target?: number;
  /** What the bands are (default: mean ± sd over seeds). */
  bandLabel?: string;
  /** What the time axis counts (default: robot time used for training). */
  timeLabel?: string;
  title?: string;
}

/** Log axis over the robot times; 0 s (the BC start) sits at the left edge. */
function timeAxis(arms: PlotArm[]): { lo: number; hi: number; f: (s: number) => number } {
  const times = arms.flatMap((a) => a.points.map((p) => p.robotSeconds)).filter((s) => s > 0);
  const lo = 10 ** Math.floor(Math.log10(Math.min(...times, 1e9) / 1.5));
  const hi = Math.max(...times, lo * 10) * 1.15;
  return { lo, hi, f: (s) => (Math.log10(Math.max(s, lo)) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo)) };
}

/** Success axis: the data's range (±1 sd, and the target) widened to whole tens of percent. */
function successAxis(plot: CurvePlot): { lo: number; hi: number } {
  const vs = plot.arms.flatMap((a) => a.points.flatMap((p) => bandOf(p)));
  if (plot.target !== undefined) vs.push(plot.target);
  const lo = Math.max(0, Math.floor(Math.min(...vs, 1) * 10 - 0.5) / 10);
  const hi = Math.min(1, Math.ceil(Math.max(...vs, 0) * 10 + 0.5) / 10);
  return { lo, hi: Math.max(hi, lo + 0.2) };
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

export function learningCurveSvg(plot: CurvePlot): string {
  const labels = plot.arms.map((a) => {
    const runs = Math.max(0, ...a.points.map((p) => p.runs));
    return `${a.name}${runs > 1 ? ` (${runs} seeds)` : ''}`;
  });
  const box = { w: 30 + 6.8 * Math.max(...labels.map((l) => l.length)), h: 18 * plot.arms.length + 8 };
  const m = { l: 56, r: 86, t: plot.title ? 34 : 16, b: 46 };
  // Wide enough for the legend inside the plot and for the title (bold 14 px, about 8 px a character): long arm
  // names or a long title widen the picture, never spill past its edge.
  const W = Math.max(680, Math.ceil(m.l + m.r + box.w + 16), Math.ceil(m.l + 8.2 * (plot.title?.length ?? 0) + 16));
  // The axes' picture; a legend that would hide a curve in every corner goes below it (taller picture).
  const P = 400;
  const bottom = P - m.b;
  const axis = timeAxis(plot.arms);
  const x = (s: number) => m.l + axis.f(s) * (W - m.l - m.r);
  const ys = successAxis(plot);
  const y = (v: number) => bottom - ((v - ys.lo) / (ys.hi - ys.lo)) * (bottom - m.t);
  // The legend goes in the plot's corner that covers the least of the curves: the top left (where
  // rising curves leave room) unless a curve runs through it, as when one arm rises and another falls.
  // Where every corner would hide some of a curve (many arms), it goes below the axes instead.
  const corners = [
    { x: m.l + 8, y: m.t + 6 },
    { x: W - m.r - 8 - box.w, y: bottom - 6 - box.h },
    { x: W - m.r - 8 - box.w, y: m.t + 6 },
    { x: m.l + 8, y: bottom - 6 - box.h },
  ];
  // Each arm's curve as drawn (linear in robot time between evaluations): what a legend box could hide.
  const lines = plot.arms.map((a) => (a.points.length ? linearInTime(a.points) : []));
  const samples = lines.flatMap((line) => curveSamples(line.map((p) => [x(p.robotSeconds), y(p.mean)] as const)));
  const covered = (c: { x: number; y: number }) =>
    samples.filter(([px, py]) => px >= c.x && px <= c.x + box.w && py >= c.y && py <= c.y + box.h).length;
  const corner = corners.reduce((best, c) => (covered(c) < covered(best) ? c : best));
  const below = covered(corner) > 0;
  const at = below ? { x: m.l, y: P + 2 } : corner;
  const H = below ? P + box.h + 12 : P;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
  ];
  if (plot.title) out.push(`<text x="${m.l}" y="20" font-size="14" font-weight="bold">${esc(plot.title)}</text>`);
  for (let i = 0; i <= Math.round((ys.hi - ys.lo) * 10); i++) {
    const v = ys.lo + i / 10;
    out.push(
      `<line x1="${m.l}" x2="${W - m.r}" y1="${y(v)}" y2="${y(v)}" stroke="#eee"/>`,
      `<text x="${m.l - 6}" y="${y(v) + 4}" text-anchor="end">${(100 * v).toFixed(0)}%</text>`,
    );
  }
  // Under two decades the 2s are labelled too, so the right half of the axis has a label.
  const labelled = axis.hi / axis.lo < 100 ? [1, 2, 5] : [1, 5];
  for (let d = axis.lo; d <= axis.hi * 1.0001; d *= 10) {
    for (const k of [1, 2, 5]) {
      const s = d * k;
      if (s > axis.hi * 1.0001) break;
      out.push(`<line x1="${x(s)}" x2="${x(s)}" y1="${m.t}" y2="${bottom}" stroke="${k === 1 ? '#ddd' : '#f3f3f3'}"/>`);
      if (labelled.includes(k))
        out.push(`<text x="${x(s)}" y="${bottom + 16}" text-anchor="middle">${s === axis.lo ? '0' : s} s</text>`);
    }
  }
  out.push(
    `<line x1="${m.l}" x2="${m.l}" y1="${m.t}" y2="${bottom}" stroke="#333"/>`,
    `<line x1="${m.l}" x2="${W - m.r}" y1="${bottom}" y2="${bottom}" stroke="#333"/>`,
  );
  if (plot.target !== undefined) {
    out.push(
      `<line x1="${m.l}" x2="${W - m.r}" y1="${y(plot.target)}" y2="${y(plot.target)}" stroke="#000" ` +
        `stroke-dasharray="6 4"/>`,
      `<text x="${W - m.r + 6}" y="${y(plot.target) + 4}">target ${(100 * plot.target).toFixed(0)}%</text>`,
    );
  }
  for (const [i, a] of plot.arms.entries()) {
    if (a.points.length === 0) continue;
    const band = (v: number) => y(Math.min(ys.hi, Math.max(ys.lo, v))).toFixed(1);
    const line = lines[i]!;
    const upper = line.map((p) => `${x(p.robotSeconds).toFixed(1)},${band(p.high)}`);
    const lower = line.map((p) => `${x(p.robotSeconds).toFixed(1)},${band(p.low)}`);
    out.push(
      `<polygon fill="${a.colour}" opacity="0.15" points="${[...upper, ...lower.reverse()].join(' ')}"/>`,
      `<polyline fill="none" stroke="${a.colour}" stroke-width="2.5" points="` +
        `${line.map((p) => `${x(p.robotSeconds).toFixed(1)},${y(p.mean).toFixed(1)}`).join(' ')}"/>`,
      ...a.points.map((p) => `<circle cx="${x(p.robotSeconds)}" cy="${y(p.mean)}" r="3" fill="${a.colour}"/>`),
    );
  }
  out.push(
    `<rect x="${at.x}" y="${at.y}" width="${box.w}" height="${box.h}" fill="white" opacity="0.85" stroke="#ccc"/>`,
  );
  plot.arms.forEach((a, i) => {
    const ly = at.y + 16 + 18 * i;
    out.push(
      `<rect x="${at.x + 6}" y="${ly - 9}" width="12" height="12" fill="${a.colour}"/>`,
      `<text x="${at.x + 23}" y="${ly + 1}">${esc(labels[i]!)}</text>`,
    );
  });
  out.push(
    `<text x="${(m.l + W - m.r) / 2}" y="${P - 10}" text-anchor="middle">` +
      `${esc(plot.timeLabel ?? 'robot time used for training')} (s, log scale)</text>`,
    `<text x="14" y="${(m.t + bottom) / 2}" transform="rotate(-90 14 ${(m.t + bottom) / 2})" ` +
      `text-anchor="middle">held-out success (${plot.bandLabel ?? 'mean ± sd over seeds'})</text>`,
    '</svg>',
  );
  return out.join('\n') + '\n';
}

/** Samples per segment between two evaluations: enough that a segment reads as the curve it is. */
const SEGMENT_SAMPLES = 24;

/**
 * A curve as the benchmark reads it, linear in robot time between evaluations (its mean and band), sampled
 * densely: on the log time axis a straight segment would be another curve than the one the metric interpolates.
 */
function linearInTime(points: PlotPoint[]): { robotSeconds: number; mean: number; low: number; high: number }[] {
  const at = (p: PlotPoint) => {
    const [low, high] = bandOf(p);
    return { robotSeconds: p.robotSeconds, mean: p.mean, low, high };
  };
  const out = [at(points[0]!)];
  for (let i = 1; i < points.length; i++) {
    const [a, b] = [at(points[i - 1]!), at(points[i]!)];
    for (let j = 1; j <= SEGMENT_SAMPLES; j++) {
      const f = j / SEGMENT_SAMPLES;
      const mix = (u: number, v: number) => u + f * (v - u);
      out.push({
        robotSeconds: mix(a.robotSeconds, b.robotSeconds),
        mean: mix(a.mean, b.mean),
        low: mix(a.low, b.low),
        high: mix(a.high, b.high),
      });
    }
  }
  return out;
}

/** Points every few pixels along a polyline: what of a curve a legend box would hide. */
function curveSamples(points: (readonly [number, number])[]): [number, number][] {
  const out: [number, number][] = points.length === 1 ? [[points[0]![0], points[0]![1]]] : [];
  for (let i = 1; i < points.length; i++) {
    const [x0, y0] = points[i - 1]!;
    const [x1, y1] = points[i]!;
    const n = Math.max(1, Math.ceil(Math.hypot(x1 - x0, y1 - y0) / 4));
    for (let k = 0; k <= n; k++) out.push([x0 + ((x1 - x0) * k) / n, y0 + ((y1 - y0) * k) / n]);
  }
  return out;
}

/**
 * The same plot in text: one letter per arm (its initial, or the given `marks`), `-` for the
 * target, rows of 5 points of success, columns of log robot time.
 */
export function learningCurveText(plot: CurvePlot, marks?: string[], width = 56): string {
  const axis = timeAxis(plot.arms);
  const ys = successAxis(plot);
  const rows = Math.round((ys.hi - ys.lo) / 0.05) + 1;
  const grid = Array.from({ length: rows }, () => Array.from({ length: width }, () => ' '));
  const row = (v: number) => rows - 1 - Math.round((Math.min(ys.hi, Math.max(ys.lo, v)) - ys.lo) / 0.05);
  if (plot.target !== undefined) grid[row(plot.target)]!.fill('-');
  plot.arms.forEach((a, i) => {
    const mark = marks?.[i] ?? a.name[0]!;
    for (let j = 1; j < a.points.length; j++) {
      const p = a.points[j - 1]!;
      const q = a.points[j]!;
      // sample the segment in log-time columns so a line reads as a line
      for (let c = 0; c < width; c++) {
        const f0 = axis.f(p.robotSeconds) * (width - 1);
        const f1 = axis.f(q.robotSeconds) * (width - 1);
        if (c < Math.min(f0, f1) - 0.5 || c > Math.max(f0, f1) + 0.5) continue;
        const t = f1 === f0 ? 1 : (c - f0) / (f1 - f0);
        grid[row(p.mean + Math.min(1, Math.max(0, t)) * (q.mean - p.mean))]![c] = mark;
      }
    }
    if (a.points.length === 1) grid[row(a.points[0]!.mean)]![Math.round(axis.f(a.points[0]!.robotSeconds))] = mark;
  });
  const lines = grid.map((r, i) => {
    const v = ys.hi - i * 0.05;
    return `${(Math.round(100 * v) % 10 === 0 ? `${(100 * v).toFixed(0)}%` : '').padStart(4)} |${r.join('')}`;
  });
  const ticks = Array.from({ length: width }, () => '-');
  const labels = Array.from({ length: width + 8 }, () => ' ');
  for (let d = axis.lo; d <= axis.hi; d *= 10) {
    const c = Math.round(axis.f(d) * (width - 1));
    ticks[c] = '+';
    const text = `${d === axis.lo ? '0' : d} s`;
    const at = Math.min(Math.max(0, c - Math.floor(text.length / 2)), labels.length - text.length);
    labels.splice(at, text.length, ...text);
  }
  lines.push(`     +${ticks.join('')}`);
  lines.push(`      ${labels.join('').trimEnd()}`);
  lines.push(
    `      ${plot.arms.map((a, i) => `${marks?.[i] ?? a.name[0]} ${a.name}`).join('   ')}` +
      `${plot.target !== undefined ? `   - target ${(100 * plot.target).toFixed(0)}%` : ''}` +
      '   (robot time, log scale)',
  );
  return lines.join('\n');
}
