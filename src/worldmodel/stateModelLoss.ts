/**
 * The multi-step (open-loop, k-step) loss of the state world model: the model's own predicted
 * state feeds the next step, so compounding error is trained against. Per step: Gaussian NLL
 * of the next state, success cross-entropy and progress squared error, averaged over the
 * steps that exist (mask) and over members.
 */
import * as tf from '@tensorflow/tfjs';
import { bceWithLogits } from './losses.ts';
import type { StateWorldModel } from './stateWorldModel.ts';
import type { WindowBatch } from './windowBatch.ts';

export type LossParts = {
  total: tf.Scalar;
  nll: tf.Scalar;
  /** Mean squared error of the predicted normalised delta (reported, not optimised). */
  mse: tf.Scalar;
  /** Model-selection score (early stopping): prediction error, success and progress losses.
   * NLL is left out: rare events (an object knocked over) make held-out NLL swing wildly. */
  selection: tf.Scalar;
  success: tf.Scalar;
  progress: tf.Scalar;
};

export function stateModelLoss(model: StateWorldModel, batch: WindowBatch): LossParts {
  return tf.tidy(() => {
    const [K, B, k1, D] = batch.states.shape;
    const k = k1 - 1;
    const A = batch.actions.shape[3];
    let x = batch.states.slice([0, 0, 0, 0], [K, B, 1, D]).reshape([K, B, D]) as tf.Tensor3D;
    let nll: tf.Scalar = tf.scalar(0);
    let bce: tf.Scalar = tf.scalar(0);
    let mse: tf.Scalar = tf.scalar(0);
    let deltaMse: tf.Scalar = tf.scalar(0);
    for (let i = 0; i < k; i++) {
      const action = batch.actions.slice([0, 0, i, 0], [K, B, 1, A]).reshape([K, B, A]) as tf.Tensor3D;
      const target = batch.states.slice([0, 0, i + 1, 0], [K, B, 1, D]).reshape([K, B, D]) as tf.Tensor3D;
      const m = batch.mask.slice([0, 0, i], [K, B, 1]).reshape([K, B]);
      const count = tf.maximum(tf.sum(m), 1);
      // The transition alone: a scene score network scores the real next state below, not this prediction.
      const out = model.transition(x, action, batch.context);
      const masked = (t: tf.Tensor) => tf.div(tf.sum(tf.mul(t, m)), count) as tf.Scalar;
      nll = tf.add(nll, masked(model.transitionNll(out, x, target)));
      deltaMse = tf.add(
        deltaMse,
        masked(tf.mean(tf.square(tf.sub(out.deltaMean, model.deltaNorm.normalize(tf.sub(target, x)))), 2)),
      );
      // A scene score network learns from the real next state (it scores states,
      // whoever predicted them); the joint head from the model's own step.
      const scored = model.scoreNet ? model.sceneScore(target, batch.context) : out;
      bce = tf.add(
        bce,
        masked(bceWithLogits(scored.successLogit, batch.success.slice([0, 0, i], [K, B, 1]).reshape([K, B]))),
      );
      mse = tf.add(
        mse,
        masked(tf.square(tf.sub(scored.progress, batch.progress.slice([0, 0, i], [K, B, 1]).reshape([K, B])))),
      );
      x = out.next;
    }
    const parts = {
      nll: tf.div(nll, k) as tf.Scalar,
      success: tf.div(bce, k) as tf.Scalar,
      progress: tf.div(mse, k) as tf.Scalar,
    };
    const msePart = tf.div(deltaMse, k) as tf.Scalar;
    return {
      ...parts,
      mse: msePart,
      selection: tf.addN([msePart, parts.success, parts.progress]) as tf.Scalar,
      total: tf.addN([parts.nll, parts.success, parts.progress]) as tf.Scalar,
    };
  });
}
