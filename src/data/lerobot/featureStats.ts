/**
 * LeRobot's feature statistics (`meta/stats.json`, and v3.0's per-episode `stats/<feature>/<stat>`
 * columns), computed as `lerobot/datasets/compute_stats.py` computes them: per episode min, max, mean,
 * std (population), count and the quantiles q01, q10, q50, q90, q99 of a 5000-bin histogram between the
 * episode's min and max (`RunningQuantileStats`, linear within a bin); over the dataset `aggregate_stats`:
 * count-weighted mean and pooled variance, and for quantiles the envelope of the episodes' (the lowest
 * for q ≤ 50, the highest above). Camera frames: per channel, over LeRobot's sample of an episode's
 * frames (`sample_indices`, `auto_downsample_height_width`), divided by 255, shaped (3, 1, 1).
 */

export const QUANTILES = [0.01, 0.1, 0.5, 0.9, 0.99] as const;
export const QUANTILE_KEYS = ['q01', 'q10', 'q50', 'q90', 'q99'] as const;
const BINS = 5000;

export interface FeatureStats {
  min: number[];
  max: number[];
  mean: number[];
  std: number[];
  count: number[];
  q01: number[];
  q10: number[];
  q50: number[];
  q90: number[];
  q99: number[];
}

/**
 * The quantiles of one dimension as `RunningQuantileStats` estimates them from a single batch: `levels[k]`
 * seen `weights[k]` times (weights 1 for raw values), binned into 5000 bins over [min − 1e-10, max + 1e-10].
 */
export function histogramQuantiles(levels: ArrayLike<number>, weights: ArrayLike<number> | null): number[] {
  let min = Infinity;
  let max = -Infinity;
  let count = 0;
  for (let k = 0; k < levels.length; k++) {
    if ((weights?.[k] ?? 1) === 0) continue;
    min = Math.min(min, levels[k]!);
    max = Math.max(max, levels[k]!);
    count += weights?.[k] ?? 1;
  }
  const lo = min - 1e-10;
  const width = (max + 1e-10 - lo) / BINS;
  const edge = (i: number) => lo + i * width;
  const hist = new Float64Array(BINS);
  for (let k = 0; k < levels.length; k++) {
    const w = weights?.[k] ?? 1;
    if (w === 0) continue;
    // np.histogram: bin i holds [edge i, edge i+1); the last bin also its right edge.
    const bin = Math.min(BINS - 1, Math.max(0, Math.floor((levels[k]! - lo) / width)));
    hist[bin]! += w;
  }
  const cumsum = new Float64Array(BINS);
  let run = 0;
  hist.forEach((h, i) => {
    run += h;
    cumsum[i] = run;
  });
  return QUANTILES.map((q) => {
    const target = q * count;
    let idx = 0; // np.searchsorted(cumsum, target), side left
    while (idx < BINS && cumsum[idx]! < target) idx++;
    if (idx === 0) return edge(0);
    if (idx >= BINS) return edge(BINS);
    const before = cumsum[idx - 1]!;
    const inBin = cumsum[idx]! - before;
    if (inBin === 0) return edge(idx);
    return edge(idx) + ((target - before) / inBin) * width;
  });
}

/** One episode's statistics of `rows` rows of `dim` values (row-major). */
export function episodeStats(values: ArrayLike<number>, dim: number): FeatureStats {
  const rows = values.length / dim;
  const column = (i: number) => Float64Array.from({ length: rows }, (_, r) => values[r * dim + i]!);
  const perDim = Array.from({ length: dim }, (_, i) => {
    const v = column(i);
    const mean = v.reduce((a, b) => a + b, 0) / rows;
    const variance = v.reduce((a, b) => a + b * b, 0) / rows - mean * mean;
    const q = rows < 2 ? QUANTILES.map(() => mean) : histogramQuantiles(v, null);
    return { min: Math.min(...v), max: Math.max(...v), mean, std: Math.sqrt(Math.max(0, variance)), q };
  });
  return assemble(perDim, rows);
}

