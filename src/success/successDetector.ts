/**
 * The learned success detector: "does this frame show the instructed task done?". Per camera, the
 * policy's instruction-grounded attention finds where in the image what the instruction names is
 * (and how it looks there); a small classifier over those positions and features, the joint
 * positions and the instruction gives the success logit. An episode's score is the probability at
 * its final frame: episodes end when the task is done or the time is up.
 */
import * as tf from '@tensorflow/tfjs';
import type { Episode } from '../core/types.ts';
import { namedVariables } from '../core/variables.ts';
import { Dense, swish } from '../nn/dense.ts';
import { Normalizer, type NormalizerStats } from '../nn/normalizer.ts';
import { GroundedAttention } from '../policy/groundedAttention.ts';
import { LanguageEncoder } from '../policy/languageEncoder.ts';
import { Tokenizer } from '../policy/tokenizer.ts';
import { type DetectorConfig, detectorCameras } from './detectorConfig.ts';
import { detectorBatch, type DetectorBatch, type FrameRef } from './detectorInputs.ts';

/** What a detector needs besides its weights: vocabulary, joint normalisation, the decision threshold. */
export interface DetectorMeta {
  vocab: string[];
  qposDim: number;
  qpos: NormalizerStats;
  /** Probability at or above which an episode counts as a success (chosen on the held-out episodes). */
  threshold: number;
  /** Task families the labelled episodes came from: the detector is trusted on these only. */
  families: string[];
  /** Ids of the episodes it was fitted on: an evaluation leaves them out. */
  trainedOn: string[];
  /** Its figures on the held-out episodes at training (the drift reference); null when none were held out. */
  heldOut: { episodes: number; auroc: number | null; errorRate: number } | null;
}

/** Frames scored per forward pass (bounds memory whatever the episode count). */
const SCORE_BATCH = 256;

export class SuccessDetector {
  readonly config: DetectorConfig;
  readonly meta: DetectorMeta;
  readonly tokenizer: Tokenizer;
  readonly #qpos: Normalizer;
  readonly #language: LanguageEncoder;
  readonly #attention: GroundedAttention[];
  readonly #hidden: Dense;
  readonly #out: Dense;

  constructor(config: DetectorConfig, meta: DetectorMeta) {
    this.config = config;
    this.meta = meta;
    this.tokenizer = new Tokenizer(meta.vocab, config.maxTokens);
    this.#qpos = new Normalizer(meta.qpos);
    const s = config.seed * 1000;
    this.#language = new LanguageEncoder('detector/language', meta.vocab.length, 16, config.languageDim, s + 10);
    const grounding = { heads: config.heads, dim: config.pixelDim, hidden: config.pixelHidden, features: true };
    this.#attention = detectorCameras(config).map(
      (name, c) =>
        new GroundedAttention(`detector/${name}`, grounding, config.imageSize, config.languageDim, s + 20 + 10 * c),
    );
    const width = this.#attention.reduce((n, a) => n + a.outputDim, 0) + meta.qposDim + config.languageDim;
    this.#hidden = new Dense('detector/hidden', width, config.hidden, s + 90);
    this.#out = new Dense('detector/out', config.hidden, 1, s + 91);
  }

  /** Success logits [N] of a batch (a tensor: for training). */
  logits(batch: DetectorBatch): tf.Tensor1D {
    return tf.tidy(() => {
      const S = this.config.imageSize;
      const n = batch.count;
      const language = this.#language.apply(tf.tensor2d(batch.tokens, [n, this.config.maxTokens], 'int32'));
      const seen = this.#attention.map((a, c) => a.apply(tf.tensor4d(batch.frames[c]!, [n, S, S, 3]), language));
      const joints = this.#qpos.normalize(tf.tensor2d(batch.qpos, [n, this.meta.qposDim]));
      const h = swish(this.#hidden.apply(tf.concat([...seen, joints, language], 1) as tf.Tensor2D));
      return this.#out.apply(h).reshape([n]) as tf.Tensor1D;
    });
  }

  batch(refs: readonly FrameRef[]): DetectorBatch {
    return detectorBatch(refs, detectorCameras(this.config), this.config.imageSize, this.tokenizer);
  }

  /** Success probabilities of frames, batched. */
  scoreFrames(refs: readonly FrameRef[]): Float32Array {
    const out = new Float32Array(refs.length);
    for (let i = 0; i < refs.length; i += SCORE_BATCH) {
      const batch = this.batch(refs.slice(i, i + SCORE_BATCH));
      const p = tf.tidy(() => tf.sigmoid(this.logits(batch)));
      out.set(p.dataSync(), i);
      p.dispose();
    }
    return out;
  }

  /** Each episode's success probability: its final frame's. */
  scoreEpisodes(episodes: readonly Episode[]): Float32Array {
    return this.scoreFrames(episodes.map((episode) => ({ episode, step: episode.steps })));
  }

  variables(): tf.Variable[] {
    return [
      ...this.#language.variables(),
      ...this.#attention.flatMap((a) => a.variables()),
      ...this.#hidden.variables(),
      ...this.#out.variables(),
    ];
  }

  namedVariables(): Record<string, tf.Variable> {
    return namedVariables(this.variables());
  }

  dispose(): void {
    tf.dispose([...this.#language.variables(), ...this.#hidden.variables(), ...this.#out.variables()]);
    for (const a of this.#attention) a.dispose();
    this.#qpos.dispose();
  }
}
