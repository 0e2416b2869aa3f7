/**
 * Behaviour cloning: maximise the log-likelihood of the expert's actions under the policy's
 * Gaussian, with validation on held-out episodes, early stopping and best-weights restore.
 */
import * as tf from '@tensorflow/tfjs';
import { Rng } from '../core/rng.ts';
import type { BcSamples } from './bcDataset.ts';
import { AUX_DIM, IMAGE_TARGET_HEADS, type PolicyInput, type VlaPolicy } from './vlaPolicy.ts';
import { gaussianLogProb } from './gaussian.ts';
import { dropWords } from './wordDropout.ts';

export interface BcOptions {
  epochs: number;
  /** Weight of the auxiliary position loss (0: off; needs samples with aux targets). */
  auxWeight: number;
  /** Weight of the grounding heads' image-position loss (0: off; needs image targets). */
  imageWeight: number;
  batchSize: number;
  learningRate: number;
  patience: number;
  /** Probability that a training sample's instruction word reads as <unk> (0: off). */
  wordDropout?: number;
  seed: number;
  onStep?: (step: number, steps: number, epoch: number) => void;
  onEpoch?: (m: BcEpoch) => void;
  /** After an epoch that improved validation NLL, with the policy holding those weights (e.g. save a checkpoint). */
  onBest?: (epoch: number) => Promise<void>;
  signal?: AbortSignal;
}

export interface BcEpoch {
  epoch: number;
  trainNll: number;
  validationNll: number;
  /** Mean squared error of the action mean against the expert's action (validation). */
  validationMse: number;
  /** Auxiliary position RMSE in cm (validation): does vision find the instructed object? */
  validationAuxRmseCm: number;
  /** RMSE of the grounding heads' image positions against the projected object/goal, in pixels (validation). */
  validationImageRmsePx: number;
  seconds: number;
  samplesPerSecond: number;
  numTensors: number;
}

/** A training batch: policy input, expert actions, auxiliary targets where the samples have them. */
export interface BcBatch {
  input: PolicyInput;
  actions: tf.Tensor2D;
  aux?: tf.Tensor2D;
  imageTargets?: tf.Tensor2D;
  imageWeights?: tf.Tensor2D;
}

/** A batch of samples `idx`; with `wordDropout`, its instruction words become <unk> at that rate (training only). */
export function gatherInput(s: BcSamples, idx: ArrayLike<number>, wordDropout?: { p: number; rng: Rng }): BcBatch {
  const n = idx.length;
  const S = s.imageSize;
  const frameSize = S * S * 3;
  const pixels = new Float32Array(n * frameSize);
  const proprio = new Float32Array(n * s.proprioDim);
  const tokens = new Int32Array(n * s.maxTokens);
  const actions = new Float32Array(n * s.actionDim);
  const aux = s.aux ? new Float32Array(n * AUX_DIM) : undefined;
  const H = IMAGE_TARGET_HEADS;
  const imageTargets = s.imageTargets ? new Float32Array(n * 2 * H) : undefined;
  const imageWeights = s.imageWeights ? new Float32Array(n * H) : undefined;
  for (let j = 0; j < n; j++) {
    const i = idx[j]!;
    pixels.set(s.frames.subarray(i * frameSize, (i + 1) * frameSize), j * frameSize);
    proprio.set(s.proprio.subarray(i * s.proprioDim, (i + 1) * s.proprioDim), j * s.proprioDim);
    tokens.set(s.tokens.subarray(i * s.maxTokens, (i + 1) * s.maxTokens), j * s.maxTokens);
    actions.set(s.actions.subarray(i * s.actionDim, (i + 1) * s.actionDim), j * s.actionDim);
    if (aux) aux.set(s.aux!.subarray(i * AUX_DIM, (i + 1) * AUX_DIM), j * AUX_DIM);
    if (imageTargets) imageTargets.set(s.imageTargets!.subarray(i * 2 * H, (i + 1) * 2 * H), j * 2 * H);
    if (imageWeights) imageWeights.set(s.imageWeights!.subarray(i * H, (i + 1) * H), j * H);
  }
  if (wordDropout) dropWords(tokens, wordDropout.p, wordDropout.rng);
  return {
    input: {
      images: tf.tensor4d(pixels, [n, S, S, 3]),
      proprio: tf.tensor2d(proprio, [n, s.proprioDim]),
      tokens: tf.tensor2d(tokens, [n, s.maxTokens], 'int32'),
    },
    actions: tf.tensor2d(actions, [n, s.actionDim]),
    ...(aux ? { aux: tf.tensor2d(aux, [n, AUX_DIM]) } : {}),
    ...(imageTargets
      ? { imageTargets: tf.tensor2d(imageTargets, [n, 2 * H]), imageWeights: tf.tensor2d(imageWeights!, [n, H]) }
      : {}),
  };
}

