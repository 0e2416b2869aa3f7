/**
 * The world model behind one contract, two kinds:
 *  - `state`: ensemble dynamics over [joint positions, joint velocities, object state];
 *  - `video`: a patch encoder turns the camera frame into a latent, ensemble dynamics run over
 *    [joint positions, joint velocities, latent], a decoder turns latents back into frames.
 * Both kinds share the ensemble dynamics (StateWorldModel) and the imagination loop.
 */
import type { KeyframeLocaliserWeights } from './keyframes.ts';
import * as tf from '@tensorflow/tfjs';
import type { Episode, Observation } from '../core/types.ts';
import { concatFloat32 } from '../core/arrays.ts';
import { Rng } from '../core/rng.ts';
import { namedVariables } from '../core/variables.ts';
import { PatchDecoder, PatchEncoder, type PatchCodecConfig } from '../vision/patchCodec.ts';
import { floatToBytes, framesToFloat, observationFrames } from '../vision/frames.ts';
import { evaluateDynamics, type WorldModelEvaluation } from './evaluateModel.ts';
import { fitEnsemble, type EpochMetrics, type FitReport } from './fitEnsemble.ts';
import {
  imagine,
  type ImaginationPolicy,
  type ImaginationStarts,
  type ImaginedRollouts,
  type ImagineOptions,
} from './imagine.ts';
import { scoreRule } from './scoreRules.ts';
import { Normalizer } from '../nn/normalizer.ts';
import { StateWorldModel, type StateModelDims, type StateModelStats } from './stateWorldModel.ts';
import { trainAutoencoder } from '../vision/trainAutoencoder.ts';
import { requireComplete } from '../data/completeEpisodes.ts';
import { splitEpisodes } from '../data/splitEpisodes.ts';
import { CONTEXT_DIM, familyOneHot } from '../tasks/familyContext.ts';
import { buildWindows, stateVector, type Windows } from './transitionData.ts';
import { videoCamera, type WorldModelConfig } from './worldModelConfig.ts';
import { firstCamera } from '../core/firstCamera.ts';

export interface WorldModelMeta {
  dims: StateModelDims;
  stats: StateModelStats;
  qposDim: number;
  /** Episode ids held out for validation (evaluation uses them when given the same data). */
  validationEpisodeIds: string[];
  datasetId?: string;
  /**
   * A perception world model's state layout after the policy's [proprio, latent], recorded when it
   * is trained (src/worldmodel/perceptionWorldModel.ts). Absent: another kind of world model, or a
   * perception one saved before the layout was recorded (perceptionLayout migrates those).
   */
  perception?: PerceptionLayout;
}

/** What a perception world model's state holds beyond the policy's [proprio, latent]. */
export interface PerceptionLayout {
  /** The end effector's xyz (forward kinematics of the joint positions) after the latent. */
  endEffector: boolean;
  /** Names of features read by kinds since removed ('localised'): a model that holds one is refused. */
  goal?: string;
  object?: string;
  /** Then the demonstration keyframes relative to the end effector and which the family shows (keyframes.ts). */
  keyframes?: KeyframeLocaliserWeights;
}

export interface TrainHooks {
  onStage?: (stage: 'autoencoder' | 'dynamics', steps: number) => void;
  onStep?: (step: number, steps: number, epoch: number) => void;
  onEpoch?: (stage: 'autoencoder' | 'dynamics', metrics: Record<string, unknown>) => void;
  signal?: AbortSignal;
}

export interface TrainReport {
  dynamics: FitReport;
  autoencoder?: { epoch: number; trainLoss: number; validationLoss: number }[];
  trainEpisodes: number;
  validationEpisodes: number;
  seconds: number;
}

export class WorldModel {
  readonly config: WorldModelConfig;
  readonly dynamics: StateWorldModel;
  readonly encoder: PatchEncoder | undefined;
  readonly decoder: PatchDecoder | undefined;
  readonly meta: WorldModelMeta;

