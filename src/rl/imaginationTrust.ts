/**
 * How much the imagined gradient counts against the real one (this project's fusion, beside the
 * paper's anchor weight). Every anchor group is also imagined with the exploration noise it is
 * executed with, so its imagined scores and real outcomes belong to the same rollouts. Their
 * within-group AUC, a moving average over anchor groups, says whether imagination orders a
 * group's rollouts as reality does — the only thing GRPO takes from it. Each imagined sample then
 * weighs λ = clip(2·AUC − 1, 0, 1) of a real one: a model that ranks at chance adds nothing (its
 * advantages would be pure noise, of unbounded variance relative to their signal), a perfect one
 * counts fully. Prior pairs at AUC 0.5 hold λ near 0 until the anchors have shown otherwise.
 *
 * With `confidence` z > 0, λ uses the AUC's lower bound, AUC − z·se, se from the spread of the
 * groups' AUCs over their effective number. λ is per sample and a step imagines many more rollouts
 * than it executes (31 groups to 1 in the quickstart), so even λ ≈ 0.1 lets imagination outweigh
 * the anchors; on pick a moving AUC of 0.55–0.6 from a few anchor pairs a step was within its
 * noise of chance and, so weighted, unlearned the clone (docs/benchmarks.md, pick).
 */
import { groupRankAgreement } from '../eval/rankAgreement.ts';

export interface TrustOptions {
  /** Half-life of the moving average, in anchor groups that had both outcomes. */
  halfLife: number;
  /** Pseudo (success, failure) pairs at AUC 0.5 added to the evidence. */
  priorPairs: number;
  /** z of the AUC's lower bound λ is taken from (0: the moving AUC itself). */
  confidence?: number;
}

export interface TrustState {
  options: TrustOptions;
  /** Decayed sums of concordant pairs (ties one half) and of pairs. */
  concordant: number;
  pairs: number;
  groups: number;
  /** Decayed Σ w·AUC² and Σ w² over the groups (w: a group's decayed pairs), for the bound's se. */
  squares?: number;
  pairsSquared?: number;
}

export class ImaginationTrust {
  readonly options: TrustOptions;
  #concordant = 0;
  #pairs = 0;
  #groups = 0;
  #squares = 0;
  #pairsSquared = 0;

  constructor(options: TrustOptions) {
    if (!(options.halfLife > 0) || !(options.priorPairs >= 0) || !((options.confidence ?? 0) >= 0))
      throw new Error(
        `trust: halfLife must be positive, priorPairs and confidence non-negative, got ${JSON.stringify(options)}`,
      );
    this.options = options;
  }

  /** Record anchor groups (group-major, `groupSize` rollouts each): paired imagined scores and real 0/1 outcomes. */
  observe(scores: ArrayLike<number>, outcomes: ArrayLike<number>, groupSize: number): void {
    const decay = 0.5 ** (1 / this.options.halfLife);
    for (let g = 0; g < scores.length; g += groupSize) {
      const slice = (a: ArrayLike<number>) => Array.from({ length: groupSize }, (_, i) => a[g + i]!);
      const { auc, pairs } = groupRankAgreement(slice(scores), slice(outcomes), groupSize);
      if (auc === null) continue;
      this.#concordant = decay * this.#concordant + auc * pairs;
      this.#pairs = decay * this.#pairs + pairs;
      this.#squares = decay * this.#squares + auc * auc * pairs;
      this.#pairsSquared = decay * decay * this.#pairsSquared + pairs * pairs;
      this.#groups++;
    }
  }

  /** The moving within-group AUC, shrunk towards 0.5 by the prior pairs. */
  get auc(): number {
    const prior = this.options.priorPairs;
    const pairs = this.#pairs + prior;
    return pairs > 0 ? (this.#concordant + 0.5 * prior) / pairs : 0.5;
  }

  /**
   * The moving AUC's standard error: the pair-weighted variance of the groups' AUCs over their
   * effective number (Σw)²/Σw²; infinite before two groups.
   */
  get standardError(): number {
    if (this.#groups < 2 || this.#pairs <= 0) return Number.POSITIVE_INFINITY;
    const mean = this.#concordant / this.#pairs;
    const variance = Math.max(0, this.#squares / this.#pairs - mean * mean);
    return Math.sqrt(variance / ((this.#pairs * this.#pairs) / this.#pairsSquared));
  }

  /** λ: the weight of one imagined sample relative to one real sample. */
  get weight(): number {
    const z = this.options.confidence ?? 0;
    const auc = z > 0 ? this.auc - z * this.standardError : this.auc;
    return Math.min(1, Math.max(0, 2 * auc - 1));
  }

  get groups(): number {
    return this.#groups;
  }

  toJSON(): TrustState {
    return {
      options: this.options,
      concordant: this.#concordant,
      pairs: this.#pairs,
      groups: this.#groups,
      squares: this.#squares,
      pairsSquared: this.#pairsSquared,
    };
  }

  static fromJSON(state: TrustState): ImaginationTrust {
    const t = new ImaginationTrust(state.options);
    t.#concordant = state.concordant;
    t.#pairs = state.pairs;
    t.#groups = state.groups;
    // A checkpoint from before the bound kept no squares; its runs had no confidence to use them.
    t.#squares = state.squares ?? 0;
    t.#pairsSquared = state.pairsSquared ?? 0;
    return t;
  }
}
