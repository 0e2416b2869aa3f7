/**
 * Fits an ensemble world model on windows: each member trains on its own bootstrap resample
 * of the training episodes' windows; validation is on held-out episodes; training stops early
 * when validation loss stops improving and the best weights are restored.
 */
import * as tf from '@tensorflow/tfjs';
import { Rng } from '../core/rng.ts';
import type { Windows } from './transitionData.ts';
import { disposeBatch, gatherBatch, type WindowBatch } from './windowBatch.ts';

export interface FitOptions {
  epochs: number;
  batchSize: number;
  learningRate: number;
  /** Stop after this many epochs without a better validation loss. */
  patience: number;
  seed: number;
  /** Cap on optimiser steps per epoch (0 = one pass over the bootstrap sample). */
  maxStepsPerEpoch?: number;
  onStep?: (step: number, stepsPerEpoch: number, epoch: number) => void;
  onEpoch?: (metrics: EpochMetrics) => void;
  signal?: AbortSignal;
}

export interface EpochMetrics {
  epoch: number;
  trainLoss: number;
  validation: Record<string, number>;
  seconds: number;
  samplesPerSecond: number;
  /** tf.memory().numTensors after the epoch: must not grow. */
  numTensors: number;
}

export interface FitReport {
  epochs: number;
  bestEpoch: number;
  /** Best validation `selection` score. */
  bestValidationLoss: number;
  history: EpochMetrics[];
  stoppedEarly: boolean;
}

/** What the fitting loop needs from a model kind. */
export interface Trainable {
  readonly members: number;
  variables(): tf.Variable[];
  /** Loss parts for a batch; `total` is optimised, `selection` picks the best epoch, every part is reported. */
  loss(batch: WindowBatch): Record<string, tf.Scalar> & { total: tf.Scalar; selection: tf.Scalar };
}

export async function fitEnsemble(
  model: Trainable,
  windows: Windows,
  trainIdx: number[],
  valIdx: number[],
  options: FitOptions,
): Promise<FitReport> {
  if (trainIdx.length === 0) throw new Error('no training windows');
  const K = model.members;
  const B = Math.min(options.batchSize, trainIdx.length);
  const rngs = Array.from({ length: K }, (_, m) => new Rng(options.seed * 7919 + m));
  const bootstrap = rngs.map((rng) =>
    Int32Array.from({ length: trainIdx.length }, () => trainIdx[rng.int(trainIdx.length)]!),
  );
  const optimizer = tf.train.adam(options.learningRate);
  const vars = model.variables();
  const history: EpochMetrics[] = [];
  let best = { loss: Infinity, epoch: -1, weights: [] as tf.Tensor[] };
  let stoppedEarly = false;
  const fullSteps = Math.floor(trainIdx.length / B);
  const stepsPerEpoch = Math.max(
    1,
    options.maxStepsPerEpoch ? Math.min(options.maxStepsPerEpoch, fullSteps) : fullSteps,
  );
  try {
    for (let epoch = 0; epoch < options.epochs; epoch++) {
      if (options.signal?.aborted) break;
      const started = performance.now();
      bootstrap.forEach((b, m) => shuffleInPlace(b, rngs[m]!));
      let lossSum = 0;
      for (let s = 0; s < stepsPerEpoch; s++) {
        const batch = gatherBatch(
          windows,
          bootstrap.map((b) => b.subarray(s * B, (s + 1) * B)),
        );
        try {
          const loss = optimizer.minimize(
            () => {
              const parts = model.loss(batch);
              for (const [name, t] of Object.entries(parts)) if (name !== 'total') t.dispose();
              return parts.total;
            },
            true,
            vars,
          );
          lossSum += (await loss!.data())[0]!;
          loss!.dispose();
        } finally {
          disposeBatch(batch);
        }
        options.onStep?.(s + 1, stepsPerEpoch, epoch);
        if (s % 8 === 7) await new Promise((r) => setImmediate(r));
      }
      const validation = await evaluateLoss(model, windows, valIdx.length > 0 ? valIdx : trainIdx);
      const seconds = (performance.now() - started) / 1000;
      const metrics: EpochMetrics = {
        epoch,
        trainLoss: lossSum / stepsPerEpoch,
        validation,
        seconds,
        samplesPerSecond: (stepsPerEpoch * B * K) / seconds,
        numTensors: tf.memory().numTensors,
      };
      history.push(metrics);
      options.onEpoch?.(metrics);
      if (validation.selection! < best.loss) {
        tf.dispose(best.weights);
        best = { loss: validation.selection!, epoch, weights: vars.map((v) => tf.clone(v)) };
      } else if (epoch - best.epoch >= options.patience) {
        stoppedEarly = true;
        break;
      }
    }
    if (best.weights.length > 0) vars.forEach((v, i) => v.assign(best.weights[i]!));
  } finally {
    tf.dispose(best.weights);
    optimizer.dispose();
  }
  return { epochs: history.length, bestEpoch: best.epoch, bestValidationLoss: best.loss, history, stoppedEarly };
}

/** Mean loss parts over windows, every member on the same windows, in chunks. */
export async function evaluateLoss(
  model: Trainable,
  windows: Windows,
  idx: number[],
  chunk = 256,
): Promise<Record<string, number>> {
  const sums: Record<string, number> = {};
  for (let i = 0; i < idx.length; i += chunk) {
    const part = idx.slice(i, i + chunk);
    const batch = gatherBatch(
      windows,
      Array.from({ length: model.members }, () => part),
    );
    try {
      const parts = tf.tidy(() => model.loss(batch));
      for (const [name, t] of Object.entries(parts)) {
        sums[name] = (sums[name] ?? 0) + (await t.data())[0]! * part.length;
        t.dispose();
      }
    } finally {
      disposeBatch(batch);
    }
  }
  return Object.fromEntries(Object.entries(sums).map(([k, v]) => [k, v / idx.length]));
}

function shuffleInPlace(a: Int32Array, rng: Rng): void {
  for (let i = a.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    const t = a[i]!;
    a[i] = a[j]!;
    a[j] = t;
  }
}