  /** `codec` hands over an already trained encoder/decoder (video kind); else they are created. */
  constructor(
    config: WorldModelConfig,
    meta: WorldModelMeta,
    codec?: { encoder: PatchEncoder; decoder: PatchDecoder },
  ) {
    this.config = config;
    this.meta = meta;
    this.dynamics = new StateWorldModel(
      {
        members: config.members,
        hidden: config.hidden,
        seed: config.seed,
        minLogVar: config.minLogVar,
        maxLogVar: config.maxLogVar,
        ...(config.train.nllBeta > 0 ? { nllBeta: config.train.nllBeta } : {}),
        ...(config.scoreHead === 'scene' ? { sceneFrom: 2 * meta.qposDim } : {}),
      },
      meta.dims,
      meta.stats,
    );
    if (config.kind === 'video') {
      this.encoder = codec?.encoder ?? new PatchEncoder(codecConfig(config));
      this.decoder = codec?.decoder ?? new PatchDecoder(codecConfig(config));
    }
  }

  get kind(): 'state' | 'video' {
    return this.config.kind;
  }

  get members(): number {
    return this.config.members;
  }

  /**
   * Train both stages on episodes (a validation split by episode is held out). `perception`: the layout of a
   * perception world model's state (perceptionWorldModel.ts), recorded in its meta.
   */
  static async train(
    episodes: Episode[],
    requested: WorldModelConfig,
    hooks: TrainHooks = {},
    perception?: PerceptionLayout,
  ): Promise<{ model: WorldModel; report: TrainReport }> {
    const started = performance.now();
    requireComplete(episodes, 'world model training');
    if (episodes.length < 2) throw new Error(`need at least 2 episodes to train a world model, got ${episodes.length}`);
    // A video model whose config names no camera encodes the robot's first; the model records which.
    const config: WorldModelConfig =
      requested.kind === 'video' && requested.video.camera === undefined
        ? { ...requested, video: { ...requested.video, camera: firstCamera(episodes, 'the video world model') } }
        : requested;
    const rng = new Rng(config.seed);
    const split = splitEpisodes(episodes.length, config.train.validationFraction, (xs) => rng.shuffle(xs));
    let encoder: PatchEncoder | undefined;
    let decoder: PatchDecoder | undefined;
    let aeHistory: TrainReport['autoencoder'];
    let modelEpisodes = episodes;
    if (config.kind === 'video') {
      const codec = codecConfig(config);
      encoder = new PatchEncoder(codec);
      decoder = new PatchDecoder(codec);
      const { frames, owner } = episodeFrames(episodes, videoCamera(config), codec.imageSize);
      const trainFrames: number[] = [];
      const valFrames: number[] = [];
      owner.forEach((e, i) => (split.train.has(e) ? trainFrames : valFrames).push(i));
      hooks.onStage?.(
        'autoencoder',
        Math.max(1, Math.floor(trainFrames.length / Math.min(config.video.batchSize, trainFrames.length))),
      );
      aeHistory = await trainAutoencoder(encoder, decoder, frames, trainFrames, valFrames, {
        epochs: config.video.epochs,
        batchSize: config.video.batchSize,
        learningRate: config.video.learningRate,
        seed: config.seed,
        onStep: hooks.onStep,
        onEpoch: (m) => hooks.onEpoch?.('autoencoder', m),
        signal: hooks.signal,
      });
      modelEpisodes = episodes.map((e, i) =>
        withLatentState(e, encodeFloatFrames(encoder!, frames, owner, i, codec.imageSize)),
      );
    }
    const windows = buildWindows(modelEpisodes, config.train.k);
    const trainIdx: number[] = [];
    const valIdx: number[] = [];
    for (let n = 0; n < windows.count; n++) (split.train.has(windows.episode[n]!) ? trainIdx : valIdx).push(n);
    const meta: WorldModelMeta = {
      dims: { state: windows.stateDim, action: windows.actionDim, context: CONTEXT_DIM },
      stats: fitStats(windows, trainIdx),
      qposDim: episodes[0]!.qposDim,
      validationEpisodeIds: episodes.filter((_, i) => split.validation.has(i)).map((e) => e.id),
      ...(perception ? { perception: { ...perception } } : {}),
    };
    const model = new WorldModel(config, meta, encoder && decoder ? { encoder, decoder } : undefined);
    const steps = Math.max(1, Math.floor(trainIdx.length / Math.min(config.train.batchSize, trainIdx.length)));
    hooks.onStage?.('dynamics', config.train.maxStepsPerEpoch ? Math.min(steps, config.train.maxStepsPerEpoch) : steps);
    const dynamics = await fitEnsemble(model.dynamics, windows, trainIdx, valIdx, {
      epochs: config.train.epochs,
      batchSize: config.train.batchSize,
      learningRate: config.train.learningRate,
      patience: config.train.patience,
      seed: config.seed,
      maxStepsPerEpoch: config.train.maxStepsPerEpoch,
      onStep: hooks.onStep,
      onEpoch: (m: EpochMetrics) => hooks.onEpoch?.('dynamics', { ...m }),
      signal: hooks.signal,
    });
    const report = {
      dynamics,
      autoencoder: aeHistory,
      trainEpisodes: split.train.size,
      validationEpisodes: split.validation.size,
      seconds: (performance.now() - started) / 1000,
    };
    return { model, report };
  }

