/**
 * The GRPO policy update: PPO's clipped surrogate on group-relative advantages, plus a KL
 * penalty that keeps the policy near the behaviour-cloned reference. Only the action head's
 * side of the policy learns (see VlaPolicy.rlVariables): the perception stays as the world
 * model was trained on it.
 */
import * as tf from '@tensorflow/tfjs';
import { Rng } from '../core/rng.ts';
import { gaussianKl, gaussianLogProb } from '../policy/gaussian.ts';
import type { VlaPolicy } from '../policy/vlaPolicy.ts';
import { disposeSampleBatch, sampleBatch, type PolicySamples } from './policySamples.ts';

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

export async function ppoUpdate(policy: VlaPolicy, reference: VlaPolicy, optimizer: tf.Optimizer, samples: PolicySamples, options: PpoOptions, rng: Rng): Promise<PpoStats> {
  const vars = policy.rlVariables();
  const order = Array.from({ length: samples.count }, (_, i) => i);
  const B = Math.max(1, Math.floor(samples.count / options.minibatches));
  let stats = { loss: 0, kl: 0, clipFraction: 0, updates: 0 };
  for (let epoch = 0; epoch < options.epochs; epoch++) {
    rng.shuffle(order);
    const sums = { loss: 0, kl: 0, clip: 0, batches: 0 };
    for (let s = 0; s + B <= order.length; s += B) {
      const b = sampleBatch(samples, order.slice(s, s + B));
      try {
        let kl = 0;
        let clipped = 0;
        const loss = optimizer.minimize(
          () => {
            const mean = policy.mean(b.input);
            const logProb = gaussianLogProb(b.actions, mean, policy.logStd);
            const ratio = tf.exp(tf.sub(logProb, b.oldLogProb));
            const surrogate = tf.minimum(tf.mul(ratio, b.advantage), tf.mul(tf.clipByValue(ratio, 1 - options.clip, 1 + options.clip), b.advantage));
            const klRows = gaussianKl(mean, policy.logStd, tf.tidy(() => reference.mean(b.input)), reference.logStd);
            // Weighted means: an imagined rollout's K member copies count as one real rollout in both terms.
            const total = tf.sum(b.weight);
            const weighted = (x: tf.Tensor) => tf.div(tf.sum(tf.mul(x, b.weight)), total);
            const klMean = weighted(klRows);
            kl = klMean.dataSync()[0]!;
            clipped = weighted(tf.cast(tf.greater(tf.abs(tf.sub(ratio, 1)), options.clip), 'float32')).dataSync()[0]!;
            return tf.add(tf.neg(weighted(surrogate)), tf.mul(options.klCoef, klMean)) as tf.Scalar;
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
    if (sums.batches) stats = { ...stats, loss: sums.loss / sums.batches, kl: sums.kl / sums.batches, clipFraction: sums.clip / sums.batches };
  }
  return stats;
}
