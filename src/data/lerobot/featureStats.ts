/**
 * LeRobot's feature statistics (`meta/stats.json`, and v3.0's per-episode `stats/<feature>/<stat>`
 * columns): min, max, mean, std (population) and count per dimension; camera frames per channel in
 * [0, 1], shaped (3, 1, 1) as LeRobot's `compute_episode_stats` keeps them.
 */

export interface FeatureStats {
  min: number[];
  max: number[];
  mean: number[];
  std: number[];
  count: number[];
}

/** Running sums over rows of `dim` values. Sums in float64; fine for datasets of wmrl's size. */
export class StatsAccumulator {
  readonly #min: Float64Array;
  readonly #max: Float64Array;
  readonly #sum: Float64Array;
  readonly #sumSquares: Float64Array;
  #rows = 0;
  /** Pixels added by addFrames (its mean is over pixels, its count over frames). */
  #pixels = 0;

  constructor(readonly dim: number) {
    this.#min = new Float64Array(dim).fill(Infinity);
    this.#max = new Float64Array(dim).fill(-Infinity);
    this.#sum = new Float64Array(dim);
    this.#sumSquares = new Float64Array(dim);
  }

  /** Adds `rows` rows laid out row-major in `values`. */
  add(values: ArrayLike<number>, rows: number): void {
    const d = this.dim;
    for (let r = 0; r < rows; r++) {
      for (let i = 0; i < d; i++) {
        const v = values[r * d + i]!;
        if (v < this.#min[i]!) this.#min[i] = v;
        if (v > this.#max[i]!) this.#max[i] = v;
        this.#sum[i] = this.#sum[i]! + v;
        this.#sumSquares[i] = this.#sumSquares[i]! + v * v;
      }
    }
    this.#rows += rows;
  }

  /** Adds RGB frames (bytes), per channel in [0, 1]; counts frames, as LeRobot does. */
  addFrames(frames: Uint8Array, pixelsPerFrame: number): void {
    const n = frames.length / 3;
    for (let p = 0; p < n; p++) {
      for (let c = 0; c < 3; c++) {
        const v = frames[p * 3 + c]! / 255;
        if (v < this.#min[c]!) this.#min[c] = v;
        if (v > this.#max[c]!) this.#max[c] = v;
        this.#sum[c] = this.#sum[c]! + v;
        this.#sumSquares[c] = this.#sumSquares[c]! + v * v;
      }
    }
    this.#pixels += n;
    this.#rows += n / pixelsPerFrame;
  }

  stats(): FeatureStats {
    const n = this.#pixels > 0 ? this.#pixels : this.#rows;
    const mean = Array.from(this.#sum, (s) => (n ? s / n : 0));
    const std = Array.from(this.#sumSquares, (s, i) => (n ? Math.sqrt(Math.max(0, s / n - mean[i]! ** 2)) : 0));
    return { min: [...this.#min], max: [...this.#max], mean, std, count: [this.#rows] };
  }
}

/** Camera statistics in LeRobot's (3, 1, 1) nesting. */
export function channelShaped(stats: FeatureStats): Record<keyof FeatureStats, unknown> {
  const nest = (v: number[]) => v.map((x) => [[x]]);
  return {
    min: nest(stats.min),
    max: nest(stats.max),
    mean: nest(stats.mean),
    std: nest(stats.std),
    count: stats.count,
  };
}
