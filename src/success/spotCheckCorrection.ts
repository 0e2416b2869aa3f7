/**
 * The detector's bias, corrected on operator spot checks, prediction-powered (Angelopoulos et al.
 * 2023, as src/eval/ppiEstimate.ts does for the world model's scores): spot checks are a uniformly
 * random share of anchor episodes, so over them the mean of `score − label` estimates the
 * detector's bias b on the anchors it scores; an episode's corrected probability is
 * clamp(score − b̂, 0, 1), and the anchors' success rate is θ̂ = mean score − b̂ with its interval.
 * Until `minChecks` spot checks exist the bias is taken as 0.
 *
 * Drift: the detector was fitted and thresholded on other episodes than the policy's current
 * ones. It is flagged when the spot checks show a bias whose 95% interval lies beyond ±tolerance,
 * or a decision error rate whose Wilson interval lies above the held-out one by more than
 * tolerance: the detector then no longer tells this policy's successes reliably (refit it on the
 * spot-checked episodes).
 */
import { wilsonInterval } from '../eval/proportion.ts';
import { ppiEstimate, type PpiEstimate } from '../eval/ppiEstimate.ts';

export interface SpotCheckOptions {
  /** Spot checks kept (newest): the bias of a detector on a changing policy drifts. */
  window: number;
  /** Below this many spot checks the bias is taken as 0 and no drift is flagged. */
  minChecks: number;
  /** Bias (and excess error rate) the detector may show before drift is flagged. */
  tolerance: number;
}

export interface SpotCheck {
  score: number;
  success: boolean;
  /** The checked episode's id: a check of an episode already counted is ignored (a resumed run meets it again). */
  episode?: string;
}

export interface DetectorDrift {
  drifted: boolean;
  /** Why, in words (empty when not drifted). */
  reasons: string[];
  bias: number;
  biasLower: number;
  biasUpper: number;
  errorRate: number;
  errorLower: number;
  checks: number;
}

const Z = 1.96;

export class SpotCheckCorrection {
  readonly options: SpotCheckOptions;
  /** The detector's decision threshold and its error rate on held-out episodes (the drift reference). */
  readonly threshold: number;
  readonly heldOutErrorRate: number;
  #checks: SpotCheck[] = [];
  /** Every episode counted so far, beyond the window too: one fallen out of it must not come back. */
  #counted = new Set<string>();

  constructor(options: SpotCheckOptions, detector: { threshold: number; heldOutErrorRate: number }) {
    this.options = options;
    this.threshold = detector.threshold;
    this.heldOutErrorRate = detector.heldOutErrorRate;
  }

  /** Counts `check`; returns false (and counts nothing) when its episode was counted before. */
  add(check: SpotCheck): boolean {
    if (check.episode !== undefined) {
      if (this.#counted.has(check.episode)) return false;
      this.#counted.add(check.episode);
    }
    this.#checks.push(check);
    if (this.#checks.length > this.options.window) this.#checks.splice(0, this.#checks.length - this.options.window);
    return true;
  }

  get checks(): readonly SpotCheck[] {
    return this.#checks;
  }

  /** b̂ = mean(score − label) over the spot checks (0 below minChecks). */
  bias(): number {
    const n = this.#checks.length;
    if (n < this.options.minChecks || n === 0) return 0;
    return this.#checks.reduce((s, c) => s + c.score - (c.success ? 1 : 0), 0) / n;
  }

  corrected(score: number): number {
    return Math.min(1, Math.max(0, score - this.bias()));
  }

  /** The decision on a corrected probability. */
  decide(score: number): boolean {
    return this.corrected(score) >= this.threshold;
  }

  /** θ̂ of the success rate over `scores` (the detector's scores of anchor episodes); null below 2 checks. */
  estimate(scores: ArrayLike<number>): PpiEstimate | null {
    if (this.#checks.length < 2 || scores.length < 2) return null;
    return ppiEstimate(
      scores,
      this.#checks.map((c) => c.score),
      this.#checks.map((c) => (c.success ? 1 : 0)),
      Z,
    );
  }

  drift(): DetectorDrift {
    const n = this.#checks.length;
    const residuals = this.#checks.map((c) => c.score - (c.success ? 1 : 0));
    const bias = n ? residuals.reduce((s, r) => s + r, 0) / n : 0;
    const variance = n > 1 ? residuals.reduce((s, r) => s + (r - bias) ** 2, 0) / (n - 1) : 0;
    const half = n > 0 ? Z * Math.sqrt(variance / n) : Infinity;
    const errors = this.#checks.filter((c) => c.score >= this.threshold !== c.success).length;
    const wilson = wilsonInterval(errors, Math.max(1, n));
    const result: DetectorDrift = {
      drifted: false,
      reasons: [],
      bias,
      biasLower: bias - half,
      biasUpper: bias + half,
      errorRate: n ? errors / n : 0,
      errorLower: n ? wilson.low : 0,
      checks: n,
    };
    if (n < this.options.minChecks) return result;
    const tol = this.options.tolerance;
    if (result.biasLower > tol || result.biasUpper < -tol)
      result.reasons.push(
        `the detector's bias on ${n} spot checks is ${bias.toFixed(2)} ` +
          `[${result.biasLower.toFixed(2)}, ${result.biasUpper.toFixed(2)}], beyond ±${tol}`,
      );
    if (result.errorLower > this.heldOutErrorRate + tol)
      result.reasons.push(
        `its decisions disagree with the operator on ${errors} of ${n} spot checks ` +
          `(at least ${(100 * result.errorLower).toFixed(0)}%, held-out ${(100 * this.heldOutErrorRate).toFixed(0)}%)`,
      );
    result.drifted = result.reasons.length > 0;
    return result;
  }
}
