/**
 * The vision-language-action policy.
 * - Language: adjacent-word features max-pooled over the instruction (LanguageEncoder).
 * - Vision: the patch encoder's global latent (the video world model's encoder) and
 *   language-grounded spatial attention (where the named object and zone are, in pixels).
 *   Together they form the perception latent; imagination can hand that in directly.
 * - Proprio: normalised joint positions and velocities.
 * Language also modulates the vision features (FiLM) before the fused trunk; a Gaussian head
 * gives the action mean and a learned, state-independent log-std.
 */
import * as tf from '@tensorflow/tfjs';
import { newVariable, namedVariables } from '../core/variables.ts';
import { Dense, swish } from '../nn/dense.ts';
import { PatchEncoder, type PatchCodecConfig } from '../vision/patchCodec.ts';
import { Normalizer, type NormalizerStats } from '../nn/normalizer.ts';
import { gaussianLogProb } from './gaussian.ts';
import { GroundedAttention } from './groundedAttention.ts';
import { LanguageEncoder } from './languageEncoder.ts';
import type { PolicyConfig } from './policyConfig.ts';
import { Tokenizer } from './tokenizer.ts';

/** Batched policy input. */
export interface PolicyInput {
  /** Perception latents, [N, Z] (see VlaPolicy.perceive; imagination hands these in)... */
  latent?: tf.Tensor2D;
  /** ...or camera frames [N, S, S, 3] in [0,1], perceived inside the model. */
  images?: tf.Tensor4D;
  /** Joint positions then velocities (raw), [N, P]. */
  proprio: tf.Tensor2D;
  /** Token ids, [N, maxTokens] int32. */
  tokens: tf.Tensor2D;
  /**
   * The instruction features of these tokens, [N, features] (VlaPolicy.encodeInstructions), when
   * a caller computes them once for many passes: reinforcement learning never changes them.
   */
  language?: tf.Tensor2D;
}

export interface PolicyOutput {
  action: tf.Tensor2D;
  logProb: tf.Tensor1D;
  mean: tf.Tensor2D;
}

export interface PolicyMeta {
  actionDim: number;
  proprioDim: number;
  tokenizer: { vocab: string[]; maxTokens: number };
  proprio: NormalizerStats;
  /** The task families of its demonstrations (absent in checkpoints from before it was kept). */
  families?: string[];
}

export class VlaPolicy {
  readonly config: PolicyConfig;
  readonly meta: PolicyMeta;
  readonly tokenizer: Tokenizer;
  /** The patch encoder's global latent; absent when `encoder.latent` and `encoder.keypoints` are 0. */
  readonly encoder: PatchEncoder | undefined;
  readonly proprioNorm: Normalizer;
  readonly language: LanguageEncoder;
  readonly grounding: GroundedAttention;
  readonly vision: Dense;
  readonly film: Dense;
  readonly proprio: Dense;
  readonly trunk: Dense[];
  readonly head: Dense;
  /** Training-only auxiliary head: the instructed object's and the goal's positions from the
   * language-modulated vision features (privileged supervision from simulator demos). */
  readonly aux: Dense;
  readonly logStd: tf.Variable;

  constructor(config: PolicyConfig, meta: PolicyMeta, encoder?: PatchEncoder) {
    this.config = config;
    this.meta = meta;
    this.tokenizer = new Tokenizer(meta.tokenizer.vocab, meta.tokenizer.maxTokens);
    this.encoder = encoder ?? (usesPatchEncoder(config) ? new PatchEncoder(encoderConfig(config)) : undefined);
    this.proprioNorm = new Normalizer(meta.proprio);
    const s = config.seed * 101;
    const F = config.features;
    this.language = new LanguageEncoder('policy/language', this.tokenizer.size, config.tokenDim, F, s + 1);
    this.grounding = new GroundedAttention('policy/grounding', config.grounding, config.encoder.imageSize, F, s + 40);
    this.vision = new Dense('policy/vision', this.latentDim, F, s + 2);
    // FiLM starts at identity (zero init): language first learns to gate, then to shift.
    this.film = new Dense('policy/film', F, 2 * F, s + 4, { zeroInit: true });
    this.proprio = new Dense('policy/proprio', meta.proprioDim, F, s + 5);
    const widths = [3 * F, ...config.trunk];
    this.trunk = widths.slice(1).map((w, i) => new Dense(`policy/trunk${i}`, widths[i]!, w, s + 10 + i));
    this.head = new Dense('policy/head', widths.at(-1)!, this.outputDim, s + 30);
    this.aux = new Dense('policy/aux', F, AUX_DIM, s + 31);
    this.logStd = newVariable(tf.fill([this.outputDim], config.initLogStd), 'policy/log_std');
  }

