/** Elementwise loss helpers shared by the world-model kinds. */
import * as tf from '@tensorflow/tfjs';

/** Numerically stable binary cross-entropy with logits. */
export function bceWithLogits(logits: tf.Tensor, labels: tf.Tensor): tf.Tensor {
  return tf.tidy(() =>
    tf.add(tf.sub(tf.relu(logits), tf.mul(logits, labels)), tf.log1p(tf.exp(tf.neg(tf.abs(logits))))),
  );
}
