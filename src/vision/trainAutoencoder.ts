/**
 * Trains the patch encoder/decoder of the video world model on camera frames. The loss is a
 * pixel MSE weighted up on saturated (coloured) pixels: the task objects are a few pixels
 * each, and an unweighted loss spends the latent on the grey arm and the table instead.
 */
import * as tf from '@tensorflow/tfjs';
import { Rng } from '../core/rng.ts';
import type { PatchDecoder, PatchEncoder } from './patchCodec.ts';

export interface AutoencoderOptions {
  epochs: number;
  batchSize: number;
  learningRate: number;
  seed: number;
  onStep?: (step: number, steps: number, epoch: number) => void;
  onEpoch?: (m: {
    epoch: number;
    trainLoss: number;
    validationLoss: number;
    seconds: number;
    numTensors: number;
  }) => void;
  signal?: AbortSignal;
}

export function reconstructionLoss(images: tf.Tensor4D, recon: tf.Tensor4D): tf.Scalar {
  return tf.tidy(() => {
    const saturation = tf.sub(tf.max(images, 3, true), tf.min(images, 3, true));
    const weight = tf.add(1, tf.mul(20, tf.relu(tf.sub(saturation, 0.25))));
    return tf.div(tf.sum(tf.mul(weight, tf.square(tf.sub(recon, images)))), tf.mul(tf.sum(weight), 3)) as tf.Scalar;
  });
}

export async function trainAutoencoder(
  encoder: PatchEncoder,
  decoder: PatchDecoder,
  frames: Float32Array,
  trainIdx: number[],
  valIdx: number[],
  options: AutoencoderOptions,
) {
  const S = encoder.config.imageSize;
  const frameSize = S * S * 3;
  const gather = (idx: ArrayLike<number>) => {
    const out = new Float32Array(idx.length * frameSize);
    for (let i = 0; i < idx.length; i++)
      out.set(frames.subarray(idx[i]! * frameSize, (idx[i]! + 1) * frameSize), i * frameSize);
    return tf.tensor4d(out, [idx.length, S, S, 3]);
  };
  const rng = new Rng(options.seed * 131 + 7);
  const order = Int32Array.from(trainIdx);
  const B = Math.min(options.batchSize, order.length);
  const steps = Math.max(1, Math.floor(order.length / B));
  const optimizer = tf.train.adam(options.learningRate);
  const vars = [...encoder.variables(), ...decoder.variables()];
  const history = [];
  try {
    for (let epoch = 0; epoch < options.epochs && !options.signal?.aborted; epoch++) {
      const started = performance.now();
      for (let i = order.length - 1; i > 0; i--) {
        const j = rng.int(i + 1);
        [order[i], order[j]] = [order[j]!, order[i]!];
      }
      let sum = 0;
      for (let s = 0; s < steps; s++) {
        const images = gather(order.subarray(s * B, (s + 1) * B));
        try {
          const loss = optimizer.minimize(
            () => reconstructionLoss(images, decoder.decode(encoder.encode(images))),
            true,
            vars,
          )!;
          sum += (await loss.data())[0]!;
          loss.dispose();
        } finally {
          images.dispose();
        }
        options.onStep?.(s + 1, steps, epoch);
        if (s % 8 === 7) await new Promise((r) => setImmediate(r));
      }
      const validationLoss = await evaluateReconstruction(encoder, decoder, valIdx.length ? valIdx : trainIdx, gather);
      const m = {
        epoch,
        trainLoss: sum / steps,
        validationLoss,
        seconds: (performance.now() - started) / 1000,
        numTensors: tf.memory().numTensors,
      };
      history.push(m);
      options.onEpoch?.(m);
    }
  } finally {
    optimizer.dispose();
  }
  return history;
}

async function evaluateReconstruction(
  encoder: PatchEncoder,
  decoder: PatchDecoder,
  idx: number[],
  gather: (i: ArrayLike<number>) => tf.Tensor4D,
): Promise<number> {
  let sum = 0;
  for (let i = 0; i < idx.length; i += 256) {
    const part = idx.slice(i, i + 256);
    const images = gather(part);
    const loss = tf.tidy(() => reconstructionLoss(images, decoder.decode(encoder.encode(images))));
    sum += (await loss.data())[0]! * part.length;
    tf.dispose([images, loss]);
  }
  return sum / idx.length;
}
