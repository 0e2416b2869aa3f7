/**
 * Fit a success detector on labelled episodes. Examples are frames: an episode's final frame
 * carries its label; a failed episode's earlier frames are failures too, and every episode's first
 * frame is one (a task starts undone), which shows the detector the same scene and instruction
 * with the task not done. Episodes, not frames, are held out (seeded), for early stopping on their
 * loss, the threshold (best balanced accuracy) and the figures. The loss weighs the two classes
 * equally, so a dataset of mostly demonstrations does not teach "always success".
 */
import * as tf from '@tensorflow/tfjs';
import { Rng } from '../core/rng.ts';
import type { Episode } from '../core/types.ts';
import { splitEpisodes } from '../data/splitEpisodes.ts';
import { Normalizer } from '../nn/normalizer.ts';
import { Tokenizer } from '../policy/tokenizer.ts';
import type { DetectorConfig } from './detectorConfig.ts';
import { firstCamera } from '../core/firstCamera.ts';
import type { DetectorBatch, FrameRef } from './detectorInputs.ts';
import { chooseThreshold, detectorFigures, type DetectorFigures } from './detectorMetrics.ts';
import { labelledEpisodes, unlabelledNote, type LabelledEpisode, type OperatorOutcomes } from './labelledEpisodes.ts';
import { SuccessDetector } from './successDetector.ts';

export interface DetectorEpoch {
  epoch: number;
  trainLoss: number;
  validationLoss: number | null;
  validationAuroc: number | null;
  seconds: number;
}

export interface TrainedDetector {
  detector: SuccessDetector;
  history: DetectorEpoch[];
  /** Figures on the held-out episodes (null when none were held out). */
  validation: DetectorFigures | null;
  trainEpisodes: number;
  validationEpisodes: number;
  /** Ids of the held-out episodes, so an evaluation can exclude the ones the detector trained on. */
  validationIds: string[];
}

export interface TrainDetectorOptions {
  onEpoch?: (m: DetectorEpoch) => void;
  /** Operators' labels given beside the datasets (`wmrl label`): they override the recorded outcomes. */
  labels?: OperatorOutcomes;
}

export async function trainDetector(
  episodes: readonly Episode[],
  requested: DetectorConfig,
  options: TrainDetectorOptions = {},
): Promise<TrainedDetector> {
  const { onEpoch, labels } = options;
  const labelled = labelledEpisodes(episodes, labels);
  const successes = labelled.filter((l) => l.success).length;
  if (successes === 0 || successes === labelled.length)
    throw new Error(
      `the detector needs labelled successes and failures; the data has ${successes} successes ` +
        `in ${labelled.length} labelled episodes${unlabelledNote(episodes, labels)}`,
    );
  // A config naming no camera looks at the robot's first; the detector records which.
  const cameras = requested.cameras ?? [firstCamera(episodes, 'the success detector')];
  const config: DetectorConfig = { ...requested, cameras };
  const rng = new Rng(config.seed);
  const split = splitEpisodes(labelled.length, config.train.validationFraction, (xs) => rng.shuffle(xs));
  const train = labelled.filter((_, i) => split.train.has(i));
  const held = labelled.filter((_, i) => split.validation.has(i));
  const refs = trainingFrames(train, config.train.failureFrames, rng);
  const qposDim = train[0]!.episode.qposDim;
  const qposRows = new Float32Array(refs.length * qposDim);
  refs.forEach(({ ref: { episode, step } }, i) =>
    qposRows.set(episode.qpos.subarray(step * qposDim, (step + 1) * qposDim), i * qposDim),
  );
  const tokenizer = Tokenizer.fromTexts(
    train.map((l) => l.episode.task.instruction),
    config.maxTokens,
  );
  const detector = new SuccessDetector(config, {
    vocab: tokenizer.vocab,
    qposDim,
    qpos: Normalizer.fitStats(qposRows, qposDim),
    threshold: 0.5,
    families: [...new Set(labelled.map((l) => l.episode.task.family))].sort(),
    trainedOn: train.map((l) => l.episode.id),
    heldOut: null,
  });
  try {
    const all = detector.batch(refs.map((r) => r.ref));
    const labels = Float32Array.from(refs, (r) => r.label);
    const positives = labels.reduce((s, y) => s + y, 0);
    // Per-example weights: each class weighs half the loss.
    const weights = Float32Array.from(labels, (y) =>
      y ? labels.length / (2 * positives) : labels.length / (2 * (labels.length - positives)),
    );
    const heldRefs = held.map((l) => ({ episode: l.episode, step: l.episode.steps }));
    const heldBatch = held.length ? detector.batch(heldRefs) : undefined;
    const heldLabels = held.map((l) => l.success);
    const optimizer = tf.train.adam(config.train.learningRate);
    const vars = detector.variables();
    const history: DetectorEpoch[] = [];
    let best = { loss: Infinity, epoch: -1, weights: [] as tf.Tensor[] };
    try {
      for (let epoch = 0; epoch < config.train.epochs; epoch++) {
        const t0 = performance.now();
        const order = rng.shuffle(Array.from({ length: labels.length }, (_, i) => i));
        let lossSum = 0;
        for (let i = 0; i < order.length; i += config.train.batchSize) {
          const idx = order.slice(i, i + config.train.batchSize);
          const b = gatherBatch(all, idx);
          const y = tf.tensor1d(idx.map((k) => labels[k]!));
          const w = tf.tensor1d(idx.map((k) => weights[k]!));
          const loss = optimizer.minimize(() => weightedBce(detector.logits(b), y, w), true, vars)!;
          lossSum += loss.dataSync()[0]! * idx.length;
          tf.dispose([loss, y, w]);
          await new Promise((r) => setImmediate(r));
        }
        let validationLoss: number | null = null;
        let validationAuroc: number | null = null;
        if (heldBatch) {
          const scores = probabilities(detector, heldBatch);
          validationLoss = meanBce(scores, heldLabels);
          validationAuroc = detectorFigures(scores, heldLabels, 0.5).auroc;
        }
        const m = {
          epoch,
          trainLoss: lossSum / labels.length,
          validationLoss,
          validationAuroc,
          seconds: (performance.now() - t0) / 1000,
        };
        history.push(m);
        onEpoch?.(m);
        const selection = validationLoss ?? m.trainLoss;
        if (selection < best.loss) {
          tf.dispose(best.weights);
          best = { loss: selection, epoch, weights: vars.map((v) => tf.clone(v)) };
        } else if (config.train.patience > 0 && epoch - best.epoch >= config.train.patience) break;
      }
      vars.forEach((v, i) => v.assign(best.weights[i]!));
    } finally {
      tf.dispose(best.weights);
      optimizer.dispose();
    }
    let validation: DetectorFigures | null = null;
    if (heldBatch) {
      const scores = probabilities(detector, heldBatch);
      detector.meta.threshold = chooseThreshold(scores, heldLabels);
      validation = detectorFigures(scores, heldLabels, detector.meta.threshold);
      detector.meta.heldOut = { episodes: held.length, auroc: validation.auroc, errorRate: 1 - validation.accuracy };
    }
    return {
      detector,
      history,
      validation,
      trainEpisodes: train.length,
      validationEpisodes: held.length,
      validationIds: held.map((l) => l.episode.id),
    };
  } catch (err) {
    detector.dispose();
    throw err;
  }
}

