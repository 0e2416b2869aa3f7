/**
 * The GRPO policy update: epochs of shuffled minibatches, each an Adam step on ppoLoss (PPO's
 * clipped surrogate plus a KL penalty to the behaviour-cloned reference). Only the action head's
 * side of the policy learns (see VlaPolicy.rlVariables): the perception stays as the world
 * model was trained on it.
 */
import type * as tf from '@tensorflow/tfjs';
import type { Rng } from '../../core/rng.ts';
import type { VlaPolicy } from '../../policy/vlaPolicy.ts';
import { ppoLoss } from './ppoLoss.ts';
import { disposeSampleBatch, sampleBatch, type PolicySamples, updateFeatures } from './policySamples.ts';

export interface PpoOptions {
  epochs: number;
  minibatches: number;
  clip: number;
  klCoef: number;
}

export interface PpoStats {
  loss: number;
  /** Mean KL(π ‖ π_ref) over the last epoch's batches. */
  kl: number;
  /** Fraction of rows whose ratio was clipped (last epoch). */
  clipFraction: number;
  updates: number;
}

export async function ppoUpdate(
  policy: VlaPolicy,
  reference: VlaPolicy,
  optimizer: tf.Optimizer,
  samples: PolicySamples,
  options: PpoOptions,
  rng: Rng,
): Promise<PpoStats> {
  const vars = policy.rlVariables();
  const order = Array.from({ length: samples.count }, (_, i) => i);
  const B = Math.max(1, Math.floor(samples.count / options.minibatches));
  const fixed = updateFeatures(policy, reference, samples);
  let stats: PpoStats = { loss: 0, kl: 0, clipFraction: 0, updates: 0 };
  for (let epoch = 0; epoch < options.epochs; epoch++) {
    rng.shuffle(order);
    const sums = { loss: 0, kl: 0, clip: 0, batches: 0 };
    for (let s = 0; s + B <= order.length; s += B) {
      const b = sampleBatch(samples, order.slice(s, s + B), fixed);
      try {
        let kl = 0;
        let clipped = 0;
        const loss = optimizer.minimize(
          () => {
            const mean = policy.mean(b.input);
            const terms = ppoLoss(
              {
                actions: b.actions,
                ...(b.actionMask ? { actionMask: b.actionMask } : {}),
                mean,
                logStd: policy.logStd,
                oldLogProb: b.oldLogProb,
                advantage: b.advantage,
                weight: b.weight,
                // A constant to the gradient, computed once for the step.
                referenceMean: b.referenceMean!,
                referenceLogStd: reference.logStd,
              },
              options,
            );
            kl = terms.kl.dataSync()[0]!;
            clipped = terms.clipFraction.dataSync()[0]!;
            return terms.loss;
          },
          true,
          vars,
        )!;
        sums.loss += (await loss.data())[0]!;
        loss.dispose();
        sums.kl += kl;
        sums.clip += clipped;
        sums.batches++;
        stats.updates++;
      } finally {
        disposeSampleBatch(b);
      }
    }
    if (sums.batches)
      stats = {
        ...stats,
        loss: sums.loss / sums.batches,
        kl: sums.kl / sums.batches,
        clipFraction: sums.clip / sums.batches,
      };
  }
  return stats;
}
