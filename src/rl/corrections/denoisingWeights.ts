/**
 * Inverse-variance denoising (docs/design.md, inverse-variance denoising), both forms.
 *
 * Anchor groups (the paper): their advantages are multiplied by w = clip(1 + c·s², 1, 4). s²
 * is a moving average (half-life 64 groups) of mean[((d − d̄) − (y − ȳ))²] / Var(y) over anchor
 * groups — how far the calibrated world-model scores d deviate from the true scores y after
 * removing each group's mean, relative to the spread of y. c is fixed once 32 groups have been
 * seen, so that w = 2 at that point. Groups whose true scores are all equal are skipped.
 *
 * Imagined rollouts (this project): weights ∝ 1/(σ² + σ₀²) of each rollout's ensemble score
 * variance, normalised to mean 1 over the batch.
 */
export interface AnchorWeightOptions {
  halfLife: number;
  /** Anchor groups observed before c is fixed. */
  calibrationGroups: number;
  maxWeight: number;
}

export const PAPER_ANCHOR_WEIGHT: AnchorWeightOptions = { halfLife: 64, calibrationGroups: 32, maxWeight: 4 };

export interface AnchorWeightState {
  options: AnchorWeightOptions;
  /** Moving average of the normalised residual s² (NaN before the first group). */
  s2: number;
  groups: number;
  /** Fixed scale, undefined until `calibrationGroups` groups were seen. */
  c?: number;
}

export class AnchorWeight {
  readonly options: AnchorWeightOptions;
  #s2 = Number.NaN;
  #groups = 0;
  #c: number | undefined;

  constructor(options: AnchorWeightOptions = PAPER_ANCHOR_WEIGHT) {
    this.options = options;
  }

  get s2(): number {
    return this.#s2;
  }

  get groups(): number {
    return this.#groups;
  }

  get c(): number | undefined {
    return this.#c;
  }

  /** Record one anchor group: calibrated world-model scores d and true scores y of its rollouts. */
  observe(d: ArrayLike<number>, y: ArrayLike<number>): void {
    const residual = normalisedResidual(d, y);
    if (residual === undefined) return;
    const decay = 0.5 ** (1 / this.options.halfLife);
    this.#s2 = Number.isNaN(this.#s2) ? residual : decay * this.#s2 + (1 - decay) * residual;
    this.#groups++;
    if (this.#c === undefined && this.#groups >= this.options.calibrationGroups && this.#s2 > 0) this.#c = 1 / this.#s2;
  }

  /** A copy that has also observed `groups` (calibrated scores d, true scores y each); this one is left as it is. */
  observed(groups: { d: ArrayLike<number>; y: ArrayLike<number> }[]): AnchorWeight {
    const next = AnchorWeight.fromJSON(this.toJSON());
    for (const { d, y } of groups) next.observe(d, y);
    return next;
  }

  /** The current anchor advantage multiplier (1 until c is fixed). */
  get weight(): number {
    if (this.#c === undefined) return 1;
    return Math.min(this.options.maxWeight, Math.max(1, 1 + this.#c * this.#s2));
  }

  toJSON(): AnchorWeightState {
    return {
      options: this.options,
      s2: this.#s2,
      groups: this.#groups,
      ...(this.#c === undefined ? {} : { c: this.#c }),
    };
  }

  static fromJSON(state: AnchorWeightState): AnchorWeight {
    const w = new AnchorWeight(state.options);
    w.#s2 = state.s2 ?? Number.NaN;
    w.#groups = state.groups;
    w.#c = state.c;
    return w;
  }
}

/** mean[((d − d̄) − (y − ȳ))²] / Var(y); undefined when y is constant. */
export function normalisedResidual(d: ArrayLike<number>, y: ArrayLike<number>): number | undefined {
  const n = y.length;
  if (d.length !== n || n === 0) throw new Error(`anchor group: ${d.length} scores but ${n} outcomes`);
  let dm = 0;
  let ym = 0;
  for (let i = 0; i < n; i++) {
    dm += d[i]! / n;
    ym += y[i]! / n;
  }
  let varY = 0;
  let res = 0;
  for (let i = 0; i < n; i++) {
    varY += (y[i]! - ym) ** 2;
    res += (d[i]! - dm - (y[i]! - ym)) ** 2;
  }
  varY /= n;
  if (varY < 1e-12) return undefined;
  return res / n / varY;
}

/** Per-rollout weights ∝ 1/(σ² + σ₀²), normalised to mean 1. */
export function ensembleWeights(variances: ArrayLike<number>, sigma0Squared: number): Float32Array {
  if (!(sigma0Squared > 0)) throw new Error(`σ₀² must be positive, got ${sigma0Squared}`);
  const raw = Float32Array.from(variances, (v) => 1 / (Math.max(0, v) + sigma0Squared));
  const mean = raw.reduce((s, v) => s + v, 0) / raw.length;
  return raw.map((v) => v / mean);
}