/** Labelled frames of the training episodes (see the file comment). */
function trainingFrames(
  train: readonly LabelledEpisode[],
  failureFrames: number,
  rng: Rng,
): { ref: FrameRef; label: number }[] {
  const out: { ref: FrameRef; label: number }[] = [];
  for (const { episode, success } of train) {
    out.push({ ref: { episode, step: episode.steps }, label: success ? 1 : 0 });
    if (episode.steps > 0) out.push({ ref: { episode, step: 0 }, label: 0 });
    if (!success)
      for (let k = 0; k < failureFrames && episode.steps > 1; k++)
        out.push({ ref: { episode, step: 1 + rng.int(episode.steps - 1) }, label: 0 });
  }
  return out;
}

function gatherBatch(all: DetectorBatch, idx: readonly number[]): DetectorBatch {
  const frameSize = all.frames[0]!.length / all.count;
  const qposDim = all.qpos.length / all.count;
  const L = all.tokens.length / all.count;
  const take = <A extends Float32Array | Int32Array>(src: A, width: number, make: (n: number) => A): A => {
    const out = make(idx.length * width);
    idx.forEach((i, j) => out.set(src.subarray(i * width, (i + 1) * width), j * width));
    return out;
  };
  return {
    frames: all.frames.map((f) => take(f, frameSize, (n) => new Float32Array(n))),
    qpos: take(all.qpos, qposDim, (n) => new Float32Array(n)),
    tokens: take(all.tokens, L, (n) => new Int32Array(n)),
    count: idx.length,
  };
}

function weightedBce(logits: tf.Tensor1D, labels: tf.Tensor1D, weights: tf.Tensor1D): tf.Scalar {
  return tf.tidy(() => {
    // log(1 + e^x) − y·x, stable.
    const loss = tf.sub(tf.softplus(logits), tf.mul(labels, logits));
    return tf.div(tf.sum(tf.mul(loss, weights)), tf.sum(weights)) as tf.Scalar;
  });
}

function probabilities(detector: SuccessDetector, batch: DetectorBatch): Float32Array {
  const p = tf.tidy(() => tf.sigmoid(detector.logits(batch)));
  const out = p.dataSync() as Float32Array;
  p.dispose();
  return Float32Array.from(out);
}

function meanBce(p: Float32Array, y: readonly boolean[]): number {
  let s = 0;
  for (let i = 0; i < p.length; i++) {
    const q = Math.min(1 - 1e-7, Math.max(1e-7, p[i]!));
    s -= y[i] ? Math.log(q) : Math.log(1 - q);
  }
  return s / p.length;
}
