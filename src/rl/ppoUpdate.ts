/**
 * The GRPO policy update: epochs of shuffled minibatches, each an Adam step on ppoLoss (PPO's
 * clipped surrogate plus a KL penalty to the behaviour-cloned reference). Only the action head's
 * side of the policy learns (see VlaPolicy.rlVariables): the perception stays as the world
 * model was trained on it.
 */
import type * as tf from '@tensorflow/tfjs';
import type { Rng } from '../core/rng.ts';
import type { VlaPolicy } from '../policy/vlaPolicy.ts';
import { ppoLoss } from './ppoLoss.ts';
import { disposeSampleBatch, sampleBatch, type PolicySamples, updateFeatures } from './policySamples.ts';

export interface PpoOptions {
  epochs: number;
  minibatches: number;
  clip: number;
  klCoef: number;
  /** Adam's step for this update (absent: the optimizer's own). */
  learningRate?: number;
}

export interface PpoStats {
  loss: number;
  /** Mean KL(π ‖ π_ref) over the last epoch's batches. */
  kl: number;
  /** Fraction of rows whose ratio was clipped (last epoch). */
  clipFraction: number;
  updates: number;
  /** Adam's step the update was given (options.learningRate; null: none given, or no update). */
  learningRate: number | null;
}

export async function ppoUpdate(
  policy: VlaPolicy,
  reference: VlaPolicy,
  optimizer: tf.Optimizer,
  samples: PolicySamples,
  options: PpoOptions,
  rng: Rng,
): Promise<PpoStats> {
  if (options.learningRate !== undefined) setLearningRate(optimizer, options.learningRate);
  const vars = policy.rlVariables();
  const order = Array.from({ length: samples.count }, (_, i) => i);
  const B = Math.max(1, Math.floor(samples.count / options.minibatches));
  const fixed = updateFeatures(policy, reference, samples);
  let stats: PpoStats = { loss: 0, kl: 0, clipFraction: 0, updates: 0, learningRate: options.learningRate ?? null };
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

/**
 * The trainer's one optimizer keeps its moments when the rate changes (learningRateAfterStop). tfjs's
 * SGD and momentum cache the rate in a tensor and set it with setLearningRate; Adam, Adamax and RMSProp
 * read their (protected) learningRate on every step and have no setter.
 */
function setLearningRate(optimizer: tf.Optimizer, learningRate: number): void {
  const rated = optimizer as unknown as { learningRate?: unknown; setLearningRate?: (rate: number) => void };
  if (rated.learningRate === learningRate) return;
  if (typeof rated.setLearningRate === 'function') rated.setLearningRate(learningRate);
  else if (typeof rated.learningRate === 'number') rated.learningRate = learningRate;
  else throw new Error(`${optimizer.getClassName()} has no learning rate to set`);
}