function assemble(
  perDim: { min: number; max: number; mean: number; std: number; q: number[] }[],
  count: number,
): FeatureStats {
  const pick = (f: (d: (typeof perDim)[number]) => number) => perDim.map(f);
  const out: FeatureStats = {
    min: pick((d) => d.min),
    max: pick((d) => d.max),
    mean: pick((d) => d.mean),
    std: pick((d) => d.std),
    count: [count],
    q01: [],
    q10: [],
    q50: [],
    q90: [],
    q99: [],
  };
  QUANTILE_KEYS.forEach((key, k) => {
    out[key] = pick((d) => d.q[k]!);
  });
  return out;
}

/** `sample_indices`: which frames of an episode of `n` LeRobot samples for image statistics. */
export function sampledFrames(n: number): number[] {
  const wanted = n < 100 ? n : Math.max(100, Math.min(Math.floor(n ** 0.75), 10_000));
  if (wanted <= 1) return n > 0 ? [0] : [];
  return Array.from({ length: wanted }, (_, i) => roundHalfEven((i * (n - 1)) / (wanted - 1)));
}

/** numpy's round: halves to even. */
function roundHalfEven(x: number): number {
  const r = Math.round(x);
  return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/**
 * Image statistics of one episode's RGB frames (`height × width × 3` bytes each), as `compute_episode_stats`:
 * LeRobot's sample of frames, every k-th pixel when a side is 300 or more, per channel, divided by 255.
 */
export function imageStats(frames: Uint8Array, width: number, height: number): FeatureStats {
  const n = frames.length / (width * height * 3);
  const sample = sampledFrames(n);
  const factor = Math.max(width, height) < 300 ? 1 : Math.floor((width > height ? width : height) / 150);
  const counts = Array.from({ length: 3 }, () => new Float64Array(256));
  for (const f of sample) {
    for (let y = 0; y < height; y += factor) {
      for (let x = 0; x < width; x += factor) {
        const p = ((f * height + y) * width + x) * 3;
        for (let c = 0; c < 3; c++) counts[c]![frames[p + c]!]!++;
      }
    }
  }
  const levels = Float64Array.from({ length: 256 }, (_, v) => v);
  const perDim = counts.map((w) => {
    let total = 0;
    let sum = 0;
    let squares = 0;
    let min = 255;
    let max = 0;
    w.forEach((c, v) => {
      if (c === 0) return;
      total += c;
      sum += c * v;
      squares += c * v * v;
      min = Math.min(min, v);
      max = Math.max(max, v);
    });
    const mean = sum / total;
    const std = Math.sqrt(Math.max(0, squares / total - mean * mean));
    const q = total < 2 ? QUANTILES.map(() => mean) : histogramQuantiles(levels, w);
    return { min: min / 255, max: max / 255, mean: mean / 255, std: std / 255, q: q.map((v) => v / 255) };
  });
  return assemble(perDim, sample.length);
}

/** `aggregate_stats` over episodes: weighted mean, pooled variance, min/max, quantile envelopes. */
export function aggregateStats(list: readonly FeatureStats[]): FeatureStats {
  const dim = list[0]!.mean.length;
  const total = list.reduce((n, s) => n + s.count[0]!, 0);
  const perDim = Array.from({ length: dim }, (_, i) => {
    const mean = list.reduce((a, s) => a + s.mean[i]! * s.count[0]!, 0) / total;
    const variance = list.reduce((a, s) => a + (s.std[i]! ** 2 + (s.mean[i]! - mean) ** 2) * s.count[0]!, 0) / total;
    const q = QUANTILE_KEYS.map((key, k) => {
      const values = list.map((s) => s[key][i]!);
      return QUANTILES[k]! <= 0.5 ? Math.min(...values) : Math.max(...values);
    });
    return {
      min: Math.min(...list.map((s) => s.min[i]!)),
      max: Math.max(...list.map((s) => s.max[i]!)),
      mean,
      std: Math.sqrt(variance),
      q,
    };
  });
  return assemble(perDim, total);
}

/** Camera statistics in LeRobot's (3, 1, 1) nesting. */
export function channelShaped(stats: FeatureStats): Record<keyof FeatureStats, unknown> {
  const nest = (v: number[]) => v.map((x) => [[x]]);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(stats)) out[key] = key === 'count' ? value : nest(value);
  return out as Record<keyof FeatureStats, unknown>;
}
