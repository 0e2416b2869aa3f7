/**
 * Two post-training runs compared the two ways that are fair to both: at equal robot time (each
 * arm's held-out success once both have spent the cheaper arm's budget) and at equal success (the
 * robot time the reference arm needed to reach the other's final success). Every evaluation
 * plays the same planned episodes, so success rates are compared per episode (paired).
 */
import { type CurvePoint, successAt, timeToReach } from './learningCurves.ts';
import { pairedDifference } from './proportion.ts';

/** One held-out evaluation of a run: where on its robot-time axis, and each episode's outcome. */
export interface EvaluatedPoint extends CurvePoint {
  step: number;
  /** 1 or 0 per evaluation episode, the same episodes in every evaluation. */
  outcomes: number[];
}

export interface Interval {
  difference: number;
  low: number;
  high: number;
  episodes: number;
}

export interface RobotTimeComparison {
  /** The candidate's budget: its robot time at its last evaluation. */
  budgetSeconds: number;
  candidateFinal: EvaluatedPoint;
  /** The reference at the candidate's budget, interpolated between its evaluations (null: it ended earlier). */
  referenceAtBudget: number | null;
  /**
   * The reference's first evaluation at or beyond the budget (it has spent at least as much
   * robot time), and the paired difference candidate − reference there; null if it never got there.
   */
  equalTime: { reference: EvaluatedPoint; difference: Interval } | null;
  /** Robot time the reference needed to reach the candidate's final success (null: never within its runs). */
  referenceSecondsToCandidateFinal: number | null;
  /** The candidate's gain over the shared start (its first evaluation), paired. */
  candidateGain: Interval;
  /** The reference's gain at its last evaluation, paired. */
  referenceGain: Interval;
}

export function compareAtRobotTime(candidate: EvaluatedPoint[], reference: EvaluatedPoint[]): RobotTimeComparison {
  if (candidate.length < 2 || reference.length < 2)
    throw new Error('comparison: each run needs a start and at least one later evaluation');
  const start = candidate[0]!;
  const final = candidate.at(-1)!;
  const budget = final.robotSeconds;
  const atOrBeyond = reference.find((p) => p.robotSeconds >= budget - 1e-9);
  return {
    budgetSeconds: budget,
    candidateFinal: final,
    referenceAtBudget: successAt(reference, budget),
    equalTime: atOrBeyond
      ? { reference: atOrBeyond, difference: pairedDifference(final.outcomes, atOrBeyond.outcomes) }
      : null,
    referenceSecondsToCandidateFinal: timeToReach(reference, final.success),
    candidateGain: pairedDifference(final.outcomes, start.outcomes),
    referenceGain: pairedDifference(reference.at(-1)!.outcomes, reference[0]!.outcomes),
  };
}
