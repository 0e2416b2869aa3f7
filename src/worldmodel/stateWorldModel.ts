/**
 * The `state` world model: an ensemble of K MLPs mapping (state, action, task context) to a
 * Gaussian over the next state's change (mean and log-variance, normalised), the success
 * logit and the progress of the next state. All members run in one batched computation.
 */
import * as tf from '@tensorflow/tfjs';
import { EnsembleMlp } from './ensembleMlp.ts';
import { Normalizer, type NormalizerStats } from '../nn/normalizer.ts';
import { stateModelLoss } from './stateModelLoss.ts';
import type { WindowBatch } from './windowBatch.ts';

export interface StateModelConfig {
  members: number;
  hidden: number[];
  seed: number;
  /** Soft bounds of the predicted log-variance (normalised units), as in PETS. */
  minLogVar: number;
  maxLogVar: number;
  /**
   * With a number, success and progress come from a separate network over the state's scene part,
   * dims [sceneFrom, D) (everything after the joint positions and velocities), trained on real
   * states; otherwise from the dynamics network's own two extra outputs (the joint head).
   */
  sceneFrom?: number;
  /**
   * β of the β-NLL (Seitzer et al., 2022): each element's NLL weighed by its predicted variance^β (held constant
   * in the gradient). 0 (absent): the plain Gaussian NLL, whose gradient on a mean shrinks where the model
   * predicts a large variance, so the rare, hard transitions are fitted least.
   */
  nllBeta?: number;
}

export interface StateModelDims {
  state: number;
  action: number;
  context: number;
}

export interface StepOutput {
  /** Next state (raw units), [K, N, D]. */
  next: tf.Tensor3D;
  /** Predicted normalised delta mean and log-variance, [K, N, D]. */
  deltaMean: tf.Tensor3D;
  logVar: tf.Tensor3D;
  /** Success logit and progress in [0,1] of the next state, [K, N]. */
  successLogit: tf.Tensor2D;
  progress: tf.Tensor2D;
}

export interface StateModelStats {
  state: NormalizerStats;
  delta: NormalizerStats;
}

/** Bound on imagined states, in standard deviations of the training data from its mean. */
export const STATE_BOUND_STD = 6;

export class StateWorldModel {
  readonly kind = 'state' as const;
  readonly config: StateModelConfig;
  readonly dims: StateModelDims;
  readonly net: EnsembleMlp;
  readonly stateNorm: Normalizer;
  readonly deltaNorm: Normalizer;
  /** The scene score network (config sceneFrom), or undefined for the joint head. */
  readonly scoreNet: EnsembleMlp | undefined;
  constructor(config: StateModelConfig, dims: StateModelDims, stats: StateModelStats) {
    this.config = config;
    this.dims = dims;
    this.stateNorm = new Normalizer(stats.state);
    this.deltaNorm = new Normalizer(stats.delta);
    if (this.stateNorm.dim !== dims.state || this.deltaNorm.dim !== dims.state)
      throw new Error('normalisation statistics do not match the state dimension');
    this.net = new EnsembleMlp({
      name: 'state',
      members: config.members,
      input: dims.state + dims.action + dims.context,
      hidden: config.hidden,
      output: 2 * dims.state + 2,
      seed: config.seed,
    });
    const from = config.sceneFrom;
    if (from !== undefined && (!Number.isInteger(from) || from < 0 || from >= dims.state))
      throw new Error(`scene score head: the scene part must start inside the ${dims.state}-dim state, got ${from}`);
    this.scoreNet =
      from === undefined
        ? undefined
        : new EnsembleMlp({
            name: 'score',
            members: config.members,
            input: dims.state - from + dims.context,
            hidden: config.hidden,
            output: 2,
            seed: config.seed + 7919,
          });
  }

  /** Success logit and progress of raw states x [K,N,D] from the scene score network, [K, N] each. */
  sceneScore(x: tf.Tensor3D, context: tf.Tensor3D): { successLogit: tf.Tensor2D; progress: tf.Tensor2D } {
    if (!this.scoreNet) throw new Error('this world model scores with the joint head (no scene score network)');
    return tf.tidy(() => {
      const from = this.config.sceneFrom!;
      const scene = this.stateNorm.normalize(x).slice([0, 0, from], [-1, -1, -1]);
      const out = this.scoreNet!.apply(tf.concat([scene, context], 2) as tf.Tensor3D);
      return {
        successLogit: out.slice([0, 0, 0], [-1, -1, 1]).squeeze([2]) as tf.Tensor2D,
        progress: tf.sigmoid(out.slice([0, 0, 1], [-1, -1, 1]).squeeze([2])) as tf.Tensor2D,
      };
    });
  }

