/**
 * Behaviour cloning: maximise the log-likelihood of the expert's actions under the policy's
 * Gaussian, with validation on held-out episodes, early stopping and best-weights restore.
 */
import * as tf from '@tensorflow/tfjs';
import { Rng } from '../core/rng.ts';
import type { BcSamples } from './bcDataset.ts';
import { AUX_DIM, type PolicyInput, type VlaPolicy } from './vlaPolicy.ts';
import { gaussianLogProb } from './gaussian.ts';

export interface BcOptions {
  epochs: number;
  /** Weight of the auxiliary position loss (0: off; needs samples with aux targets). */
  auxWeight: number;
  batchSize: number;
  learningRate: number;
  patience: number;
  seed: number;
  onStep?: (step: number, steps: number, epoch: number) => void;
  onEpoch?: (m: BcEpoch) => void;
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
  seconds: number;
  samplesPerSecond: number;
  numTensors: number;
}

export function gatherInput(s: BcSamples, idx: ArrayLike<number>): { input: PolicyInput; actions: tf.Tensor2D; aux?: tf.Tensor2D } {
  const n = idx.length;
  const S = s.imageSize;
  const frameSize = S * S * 3;
  const pixels = new Float32Array(n * (s.frames ? frameSize : s.latentDim));
  const proprio = new Float32Array(n * s.proprioDim);
  const tokens = new Int32Array(n * s.maxTokens);
  const actions = new Float32Array(n * s.actionDim);
  const aux = s.aux ? new Float32Array(n * AUX_DIM) : undefined;
  for (let j = 0; j < n; j++) {
    const i = idx[j]!;
    if (s.frames) pixels.set(s.frames.subarray(i * frameSize, (i + 1) * frameSize), j * frameSize);
    else pixels.set(s.latents!.subarray(i * s.latentDim, (i + 1) * s.latentDim), j * s.latentDim);
    proprio.set(s.proprio.subarray(i * s.proprioDim, (i + 1) * s.proprioDim), j * s.proprioDim);
    tokens.set(s.tokens.subarray(i * s.maxTokens, (i + 1) * s.maxTokens), j * s.maxTokens);
    actions.set(s.actions.subarray(i * s.actionDim, (i + 1) * s.actionDim), j * s.actionDim);
    if (aux) aux.set(s.aux!.subarray(i * AUX_DIM, (i + 1) * AUX_DIM), j * AUX_DIM);
  }
  return {
    input: { ...(s.frames ? { images: tf.tensor4d(pixels, [n, S, S, 3]) } : { latent: tf.tensor2d(pixels, [n, s.latentDim]) }), proprio: tf.tensor2d(proprio, [n, s.proprioDim]), tokens: tf.tensor2d(tokens, [n, s.maxTokens], 'int32') },
    actions: tf.tensor2d(actions, [n, s.actionDim]),
    ...(aux ? { aux: tf.tensor2d(aux, [n, AUX_DIM]) } : {}),
  };
}

function disposeGathered(g: { input: PolicyInput; actions: tf.Tensor2D; aux?: tf.Tensor2D }): void {
  tf.dispose([g.input.latent, g.input.images, g.input.proprio, g.input.tokens, g.actions, g.aux].filter((t) => t !== undefined));
}

export async function trainBc(policy: VlaPolicy, train: BcSamples, validation: BcSamples | undefined, options: BcOptions): Promise<{ history: BcEpoch[]; bestEpoch: number }> {
  const rng = new Rng(options.seed * 977 + 5);
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
        const g = gatherInput(train, order.subarray(s * B, (s + 1) * B));
        try {
          const loss = optimizer.minimize(() => bcLoss(policy, g, options.auxWeight), true, vars)!;
          sum += (await loss.data())[0]!;
          loss.dispose();
        } finally {
          disposeGathered(g);
        }
        options.onStep?.(s + 1, steps, epoch);
        if (s % 8 === 7) await new Promise((r) => setImmediate(r));
      }
      const val = await evaluateBc(policy, validation ?? train);
      const seconds = (performance.now() - started) / 1000;
      const m: BcEpoch = { epoch, trainNll: sum / steps, validationNll: val.nll, validationMse: val.mse, validationAuxRmseCm: val.auxRmseCm, seconds, samplesPerSecond: (steps * B) / seconds, numTensors: tf.memory().numTensors };
      history.push(m);
      options.onEpoch?.(m);
      if (val.nll < best.nll) {
        tf.dispose(best.weights);
        best = { nll: val.nll, epoch, weights: vars.map((v) => tf.clone(v)) };
      } else if (epoch - best.epoch >= options.patience) break;
    }
    if (best.weights.length) vars.forEach((v, i) => v.assign(best.weights[i]!));
  } finally {
    tf.dispose(best.weights);
    optimizer.dispose();
  }
  return { history, bestEpoch: best.epoch };
}

/** Negative log-likelihood of the expert's actions, plus the weighted auxiliary position error. */
function bcLoss(policy: VlaPolicy, g: { input: PolicyInput; actions: tf.Tensor2D; aux?: tf.Tensor2D }, auxWeight: number): tf.Scalar {
  return tf.tidy(() => {
    if (!g.aux || auxWeight === 0) return tf.neg(tf.mean(policy.logProb(g.input, g.actions))) as tf.Scalar;
    const { mean, aux } = policy.meanAndAuxiliary(g.input);
    const nll = tf.neg(tf.mean(gaussianLogProb(g.actions, mean, policy.logStd)));
    return tf.add(nll, tf.mul(auxWeight, tf.mean(tf.square(tf.sub(aux, g.aux))))) as tf.Scalar;
  });
}

export interface BcEvaluation {
  nll: number;
  /** Action-mean squared error against the expert. */
  mse: number;
  /** RMSE of the auxiliary head's positions in cm (how well vision localises the instructed
   * object and goal); NaN without privileged state. */
  auxRmseCm: number;
}

export async function evaluateBc(policy: VlaPolicy, samples: BcSamples, chunk = 1024): Promise<BcEvaluation> {
  let nll = 0;
  let mse = 0;
  let aux = 0;
  for (let i = 0; i < samples.count; i += chunk) {
    const idx = Array.from({ length: Math.min(chunk, samples.count - i) }, (_, j) => i + j);
    const g = gatherInput(samples, idx);
    const sums = tf.tidy(() => {
      const out = policy.meanAndAuxiliary(g.input);
      return [
        tf.sum(tf.neg(gaussianLogProb(g.actions, out.mean, policy.logStd))),
        tf.sum(tf.mean(tf.square(tf.sub(out.mean, g.actions)), 1)),
        g.aux ? tf.sum(tf.mean(tf.square(tf.sub(out.aux, g.aux)), 1)) : tf.scalar(NaN),
      ];
    });
    const [a, b, c] = await Promise.all(sums.map(async (t) => (await t.data())[0]!));
    nll += a!;
    mse += b!;
    aux += c!;
    tf.dispose(sums);
    disposeGathered(g);
  }
  // Aux targets are in decimetres: ×10 for centimetres.
  return { nll: nll / samples.count, mse: mse / samples.count, auxRmseCm: 10 * Math.sqrt(aux / samples.count) };
}