export function disposeBatch(g: BcBatch): void {
  tf.dispose(
    [
      g.input.latent,
      g.input.images,
      g.input.proprio,
      g.input.tokens,
      g.actions,
      g.aux,
      g.imageTargets,
      g.imageWeights,
    ].filter((t) => t !== undefined),
  );
}

export async function trainBc(
  policy: VlaPolicy,
  train: BcSamples,
  validation: BcSamples | undefined,
  options: BcOptions,
): Promise<{ history: BcEpoch[]; bestEpoch: number }> {
  const rng = new Rng(options.seed * 977 + 5);
  // Its own stream, so turning dropout on leaves the batch order of a seed unchanged.
  const dropout = options.wordDropout ? { p: options.wordDropout, rng: new Rng(options.seed * 977 + 11) } : undefined;
  const order = Int32Array.from({ length: train.count }, (_, i) => i);
  const B = Math.min(options.batchSize, train.count);
  const steps = Math.max(1, Math.floor(train.count / B));
  const optimizer = tf.train.adam(options.learningRate);
  const vars = policy.variables();
  const history: BcEpoch[] = [];
  let best = { nll: Infinity, epoch: -1, weights: [] as tf.Tensor[] };
  try {
    for (let epoch = 0; epoch < options.epochs && !options.signal?.aborted; epoch++) {
      const started = performance.now();
      rng.shuffle(order as unknown as number[]);
      let sum = 0;
      for (let s = 0; s < steps; s++) {
        const g = gatherInput(train, order.subarray(s * B, (s + 1) * B), dropout);
        try {
          const loss = optimizer.minimize(() => bcLoss(policy, g, options.auxWeight, options.imageWeight), true, vars)!;
          sum += (await loss.data())[0]!;
          loss.dispose();
        } finally {
          disposeBatch(g);
        }
        options.onStep?.(s + 1, steps, epoch);
        if (s % 8 === 7) await new Promise((r) => setImmediate(r));
      }
      const val = await evaluateBc(policy, validation ?? train);
      const seconds = (performance.now() - started) / 1000;
      const m: BcEpoch = {
        epoch,
        trainNll: sum / steps,
        validationNll: val.nll,
        validationMse: val.mse,
        validationAuxRmseCm: val.auxRmseCm,
        validationImageRmsePx: val.imageRmsePx,
        seconds,
        samplesPerSecond: (steps * B) / seconds,
        numTensors: tf.memory().numTensors,
      };
      history.push(m);
      options.onEpoch?.(m);
      if (val.nll < best.nll) {
        tf.dispose(best.weights);
        best = { nll: val.nll, epoch, weights: vars.map((v) => tf.clone(v)) };
        await options.onBest?.(epoch);
      } else if (epoch - best.epoch >= options.patience) break;
    }
    if (best.weights.length) vars.forEach((v, i) => v.assign(best.weights[i]!));
  } finally {
    tf.dispose(best.weights);
    optimizer.dispose();
  }
  return { history, bestEpoch: best.epoch };
}