  /**
   * Warm-started refit: continue training the dynamics for `epochs` on episodes already in this
   * model's state layout (e.g. old data plus new anchor episodes), keeping its normalisation.
   * `maxSteps` caps the optimiser steps of each epoch (default: the model's train.maxStepsPerEpoch).
   */
  async refit(
    modelEpisodes: Episode[],
    options: { epochs: number; seed: number; maxSteps?: number; hooks?: TrainHooks },
  ): Promise<FitReport> {
    requireComplete(modelEpisodes, 'world model refit');
    const rng = new Rng(options.seed);
    const split = splitEpisodes(modelEpisodes.length, this.config.train.validationFraction, (xs) => rng.shuffle(xs));
    const windows = buildWindows(modelEpisodes, this.config.train.k);
    if (windows.stateDim !== this.meta.dims.state)
      throw new Error(
        `refit: episodes give ${windows.stateDim}-dim states; this world model has ${this.meta.dims.state}`,
      );
    const trainIdx: number[] = [];
    const valIdx: number[] = [];
    for (let n = 0; n < windows.count; n++) (split.train.has(windows.episode[n]!) ? trainIdx : valIdx).push(n);
    const hooks = options.hooks ?? {};
    return fitEnsemble(this.dynamics, windows, trainIdx, valIdx, {
      epochs: options.epochs,
      batchSize: this.config.train.batchSize,
      learningRate: this.config.train.learningRate,
      patience: options.epochs,
      seed: options.seed,
      maxStepsPerEpoch: options.maxSteps ?? this.config.train.maxStepsPerEpoch,
      onStep: hooks.onStep,
      onEpoch: (m: EpochMetrics) => hooks.onEpoch?.('dynamics', { ...m }),
      signal: hooks.signal,
    });
  }

  /** Episodes in this model's state layout (the video kind replaces object state by latents). */
  toModelEpisodes(episodes: Episode[]): Episode[] {
    if (this.kind === 'state') return episodes;
    const size = this.config.video.imageSize;
    const { frames, owner } = episodeFrames(episodes, videoCamera(this.config), size);
    return episodes.map((e, i) => withLatentState(e, encodeFloatFrames(this.encoder!, frames, owner, i, size)));
  }

  /** Held-out evaluation: H-step errors, success AUROC/ECE, variance–error rank correlation. */
  evaluate(episodes: Episode[], horizon = this.config.eval.horizon): WorldModelEvaluation {
    return evaluateDynamics(this.dynamics, this.toModelEpisodes(episodes), {
      horizon,
      objectState: this.kind === 'state',
    });
  }

  /** Imagination starts from real observations of the given task families (registered names). */
  startsFrom(observations: Observation[], families: string[]): ImaginationStarts {
    const B = observations.length;
    const D = this.meta.dims.state;
    const states = new Float32Array(B * D);
    let latents: Float32Array | undefined;
    if (this.kind === 'video') {
      const size = this.config.video.imageSize;
      const pixels = observationFrames(observations, videoCamera(this.config), size, 'this video world model');
      latents = tf.tidy(() => this.encoder!.encode(tf.tensor4d(pixels, [B, size, size, 3])).dataSync() as Float32Array);
    }
    observations.forEach((o, i) => {
      const Z = this.encoder?.outputDim ?? 0;
      const extra = latents ? latents.subarray(i * Z, (i + 1) * Z) : o.state;
      if (!extra)
        throw new Error('the state world model needs privileged object state in observations (simulator episodes)');
      const v = stateVector(o.qpos, o.qvel, extra);
      if (v.length !== D) throw new Error(`observation gives a ${v.length}-dim state; this world model expects ${D}`);
      states.set(v, i * D);
    });
    const context = new Float32Array(B * CONTEXT_DIM);
    families.forEach((f, i) => context.set(familyOneHot(f), i * CONTEXT_DIM));
    return { states, stateDim: D, context, instructions: observations.map((o) => o.instruction) };
  }