  get members(): number {
    return this.config.members;
  }

  /**
   * One transition for every member: x [K,N,D] raw, action [K,N,A], context
   * [K,N,C]; the next state scored by the scene score network where there is one.
   */
  step(x: tf.Tensor3D, action: tf.Tensor3D, context: tf.Tensor3D): StepOutput {
    if (!this.scoreNet) return this.transition(x, action, context);
    return tf.tidy(() => {
      const out = this.transition(x, action, context);
      return { next: out.next, deltaMean: out.deltaMean, logVar: out.logVar, ...this.sceneScore(out.next, context) };
    });
  }

  /**
   * One transition with the dynamics network's own success / progress
   * head (the training loss scores real states instead: stateModelLoss).
   */
  transition(x: tf.Tensor3D, action: tf.Tensor3D, context: tf.Tensor3D): StepOutput {
    return tf.tidy(() => {
      const D = this.dims.state;
      const normalized = this.stateNorm.normalize(x);
      const out = this.net.apply(tf.concat([normalized, action, context], 2));
      const deltaMean = out.slice([0, 0, 0], [-1, -1, D]);
      const raw = out.slice([0, 0, D], [-1, -1, D]);
      const { minLogVar: lo, maxLogVar: hi } = this.config;
      // Soft clamp keeps gradients alive at the bounds.
      const logVar = tf.add(lo, tf.softplus(tf.sub(tf.sub(hi, tf.softplus(tf.sub(hi, raw))), lo))) as tf.Tensor3D;
      const successLogit = out.slice([0, 0, 2 * D], [-1, -1, 1]).squeeze([2]) as tf.Tensor2D;
      const progress = tf.sigmoid(out.slice([0, 0, 2 * D + 1], [-1, -1, 1]).squeeze([2])) as tf.Tensor2D;
      // Imagined states stay within STATE_BOUND_STD of the data: a diverging rollout would
      // otherwise feed the policy inputs it has never seen (its KL to BC reached 1e13).
      const next = this.stateNorm.denormalize(
        tf.clipByValue(
          this.stateNorm.normalize(tf.add(x, this.deltaNorm.denormalize(deltaMean))),
          -STATE_BOUND_STD,
          STATE_BOUND_STD,
        ),
      ) as tf.Tensor3D;
      return { next, deltaMean, logVar, successLogit, progress };
    });
  }

  /** Gaussian NLL (β-NLL with config nllBeta) of the true next state under the prediction, per sample: [K, N]. */
  transitionNll(out: StepOutput, from: tf.Tensor3D, target: tf.Tensor3D): tf.Tensor2D {
    return tf.tidy(() => {
      const targetDelta = this.deltaNorm.normalize(tf.sub(target, from));
      const err = tf.square(tf.sub(out.deltaMean, targetDelta));
      const nll = tf.mul(0.5, tf.add(tf.mul(err, tf.exp(tf.neg(out.logVar))), out.logVar));
      const beta = this.config.nllBeta ?? 0;
      if (beta === 0) return tf.mean(nll, 2) as tf.Tensor2D;
      return tf.mean(tf.mul(nll, stopGradient(tf.exp(tf.mul(beta, out.logVar)))), 2) as tf.Tensor2D;
    });
  }

  variables(): tf.Variable[] {
    return [...this.net.variables(), ...(this.scoreNet?.variables() ?? [])];
  }

  loss(batch: WindowBatch) {
    return stateModelLoss(this, batch);
  }

  stats(): StateModelStats {
    return { state: this.stateNorm.toJSON(), delta: this.deltaNorm.toJSON() };
  }

  dispose(): void {
    this.net.dispose();
    this.scoreNet?.dispose();
    this.stateNorm.dispose();
    this.deltaNorm.dispose();
  }
}

/** x in the forward pass, a constant in the gradient. */
const stopGradient = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
  const x = args[0] as tf.Tensor;
  return { value: x.clone(), gradFunc: (dy: tf.Tensor | tf.Tensor[]) => tf.zerosLike(dy as tf.Tensor) };
}) as (x: tf.Tensor) => tf.Tensor;
