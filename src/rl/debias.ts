/**
 * Online debiasing of imagined scores, by the run's chosen correction: the pooled isotonic map
 * (src/rl/isotonicCalibrator.ts) or the contextual one (src/rl/contextualCorrection.ts), whose
 * features are each rollout's task context and the mean of the actions it was imagined with.
 */
import type { ImaginationStarts } from '../worldmodel/imagine.ts';
import type { ImaginedGroups } from './imaginedGroups.ts';
import type { Trainer } from './trainer.ts';

/** The debiased scores of imagined groups (their own scores when the run does not debias). */
export function debiasedScores(t: Trainer, out: ImaginedGroups, starts: ImaginationStarts): Float32Array {
  return debiasStored(t, out.score, correctionFeatures(t, out, starts));
}

/** The features the run's correction reads per rollout: rolloutFeatures for the contextual map, none otherwise. */
export function correctionFeatures(t: Trainer, out: ImaginedGroups, starts: ImaginationStarts): Float32Array {
  return t.method.debias && t.method.debiasMap === 'contextual'
    ? rolloutFeatures(out, starts, t.config.rolloutsPerGroup)
    : new Float32Array(0);
}

/** Raw scores debiased by the run's correction as it is now, with their correctionFeatures. */
export function debiasStored(t: Trainer, scores: ArrayLike<number>, features: ArrayLike<number>): Float32Array {
  const { method, learning } = t;
  if (!method.debias) return Float32Array.from(scores);
  if (method.debiasMap === 'contextual') return learning.contextual.mapAll(features, scores);
  return learning.calibrator.mapAll(scores);
}

/** Anchor pairs (imagined score, real outcome) enter the corrections, after the step's scores were debiased. */
export function addAnchorPairs(
  t: Trainer,
  out: ImaginedGroups,
  starts: ImaginationStarts,
  outcomes: Float32Array,
): void {
  t.learning.calibrator.add(out.score, outcomes);
  if (t.method.debiasMap === 'contextual') {
    t.learning.contextual.add(rolloutFeatures(out, starts, t.config.rolloutsPerGroup), out.score, outcomes);
  }
}

/** Per rollout (group-major): its group's task context, then the mean action over the steps it acted in. */
export function rolloutFeatures(out: ImaginedGroups, starts: ImaginationStarts, rollouts: number): Float32Array {
  const B = out.score.length;
  const A = out.samples.actionDim;
  const C = starts.context.length / starts.instructions.length;
  const width = C + A;
  const sums = new Float64Array(B * A);
  const counts = new Float64Array(B);
  for (let row = 0; row < out.samples.count; row++) {
    const b = out.rolloutOf[row]!;
    counts[b]!++;
    for (let j = 0; j < A; j++) sums[b * A + j]! += out.samples.actions[row * A + j]!;
  }
  const features = new Float32Array(B * width);
  for (let b = 0; b < B; b++) {
    const g = Math.floor(b / rollouts);
    features.set(starts.context.subarray(g * C, (g + 1) * C), b * width);
    for (let j = 0; j < A; j++) features[b * width + C + j] = counts[b]! > 0 ? sums[b * A + j]! / counts[b]! : 0;
  }
  return features;
}
