/**
 * Per-feature mean/std normalisation, fitted on training data and saved with the model.
 */
import * as tf from '@tensorflow/tfjs';

export interface NormalizerStats {
  mean: number[];
  std: number[];
}

/** Features whose spread is below this are treated as constant (std = 1 would rescale noise). */
const MIN_STD = 1e-2;

export class Normalizer {
  readonly mean: Float32Array;
  readonly std: Float32Array;
  #meanT: tf.Tensor1D;
  #stdT: tf.Tensor1D;

  constructor(stats: NormalizerStats) {
    if (stats.mean.length !== stats.std.length) throw new Error('normalizer mean and std differ in length');
    this.mean = Float32Array.from(stats.mean);
    this.std = Float32Array.from(stats.std);
    this.#meanT = tf.keep(tf.tensor1d(this.mean));
    this.#stdT = tf.keep(tf.tensor1d(this.std));
  }

  /** Statistics of `rows` (flat, `dim` features per row); plain numbers, no tensors held. */
  static fitStats(rows: Float32Array, dim: number): NormalizerStats {
    const n = rows.length / dim;
    if (!Number.isInteger(n) || n < 2) throw new Error(`cannot fit a normalizer on ${n} rows`);
    const mean = new Float64Array(dim);
    const sq = new Float64Array(dim);
    for (let i = 0; i < n; i++) for (let j = 0; j < dim; j++) mean[j]! += rows[i * dim + j]!;
    for (let j = 0; j < dim; j++) mean[j]! /= n;
    for (let i = 0; i < n; i++) for (let j = 0; j < dim; j++) sq[j]! += (rows[i * dim + j]! - mean[j]!) ** 2;
    const std = Array.from(sq, (s) => Math.max(Math.sqrt(s / (n - 1)), MIN_STD));
    return { mean: Array.from(mean), std };
  }

  get dim(): number {
    return this.mean.length;
  }

  normalize<T extends tf.Tensor>(x: T): T {
    return tf.tidy(() => tf.div(tf.sub(x, this.#meanT), this.#stdT) as T);
  }

  /** Inverse of normalize. */
  denormalize<T extends tf.Tensor>(x: T): T {
    return tf.tidy(() => tf.add(tf.mul(x, this.#stdT), this.#meanT) as T);
  }

  toJSON(): NormalizerStats {
    return { mean: Array.from(this.mean), std: Array.from(this.std) };
  }

  dispose(): void {
    this.#meanT.dispose();
    this.#stdT.dispose();
  }
}
