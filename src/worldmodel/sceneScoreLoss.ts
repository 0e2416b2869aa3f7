/**
 * The scene score network's own loss, for refitting it alone: success cross-entropy and progress
 * squared error of the real states of a window (no dynamics rollout), the same targets the full
 * loss gives it. It lets the head see the policy's newest episodes between the dynamics' refits.
 * It skips the dynamics' k-step rollout, so it costs about half a full refit (~20 s against ~40 s
 * on the benchmark's set-up, measured before ensembleMatMul sped both up). Building and gathering
 * the windows is not where a refit's time goes: the network's matrix products are.
 */
import * as tf from '@tensorflow/tfjs';
import type { Trainable } from './fitEnsemble.ts';
import { bceWithLogits } from './losses.ts';
import type { StateWorldModel } from './stateWorldModel.ts';
import type { WindowBatch } from './windowBatch.ts';

export function sceneScoreTrainable(model: StateWorldModel): Trainable {
  const scoreNet = model.scoreNet;
  if (!scoreNet)
    throw new Error(
      'this world model scores with the joint head: there is no scene ' +
        'score network to refit alone (world-model scoreHead: scene)',
    );
  return {
    members: model.members,
    variables: () => scoreNet.variables(),
    loss: (batch: WindowBatch) =>
      tf.tidy(() => {
        const [K, B, k1, D] = batch.states.shape;
        const k = k1 - 1;
        // The window's real next states, as [K, B·k, D], scored against their labels.
        const next = batch.states.slice([0, 0, 1, 0], [K, B, k, D]).reshape([K, B * k, D]) as tf.Tensor3D;
        const C = batch.context.shape[2];
        const context = tf
          .tile(batch.context.reshape([K, B, 1, C]), [1, 1, k, 1])
          .reshape([K, B * k, C]) as tf.Tensor3D;
        const scored = model.sceneScore(next, context);
        const m = batch.mask.reshape([K, B * k]);
        const count = tf.maximum(tf.sum(m), 1);
        const masked = (t: tf.Tensor) => tf.div(tf.sum(tf.mul(t, m)), count) as tf.Scalar;
        const success = masked(bceWithLogits(scored.successLogit, batch.success.reshape([K, B * k])));
        const progress = masked(tf.square(tf.sub(scored.progress, batch.progress.reshape([K, B * k]))));
        const total = tf.add(success, progress) as tf.Scalar;
        return { total, selection: tf.clone(total), success, progress };
      }),
  };
}