  /** B rollouts × K members × H steps, batched. */
  imagine(
    policy: ImaginationPolicy,
    starts: ImaginationStarts,
    horizon: number,
    options: ImagineOptions = {},
  ): ImaginedRollouts {
    const needs = options.rule ? scoreRule(options.rule).needs : undefined;
    if (needs === 'keyframes' && !this.meta.perception?.keyframes)
      throw new Error(
        `score '${options.rule}' reads the keyframe numbers of the world model's state: use a world model that ` +
          'holds them (wmrl train --worldModel.keyframes)',
      );
    return imagine(this.dynamics, policy, starts, horizon, options);
  }

  /** Decoded frames of one imagined rollout: (H+1) × K frames of size² × 3 bytes (video kind). */
  decodeRollout(rollouts: ImaginedRollouts, b: number): { size: number; frames: Uint8Array } {
    if (!this.decoder) throw new Error('only the video world model decodes frames');
    const { horizon: H, members: K, rollouts: B, stateDim: D } = rollouts;
    const Z = this.encoder!.outputDim;
    const offset = D - Z;
    const latents = new Float32Array((H + 1) * K * Z);
    for (let t = 0; t <= H; t++)
      for (let k = 0; k < K; k++)
        latents.set(
          rollouts.states.subarray(((t * K + k) * B + b) * D + offset, ((t * K + k) * B + b) * D + D),
          (t * K + k) * Z,
        );
    const pixels = tf.tidy(() => this.decoder!.decode(tf.tensor2d(latents, [(H + 1) * K, Z])).dataSync());
    return { size: this.config.video.imageSize, frames: floatToBytes(pixels) };
  }

  /** Every trainable variable by stable name (for checkpoints). */
  namedVariables(): Record<string, tf.Variable> {
    return namedVariables([
      ...this.dynamics.variables(),
      ...(this.encoder?.variables() ?? []),
      ...(this.decoder?.variables() ?? []),
    ]);
  }

  dispose(): void {
    this.dynamics.dispose();
    this.encoder?.dispose();
    this.decoder?.dispose();
  }
}

function codecConfig(config: WorldModelConfig): PatchCodecConfig {
  const v = config.video;
  return {
    imageSize: v.imageSize,
    patch: v.patch,
    patchDim: v.patchDim,
    latent: v.latent,
    keypoints: v.keypoints,
    seed: config.seed,
  };
}

/** Mean/std of states and of one-step deltas over the training windows. */
function fitStats(w: Windows, trainIdx: number[]): StateModelStats {
  const D = w.stateDim;
  const xs = new Float32Array(trainIdx.length * D);
  const ds = new Float32Array(trainIdx.length * D);
  trainIdx.forEach((n, j) => {
    const base = n * (w.k + 1) * D;
    for (let d = 0; d < D; d++) {
      xs[j * D + d] = w.states[base + d]!;
      ds[j * D + d] = w.states[base + D + d]! - w.states[base + d]!;
    }
  });
  return { state: Normalizer.fitStats(xs, D), delta: Normalizer.fitStats(ds, D) };
}

/** All frames of a camera as floats, with the episode index of each frame. */
function episodeFrames(episodes: Episode[], camera: string, size: number): { frames: Float32Array; owner: number[] } {
  const parts: Float32Array[] = [];
  const owner: number[] = [];
  episodes.forEach((e, i) => {
    const cam = e.cameras[camera];
    if (!cam)
      throw new Error(
        `episode ${e.id} has no '${camera}' camera; the video world model needs it (collect with --cameras ${camera})`,
      );
    parts.push(framesToFloat(cam.frames, cam.width, cam.height, size));
    for (let t = 0; t <= e.steps; t++) owner.push(i);
  });
  const frames = concatFloat32(parts);
  return { frames, owner };
}

function encodeFloatFrames(
  encoder: PatchEncoder,
  frames: Float32Array,
  owner: number[],
  episode: number,
  size: number,
): Float32Array {
  const first = owner.indexOf(episode);
  const count = owner.lastIndexOf(episode) - first + 1;
  const frameSize = size * size * 3;
  return tf.tidy(
    () =>
      encoder
        .encode(tf.tensor4d(frames.subarray(first * frameSize, (first + count) * frameSize), [count, size, size, 3]))
        .dataSync() as Float32Array,
  );
}

function withLatentState(e: Episode, latents: Float32Array): Episode {
  return { ...e, state: latents, stateDim: latents.length / (e.steps + 1) };
}