  /** One tick's action width. */
  get actionDim(): number {
    return this.meta.actionDim;
  }

  /** Width of the head's output: `actionChunk` ticks of actions, oldest first. */
  get outputDim(): number {
    return this.meta.actionDim * this.config.actionChunk;
  }

  /** Width of the perception latent: the encoder's latent, then the grounded attention's output. */
  get latentDim(): number {
    return (this.encoder?.outputDim ?? 0) + this.grounding.outputDim;
  }

  /** Action mean for a batch. */
  mean(input: PolicyInput): tf.Tensor2D {
    return tf.tidy(() => this.head.apply(this.#forward(input).trunk));
  }

  /** Auxiliary prediction (target object xyz, goal xyz; ×10, in decimetres), [N, 6]. */
  auxiliary(input: PolicyInput): tf.Tensor2D {
    return tf.tidy(() => this.aux.apply(this.#forward(input).vision));
  }

  /** Action mean, auxiliary prediction and (from images) the grounded attention's image
   * positions of its first IMAGE_TARGET_HEADS heads, [N, 2·heads], from one forward pass. */
  meanAndAuxiliary(input: PolicyInput): { mean: tf.Tensor2D; aux: tf.Tensor2D; positions?: tf.Tensor2D } {
    return tf.tidy(() => {
      const f = this.#forward(input);
      return {
        mean: this.head.apply(f.trunk),
        aux: this.aux.apply(f.vision),
        ...(f.positions ? { positions: f.positions } : {}),
      };
    });
  }

  #forward(input: PolicyInput): { vision: tf.Tensor2D; trunk: tf.Tensor2D; positions?: tf.Tensor2D } {
    return tf.tidy(() => {
      const n = input.tokens.shape[0];
      const F = this.config.features;
      const lang = input.language ?? this.language.apply(input.tokens);
      const gammaBeta = this.film.apply(lang);
      const perceived = input.latent ? undefined : this.#perceive(input.images, lang);
      const vis = swish(this.vision.apply(input.latent ?? perceived!.latent));
      const modulated = tf.add(
        tf.mul(vis, tf.add(1, gammaBeta.slice([0, 0], [n, F]))),
        gammaBeta.slice([0, F], [n, F]),
      ) as tf.Tensor2D;
      const prop = swish(this.proprio.apply(this.#proprioFeatures(input.proprio)));
      let h = tf.concat([modulated, lang, prop], 1) as tf.Tensor2D;
      for (const layer of this.trunk) h = swish(layer.apply(h));
      return { vision: modulated, trunk: h, ...(perceived ? { positions: perceived.positions } : {}) };
    });
  }

  /**
   * Normalised proprio [qpos, qvel] (the gripper last in each); without `gripperVelocity` the
   * gripper's velocity reads as its mean (0).
   */
  #proprioFeatures(proprio: tf.Tensor2D): tf.Tensor2D {
    const normalized = this.proprioNorm.normalize(proprio);
    if (this.config.gripperVelocity) return normalized;
    const [n, width] = normalized.shape;
    return tf.concat([normalized.slice([0, 0], [n, width - 1]), tf.zeros([n, 1])], 1) as tf.Tensor2D;
  }

  /** Perception latents [N, latentDim] of camera frames under their instructions. */
  perceive(images: tf.Tensor4D, tokens: tf.Tensor2D): tf.Tensor2D {
    return tf.tidy(() => this.#perceive(images, this.language.apply(tokens)).latent);
  }

  #perceive(images: tf.Tensor4D | undefined, lang: tf.Tensor2D): { latent: tf.Tensor2D; positions: tf.Tensor2D } {
    if (!images) throw new Error('policy input needs perception latents or images');
    const n = images.shape[0];
    const grounded = this.grounding.attend(images, lang);
    const heads = Math.min(IMAGE_TARGET_HEADS, this.config.grounding.heads);
    return {
      latent: this.encoder
        ? (tf.concat([this.encoder.encode(images), grounded.output], 1) as tf.Tensor2D)
        : grounded.output,
      positions: grounded.positions.slice([0, 0, 0], [n, heads, 2]).reshape([n, 2 * heads]) as tf.Tensor2D,
    };
  }

  /**
   * Sample (or take the mean, `deterministic`) with log-probabilities. The standard-normal noise
   * is drawn from `seed`, or given as `noise` (the mean's shape) to replay a known sequence.
   */
  act(input: PolicyInput, options: { deterministic?: boolean; seed?: number; noise?: tf.Tensor2D } = {}): PolicyOutput {
    return tf.tidy(() => {
      const mean = this.mean(input);
      const noise = () => options.noise ?? tf.randomNormal(mean.shape, 0, 1, 'float32', options.seed);
      const action = options.deterministic ? mean : (tf.add(mean, tf.mul(tf.exp(this.logStd), noise())) as tf.Tensor2D);
      return { action, logProb: gaussianLogProb(action, mean, this.logStd), mean };
    });
  }

  /** log π(action | input), [N]; with `mask` ([N, A] of 0 and 1) of the dims it keeps only. */
  logProb(input: PolicyInput, action: tf.Tensor2D, mask?: tf.Tensor2D): tf.Tensor1D {
    return tf.tidy(() => gaussianLogProb(action, this.mean(input), this.logStd, mask));
  }

  /** Trainable variables: the encoder's too when `encoder.trainable`. */
  variables(): tf.Variable[] {
    return [...(this.config.encoder.trainable ? this.encoderVariables() : []), ...this.headVariables()];
  }

  /** Instruction features of token ids [N, maxTokens] → [N, features] (see PolicyInput.language). */
  encodeInstructions(tokens: tf.Tensor2D): tf.Tensor2D {
    return this.language.apply(tokens);
  }

  /** What reinforcement learning updates: everything after perception and language, so the
   * perception latents a world model was trained on stay valid. */
  rlVariables(): tf.Variable[] {
    return [
      ...this.vision.variables(),
      ...this.film.variables(),
      ...this.proprio.variables(),
      ...this.trunk.flatMap((l) => l.variables()),
      ...this.head.variables(),
      this.logStd,
    ];
  }

  /** Everything but the encoder. */
  headVariables(): tf.Variable[] {
    return [
      ...this.language.variables(),
      ...this.grounding.variables(),
      ...this.vision.variables(),
      ...this.film.variables(),
      ...this.proprio.variables(),
      ...this.trunk.flatMap((l) => l.variables()),
      ...this.head.variables(),
      ...this.aux.variables(),
      this.logStd,
    ];
  }

  /** Parameters outside the encoder. */
  get parameterCount(): number {
    return this.headVariables().reduce((n, v) => n + v.size, 0);
  }

  get encoderParameterCount(): number {
    return this.encoderVariables().reduce((n, v) => n + v.size, 0);
  }

  encoderVariables(): tf.Variable[] {
    return this.encoder?.variables() ?? [];
  }

  /** Every variable, encoder included, by stable name (for checkpoints). */
  namedVariables(): Record<string, tf.Variable> {
    return namedVariables([...this.headVariables(), ...this.encoderVariables()]);
  }

  dispose(): void {
    tf.dispose(this.headVariables());
    this.grounding.dispose();
    this.encoder?.dispose();
    this.proprioNorm.dispose();
  }
}

/** Auxiliary targets per sample: target object position and goal position, in decimetres. */
export const AUX_DIM = 6;
/** Grounding heads supervised with image positions (the instructed object, then the goal). */
export const IMAGE_TARGET_HEADS = 2;

/** Whether the policy's perception includes the patch encoder's latent. */
export function usesPatchEncoder(config: PolicyConfig): boolean {
  return config.encoder.latent > 0 || config.encoder.keypoints > 0;
}

export function encoderConfig(config: PolicyConfig): PatchCodecConfig {
  const e = config.encoder;
  return {
    imageSize: e.imageSize,
    patch: e.patch,
    patchDim: e.patchDim,
    latent: e.latent,
    keypoints: e.keypoints,
    seed: config.seed,
  };
}
