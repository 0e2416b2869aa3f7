/**
 * The GRPO policy loss on one minibatch: PPO's clipped surrogate on group-relative advantages,
 * plus a KL penalty to the behaviour-cloned reference,
 *   loss = −Σ wᵢ·min(ρᵢ·Aᵢ, clip(ρᵢ, 1 − ε, 1 + ε)·Aᵢ) / Σ wᵢ  +  β · Σ wᵢ·KLᵢ / Σ wᵢ,
 * with ρᵢ = π(aᵢ | sᵢ) / π_old(aᵢ | sᵢ) and KLᵢ = KL(π(·|sᵢ) ‖ π_ref(·|sᵢ)) for the diagonal
 * Gaussian policies. The row weights wᵢ make an imagined rollout's K ensemble-member copies count
 * as one real rollout (times λ) in both terms.
 */
import * as tf from '@tensorflow/tfjs';
import { gaussianKl, gaussianLogProb } from '../../policy/gaussian.ts';

export interface PpoLossInputs {
  /** The rows' actions, B × A. */
  actions: tf.Tensor2D;
  /** The policy's mean action and log standard deviation (differentiable). */
  mean: tf.Tensor2D;
  logStd: tf.Tensor;
  /**
   * Which action dims each row's log-probability (and so its ratio) counts, B × A of 0 and 1; absent: all.
   * oldLogProb must be of the same dims.
   */
  actionMask?: tf.Tensor2D;
  /** log π_old(aᵢ | sᵢ) under the policy that acted, B. */
  oldLogProb: tf.Tensor1D;
  advantage: tf.Tensor1D;
  /** Row weights wᵢ ≥ 0, not all 0. */
  weight: tf.Tensor1D;
  /** The reference policy's mean action and log standard deviation (constants). */
  referenceMean: tf.Tensor2D;
  referenceLogStd: tf.Tensor;
}

export interface PpoLossOptions {
  /** ε of the ratio clip. */
  clip: number;
  /** β of the KL penalty. */
  klCoef: number;
}

export interface PpoLoss {
  loss: tf.Scalar;
  /** The weighted mean KL (before β). */
  kl: tf.Scalar;
  /** Weighted share of rows whose ratio lies outside [1 − ε, 1 + ε]. */
  clipFraction: tf.Scalar;
}

export function ppoLoss(x: PpoLossInputs, options: PpoLossOptions): PpoLoss {
  // The order of the ops is the order their gradients are summed in: keep it, or runs stop being bit-reproducible.
  const logProb = gaussianLogProb(x.actions, x.mean, x.logStd, x.actionMask);
  const ratio = tf.exp(tf.sub(logProb, x.oldLogProb));
  const surrogate = tf.minimum(
    tf.mul(ratio, x.advantage),
    tf.mul(tf.clipByValue(ratio, 1 - options.clip, 1 + options.clip), x.advantage),
  );
  const klRows = gaussianKl(x.mean, x.logStd, x.referenceMean, x.referenceLogStd);
  const total = tf.sum(x.weight);
  const weighted = (v: tf.Tensor) => tf.div(tf.sum(tf.mul(v, x.weight)), total) as tf.Scalar;
  const kl = weighted(klRows);
  const clipFraction = weighted(tf.cast(tf.greater(tf.abs(tf.sub(ratio, 1)), options.clip), 'float32'));
  const loss = tf.add(tf.neg(weighted(surrogate)), tf.mul(options.klCoef, kl)) as tf.Scalar;
  return { loss, kl, clipFraction };
}
