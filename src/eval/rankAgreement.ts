/**
 * Does the world model rank a group's rollouts the way the real outcomes do? GRPO uses only
 * the order of scores within a group, so this within-group AUC is the number that says whether
 * imagined advantages point the right way: 1 = every success scored above every failure of its
 * group, 0.5 = no information, below 0.5 = imagined advantages push towards failure.
 */
import { auroc } from '../worldmodel/metrics.ts';

export interface RankAgreement {
  /** Within-group AUC over the (success, failure) pairs; null without a group of mixed outcomes. */
  auc: number | null;
  /** (success, failure) pairs compared, for pooling over steps: Σ auc·pairs / Σ pairs. */
  pairs: number;
}

/** Scores and 0/1 outcomes, group-major in groups of `groupSize`; ties count one half. */
export function groupRankAgreement(
  scores: ArrayLike<number>,
  outcomes: ArrayLike<number>,
  groupSize: number,
): RankAgreement {
  if (scores.length !== outcomes.length || scores.length % groupSize !== 0) {
    throw new Error(
      `rank agreement: ${scores.length} scores and ${outcomes.length} outcomes in groups of ${groupSize}`,
    );
  }
  // Each group's AUROC counts its (success, failure) pairs; pooling weighs groups by those pairs.
  let concordant = 0;
  let pairs = 0;
  for (let g = 0; g < scores.length; g += groupSize) {
    const slice = (a: ArrayLike<number>) => Array.from({ length: groupSize }, (_, i) => a[g + i]!);
    const y = slice(outcomes);
    const successes = y.filter((v) => v === 1).length;
    const groupPairs = successes * (groupSize - successes);
    if (groupPairs === 0) continue;
    concordant += auroc(slice(scores), y) * groupPairs;
    pairs += groupPairs;
  }
  return { auc: pairs > 0 ? concordant / pairs : null, pairs };
}
