/**
 * A step's sample weights (step 5 of trainStep.ts): GRPO advantages within each group, the imagined ones from
 * debiased and penalised scores times the per-rollout ensemble weights, the real ones times the anchor weight;
 * imagined samples weigh λ each against a real one.
 */
import type { AnchorWeight } from '../corrections/denoisingWeights.ts';
import { ensembleWeights } from '../corrections/denoisingWeights.ts';
import { groupAdvantages } from './groupAdvantages.ts';
import type { ImaginedGroups } from './imaginedGroups.ts';
import type { Method } from '../config/method.ts';
import { concatSamples, type PolicySamples } from './policySamples.ts';
import type { RealGroups } from './realGroups.ts';
import { penalisedScores } from './uncertaintyPenalty.ts';
import type { WmrlConfig } from '../config/wmrlConfig.ts';

/** The anchor weight once it has observed this step's anchor groups (calibrated scores against outcomes). */
export function observedAnchorWeight(
  current: AnchorWeight,
  calibrated: Float32Array,
  outcomes: Float32Array,
  M: number,
) {
  const groups = Array.from({ length: outcomes.length / M }, (_, g) => ({
    d: calibrated.subarray(g * M, (g + 1) * M),
    y: outcomes.subarray(g * M, (g + 1) * M),
  }));
  return current.observed(groups);
}

/** Advantages and sample weights. */
export interface Weighted {
  /** Null when nothing is left to learn from (every group was an anchor, and none was labelled). */
  samples: PolicySamples | null;
  ensembleWeight?: Float32Array;
  lambda: number | null;
  /** The weight the anchors' advantages were multiplied by (1 in an update without imagined samples). */
  anchorWeight: number;
}

/** The step's samples, their advantages and weights (the imagined groups' rollouts `imagined`). */
export function weight(
  config: WmrlConfig,
  method: Method,
  imagined: ImaginedGroups | undefined,
  calibrated: Float32Array | undefined,
  real: RealGroups | undefined,
  anchorWeight: AnchorWeight,
): Weighted {
  const M = config.rolloutsPerGroup;
  const parts: PolicySamples[] = [];
  let ensembleW: Float32Array | undefined;
  if (imagined) {
    const scores = penalisedScores(calibrated!, imagined.variance, config.uncertaintyPenalty);
    let advantage = groupAdvantages(scores, M);
    if (method.ensembleWeight) {
      const w = ensembleWeights(imagined.variance, config.sigma0Squared);
      advantage = advantage.map((a, i) => a * w[i]!);
      ensembleW = w;
    }
    setAdvantages(imagined.samples, imagined.rolloutOf, advantage);
  }
  // Imagined samples weigh λ each against a real one (every ensemble member's copy of a rollout
  // 1/K of that); at λ = 0 they are left out.
  const lambda = imagined ? method.imaginedWeight : null;
  const withImagined = imagined !== undefined && lambda! > 0;
  const applied = appliedAnchorWeight(method.anchorWeight ? anchorWeight.weight : 1, lambda);
  if (real) {
    setAdvantages(
      real.samples,
      real.rolloutOf,
      groupAdvantages(real.outcomes, M).map((a) => a * applied),
    );
    parts.push(real.samples);
  }
  if (withImagined) {
    imagined.samples.weight.fill(lambda! / imagined.members);
    parts.unshift(imagined.samples);
  }
  return {
    samples: parts.length > 0 ? concatSamples(parts) : null,
    ...(ensembleW ? { ensembleWeight: ensembleW } : {}),
    lambda,
    anchorWeight: applied,
  };
}

/**
 * The multiplier of the anchors' advantages: the learned anchor weight when imagined samples are in
 * the update (λ > 0), else 1. The weight balances real against imagined samples; in an update of
 * anchors alone it would only scale the step.
 */
export function appliedAnchorWeight(learned: number, lambda: number | null): number {
  return lambda !== null && lambda > 0 ? learned : 1;
}

/** Every policy-gradient row gets its rollout's advantage. */
function setAdvantages(samples: PolicySamples, rolloutOf: Int32Array, advantage: Float32Array): void {
  for (let r = 0; r < samples.count; r++) samples.advantage[r] = advantage[rolloutOf[r]!]!;
}
