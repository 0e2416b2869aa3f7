/**
 * Does the world model rank a group's rollouts the way the real outcomes do? GRPO uses only
 * the order of scores within a group, so this within-group AUC is the number that says whether
 * imagined advantages point the right way: 1 = every success scored above every failure of its
 * group, 0.5 = no information, below 0.5 = imagined advantages push towards failure.
 */
export interface RankAgreement {
  /** Within-group AUC over the (success, failure) pairs; null without a group of mixed outcomes. */
  auc: number | null;
  /** (success, failure) pairs compared, for pooling over steps: Σ auc·pairs / Σ pairs. */
  pairs: number;
}

/** Scores and 0/1 outcomes, group-major in groups of `groupSize`; ties count one half. */
export function groupRankAgreement(scores: ArrayLike<number>, outcomes: ArrayLike<number>, groupSize: number): RankAgreement {
  if (scores.length !== outcomes.length || scores.length % groupSize !== 0) {
    throw new Error(`rank agreement: ${scores.length} scores and ${outcomes.length} outcomes in groups of ${groupSize}`);
  }
  let concordant = 0;
  let pairs = 0;
  for (let g = 0; g < scores.length; g += groupSize) {
    for (let i = g; i < g + groupSize; i++) {
      if (outcomes[i]! < 0.5) continue;
      for (let j = g; j < g + groupSize; j++) {
        if (outcomes[j]! >= 0.5) continue;
        concordant += scores[i]! > scores[j]! ? 1 : scores[i] === scores[j] ? 0.5 : 0;
        pairs++;
      }
    }
  }
  return { auc: pairs > 0 ? concordant / pairs : null, pairs };
}
