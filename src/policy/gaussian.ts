/** Diagonal Gaussian action distribution: log-probabilities and sampling, batched. */
import * as tf from '@tensorflow/tfjs';

const HALF_LOG_2PI = 0.5 * Math.log(2 * Math.PI);

/**
 * log N(action; mean, exp(logStd)²) summed over action dims: [N, A] → [N]; with `mask` ([N, A] of 0 and 1)
 * over the dims a row's mask keeps only (the marginal log-probability of those dims).
 */
export function gaussianLogProb(
  action: tf.Tensor2D,
  mean: tf.Tensor2D,
  logStd: tf.Tensor,
  mask?: tf.Tensor2D,
): tf.Tensor1D {
  return tf.tidy(() => {
    const z = tf.div(tf.sub(action, mean), tf.exp(logStd));
    const perDim = tf.neg(tf.add(tf.add(tf.mul(0.5, tf.square(z)), logStd), HALF_LOG_2PI));
    return tf.sum(mask ? tf.mul(perDim, mask) : perDim, 1) as tf.Tensor1D;
  });
}

/** Entropy of the diagonal Gaussian (nats), summed over dims. */
export function gaussianEntropy(logStd: tf.Tensor1D): tf.Scalar {
  return tf.tidy(() => tf.sum(tf.add(logStd, 0.5 + HALF_LOG_2PI)) as tf.Scalar);
}

/** KL(p ‖ q) between diagonal Gaussians with state-independent log-stds: [N, A] means → [N]. */
export function gaussianKl(
  meanP: tf.Tensor2D,
  logStdP: tf.Tensor,
  meanQ: tf.Tensor2D,
  logStdQ: tf.Tensor,
): tf.Tensor1D {
  return tf.tidy(() => {
    const varQ = tf.exp(tf.mul(2, logStdQ));
    const term = tf.div(tf.add(tf.exp(tf.mul(2, logStdP)), tf.square(tf.sub(meanP, meanQ))), tf.mul(2, varQ));
    return tf.sum(tf.sub(tf.add(tf.sub(logStdQ, logStdP), term), 0.5), 1) as tf.Tensor1D;
  });
}
