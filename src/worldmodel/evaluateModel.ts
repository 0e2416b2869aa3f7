/**
 * Held-out evaluation of a world model: open-loop predictions with the episodes' own actions
 * from every step of every held-out episode, up to H steps ahead.
 *  - one-step and H-step error (normalised state MSE; joint RMSE in rad; target-object RMSE in m);
 *  - success within H steps: AUROC and expected calibration error of the predicted probability;
 *  - Spearman rank correlation between ensemble variance and the ensemble mean's actual error.
 */
import * as tf from '@tensorflow/tfjs';
import type { Episode } from '../core/types.ts';
import { auroc, expectedCalibrationError, spearman } from './metrics.ts';
import { buildWindows } from './transitionData.ts';
import { disposeBatch, gatherBatch } from './windowBatch.ts';
import type { StateWorldModel } from './stateWorldModel.ts';

export interface PredictionError {
  /** Mean squared error of the normalised state. */
  stateMse: number;
  /** RMSE of the arm joint positions, radians. */
  jointRmse: number;
  /** RMSE of the target object's position, metres (state kind only; NaN without object state). */
  objectRmse: number;
}

export interface WorldModelEvaluation {
  episodes: number;
  starts: number;
  horizon: number;
  oneStep: PredictionError;
  hStep: PredictionError;
  success: { auroc: number; ece: number; positives: number; count: number };
  varianceErrorSpearman: number;
}

/**
 * `episodes` carry the model's state layout (for the video kind: latents in place of the object
 * state); `objectState` says whether their state holds object poses (target object first).
 */
export function evaluateDynamics(
  model: StateWorldModel,
  episodes: Episode[],
  options: { horizon: number; objectState: boolean; chunk?: number },
): WorldModelEvaluation {
  const { horizon, chunk = 256 } = options;
  const w = buildWindows(episodes, horizon);
  const qposDim = episodes[0]!.qposDim;
  const K = model.members;
  const D = w.stateDim;
  const A = w.actionDim;
  const nJoints = qposDim - 1;
  const objectStart = options.objectState ? 2 * qposDim : -1;
  const scores: number[] = [];
  const labels: number[] = [];
  const variances: number[] = [];
  const errors: number[] = [];
  const acc = { one: zero(), h: zero() };
  for (let start = 0; start < w.count; start += chunk) {
    const idx = Array.from({ length: Math.min(chunk, w.count - start) }, (_, i) => start + i);
    const B = idx.length;
    const batch = gatherBatch(
      w,
      Array.from({ length: K }, () => idx),
    );
    const steps = idx.map((n) => w.mask.subarray(n * horizon, (n + 1) * horizon).reduce((a, v) => a + v, 0));
    const best = new Float32Array(B);
    const label = new Float32Array(B);
    try {
      let x = tf.tidy(() => batch.states.slice([0, 0, 0, 0], [K, B, 1, D]).reshape([K, B, D]) as tf.Tensor3D);
      for (let i = 0; i < horizon; i++) {
        const r = tf.tidy(() => {
          const action = batch.actions.slice([0, 0, i, 0], [K, B, 1, A]).reshape([K, B, A]) as tf.Tensor3D;
          const out = model.step(x, action, batch.context);
          const meanState = tf.mean(out.next, 0);
          const p = tf.mean(tf.sigmoid(out.successLogit), 0);
          // Spread of the members' predictions, in normalised units, averaged over state dims.
          const variance = tf.mean(tf.moments(model.stateNorm.normalize(out.next), 0).variance, 1);
          return { next: out.next, meanState, p, variance };
        });
        x.dispose();
        x = r.next;
        const mean = r.meanState.dataSync() as Float32Array;
        const p = r.p.dataSync();
        const variance = r.variance.dataSync();
        tf.dispose([r.meanState, r.p, r.variance]);
        for (let b = 0; b < B; b++) {
          if (i >= steps[b]!) continue;
          const n = idx[b]!;
          const truth = w.states.subarray((n * (horizon + 1) + i + 1) * D, (n * (horizon + 1) + i + 2) * D);
          const pred = mean.subarray(b * D, (b + 1) * D);
          best[b] = Math.max(best[b]!, p[b]!);
          label[b] = Math.max(label[b]!, w.success[n * horizon + i]!);
          const err = stateErrors(model, pred, truth, nJoints, objectStart);
          if (i === 0) add(acc.one, err);
          if (i === steps[b]! - 1) {
            add(acc.h, err);
            variances.push(variance[b]!);
            errors.push(err.stateMse);
          }
        }
      }
      x.dispose();
    } finally {
      disposeBatch(batch);
    }
    for (let b = 0; b < B; b++) {
      scores.push(best[b]!);
      labels.push(label[b]!);
    }
  }
  return {
    episodes: episodes.length,
    starts: w.count,
    horizon,
    oneStep: finish(acc.one),
    hStep: finish(acc.h),
    success: {
      auroc: auroc(scores, labels),
      ece: expectedCalibrationError(scores, labels),
      positives: labels.reduce((a, v) => a + v, 0),
      count: labels.length,
    },
    varianceErrorSpearman: spearman(variances, errors),
  };
}

interface Acc {
  n: number;
  stateMse: number;
  joint: number;
  object: number;
}

function zero(): Acc {
  return { n: 0, stateMse: 0, joint: 0, object: 0 };
}

function stateErrors(
  model: StateWorldModel,
  pred: Float32Array,
  truth: Float32Array,
  nJoints: number,
  objectStart: number,
): { stateMse: number; joint: number; object: number } {
  const std = model.stateNorm.std;
  let mse = 0;
  for (let d = 0; d < pred.length; d++) mse += ((pred[d]! - truth[d]!) / std[d]!) ** 2;
  let joint = 0;
  for (let d = 0; d < nJoints; d++) joint += (pred[d]! - truth[d]!) ** 2;
  let object = objectStart < 0 ? NaN : 0;
  if (objectStart >= 0) for (let d = objectStart; d < objectStart + 3; d++) object += (pred[d]! - truth[d]!) ** 2;
  return { stateMse: mse / pred.length, joint: joint / nJoints, object };
}

function add(acc: Acc, e: { stateMse: number; joint: number; object: number }): void {
  acc.n++;
  acc.stateMse += e.stateMse;
  acc.joint += e.joint;
  acc.object += e.object;
}

function finish(acc: Acc): PredictionError {
  const n = Math.max(acc.n, 1);
  return { stateMse: acc.stateMse / n, jointRmse: Math.sqrt(acc.joint / n), objectRmse: Math.sqrt(acc.object / n) };
}
