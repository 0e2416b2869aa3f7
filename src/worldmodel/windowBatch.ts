/**
 * Assembles training batches from windows: every ensemble member gets its own indices (its
 * bootstrap resample), gathered in plain JS into one tensor per field, [K, B, …].
 */
import * as tf from '@tensorflow/tfjs';
import { CONTEXT_DIM } from '../tasks/familyContext.ts';
import type { Windows } from './transitionData.ts';

export interface WindowBatch {
  /** [K, B, k+1, D] */
  states: tf.Tensor4D;
  /** [K, B, k, A] */
  actions: tf.Tensor4D;
  /** [K, B, k] */
  success: tf.Tensor3D;
  progress: tf.Tensor3D;
  mask: tf.Tensor3D;
  /** [K, B, C] */
  context: tf.Tensor3D;
}

/** `indices[m]` are member m's window indices; all members must have the same count. */
export function gatherBatch(w: Windows, indices: ArrayLike<number>[]): WindowBatch {
  const K = indices.length;
  const B = indices[0]!.length;
  const { k, stateDim: D, actionDim: A } = w;
  const states = new Float32Array(K * B * (k + 1) * D);
  const actions = new Float32Array(K * B * k * A);
  const success = new Float32Array(K * B * k);
  const progress = new Float32Array(K * B * k);
  const mask = new Float32Array(K * B * k);
  const context = new Float32Array(K * B * CONTEXT_DIM);
  let row = 0;
  for (const member of indices) {
    if (member.length !== B) throw new Error('every member needs the same batch size');
    for (let j = 0; j < B; j++, row++) {
      const n = member[j]!;
      const sLen = (k + 1) * D;
      states.set(w.states.subarray(n * sLen, (n + 1) * sLen), row * sLen);
      actions.set(w.actions.subarray(n * k * A, (n + 1) * k * A), row * k * A);
      success.set(w.success.subarray(n * k, (n + 1) * k), row * k);
      progress.set(w.progress.subarray(n * k, (n + 1) * k), row * k);
      mask.set(w.mask.subarray(n * k, (n + 1) * k), row * k);
      context.set(w.context.subarray(n * CONTEXT_DIM, (n + 1) * CONTEXT_DIM), row * CONTEXT_DIM);
    }
  }
  return {
    states: tf.tensor4d(states, [K, B, k + 1, D]),
    actions: tf.tensor4d(actions, [K, B, k, A]),
    success: tf.tensor3d(success, [K, B, k]),
    progress: tf.tensor3d(progress, [K, B, k]),
    mask: tf.tensor3d(mask, [K, B, k]),
    context: tf.tensor3d(context, [K, B, CONTEXT_DIM]),
  };
}

export function disposeBatch(b: WindowBatch): void {
  tf.dispose([b.states, b.actions, b.success, b.progress, b.mask, b.context]);
}