/** Negative log-likelihood of the expert's actions, plus the weighted auxiliary losses. */
function bcLoss(policy: VlaPolicy, g: BcBatch, auxWeight: number, imageWeight: number): tf.Scalar {
  return tf.tidy(() => {
    if (!g.aux || (auxWeight === 0 && imageWeight === 0))
      return tf.neg(tf.mean(policy.logProb(g.input, g.actions))) as tf.Scalar;
    const { mean, aux, positions } = policy.meanAndAuxiliary(g.input);
    const nll = tf.neg(tf.mean(gaussianLogProb(g.actions, mean, policy.logStd)));
    let loss = tf.add(nll, tf.mul(auxWeight, tf.mean(tf.square(tf.sub(aux, g.aux)))));
    if (positions && g.imageTargets && imageWeight > 0)
      loss = tf.add(loss, tf.mul(imageWeight, imagePositionError(positions, g.imageTargets, g.imageWeights!)));
    return loss as tf.Scalar;
  });
}

/** Weighted mean squared error of the grounding heads' image positions. */
function imagePositionError(positions: tf.Tensor2D, targets: tf.Tensor2D, weights: tf.Tensor2D): tf.Scalar {
  return tf.tidy(() => {
    const [n, width] = positions.shape;
    const heads = width / 2;
    const err = tf.sum(tf.square(tf.sub(positions, targets.slice([0, 0], [n, width]))).reshape([n, heads, 2]), 2);
    const w = weights.slice([0, 0], [n, heads]);
    return tf.div(tf.sum(tf.mul(err, w)), tf.maximum(tf.sum(w), 1)) as tf.Scalar;
  });
}

export interface BcEvaluation {
  nll: number;
  /** Action-mean squared error against the expert. */
  mse: number;
  /** RMSE of the auxiliary head's positions in cm (how well vision localises the instructed
   * object and goal); NaN without privileged state. */
  auxRmseCm: number;
  /** RMSE of the grounding heads' image positions in pixels; NaN without image targets. */
  imageRmsePx: number;
}

export async function evaluateBc(policy: VlaPolicy, samples: BcSamples, chunk = 1024): Promise<BcEvaluation> {
  let nll = 0;
  let mse = 0;
  let aux = 0;
  let image = 0;
  for (let i = 0; i < samples.count; i += chunk) {
    const idx = Array.from({ length: Math.min(chunk, samples.count - i) }, (_, j) => i + j);
    const g = gatherInput(samples, idx);
    const sums = tf.tidy(() => {
      const out = policy.meanAndAuxiliary(g.input);
      return [
        tf.sum(tf.neg(gaussianLogProb(g.actions, out.mean, policy.logStd))),
        tf.sum(tf.mean(tf.square(tf.sub(out.mean, g.actions)), 1)),
        g.aux ? tf.sum(tf.mean(tf.square(tf.sub(out.aux, g.aux)), 1)) : tf.scalar(NaN),
        out.positions && g.imageTargets
          ? tf.mul(imagePositionError(out.positions, g.imageTargets, g.imageWeights!), idx.length)
          : tf.scalar(NaN),
      ];
    });
    const [a, b, c, d] = await Promise.all(sums.map(async (t) => (await t.data())[0]!));
    nll += a!;
    mse += b!;
    aux += c!;
    image += d!;
    tf.dispose(sums);
    disposeBatch(g);
  }
  // Aux targets are in decimetres: ×10 for centimetres.
  // Image positions span [-1, 1] across the frame: × size/2 for pixels (the error is per head, summed over x and y).
  return {
    nll: nll / samples.count,
    mse: mse / samples.count,
    auxRmseCm: 10 * Math.sqrt(aux / samples.count),
    imageRmsePx: (samples.imageSize / 2) * Math.sqrt(image / samples.count),
  };
}
