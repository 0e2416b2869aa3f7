/**
 * Imagination: roll B start states × K ensemble members forward H steps with a policy, one
 * batched computation per step. Each member follows its own trajectory (the policy acts on
 * every member's imagined state), so ensemble disagreement grows where the model is unsure.
 */
import * as tf from '@tensorflow/tfjs';
import { type ScoreRuleName, scoreRule } from './scoreRules.ts';

/** What the policy sees of an imagined state: N = K × B rows, member-major. */
export interface ImaginedObservation {
  step: number;
  /** Imagined model state in raw units ([N, D] state vector, or [N, Z] latent for the video kind). */
  state: tf.Tensor2D;
  /** Task context one-hot, [N, C]. */
  context: tf.Tensor2D;
  /** Instruction of each row (rollout b's instruction repeated for every member). */
  instructions: string[];
  /** Which start each row belongs to. */
  rollout: Int32Array;
}

export interface ImaginationPolicy {
  /** Actions for every row, [N, A]; the caller disposes it. */
  act(observation: ImaginedObservation): tf.Tensor2D;
}

/** The one-step model imagination needs (both world-model kinds implement it). */
export interface DynamicsModel {
  readonly members: number;
  step(
    x: tf.Tensor3D,
    action: tf.Tensor3D,
    context: tf.Tensor3D,
  ): { next: tf.Tensor3D; successLogit: tf.Tensor2D; progress: tf.Tensor2D };
}

export interface ImaginationStarts {
  /** B × D model states (state vectors, or encoder latents for the video kind). */
  states: Float32Array;
  stateDim: number;
  /** B × C task context. */
  context: Float32Array;
  instructions: string[];
}

export interface ImaginedRollouts {
  horizon: number;
  members: number;
  rollouts: number;
  stateDim: number;
  actionDim: number;
  /** (H+1) × K × B × D */
  states: Float32Array;
  /** H × K × B × A */
  actions: Float32Array;
  /** H × K × B: success probability and progress of the state after each step */
  successProb: Float32Array;
  progress: Float32Array;
  /** B: each rollout's score, the ensemble mean of every member's score under the rule (see rolloutScores) */
  score: Float32Array;
  /** B: the ensemble variance of that per-member score */
  scoreVariance: Float32Array;
}

export interface ImagineOptions {
  /** How rollouts are scored (scoreRules.ts; default 'final'). */
  rule?: ScoreRuleName;
}

export function imagine(
  model: DynamicsModel,
  policy: ImaginationPolicy,
  starts: ImaginationStarts,
  horizon: number,
  options: ImagineOptions = {},
): ImaginedRollouts {
  const scorer = scoreRule(options.rule ?? 'final');
  const K = model.members;
  const B = starts.instructions.length;
  const D = starts.stateDim;
  if (starts.states.length !== B * D)
    throw new Error(`starts: expected ${B}×${D} state values, got ${starts.states.length}`);
  const C = starts.context.length / B;
  const rollout = Int32Array.from({ length: K * B }, (_, i) => i % B);
  const instructions = Array.from(rollout, (b) => starts.instructions[b]!);
  const context = tf.tidy(() => tf.tile(tf.tensor3d(starts.context, [1, B, C]), [K, 1, 1]) as tf.Tensor3D);
  let x = tf.tidy(() => tf.tile(tf.tensor3d(starts.states, [1, B, D]), [K, 1, 1]) as tf.Tensor3D);
  const states = new Float32Array((horizon + 1) * K * B * D);
  states.set(x.dataSync(), 0);
  let actions: Float32Array | undefined;
  let A = 0;
  const successProb = new Float32Array(horizon * K * B);
  const progress = new Float32Array(horizon * K * B);
  try {
    for (let t = 0; t < horizon; t++) {
      const next = tf.tidy(() => {
        const flat = x.reshape([K * B, -1]) as tf.Tensor2D;
        const action = policy.act({
          step: t,
          state: flat,
          context: context.reshape([K * B, C]) as tf.Tensor2D,
          instructions,
          rollout,
        });
        A = action.shape[1];
        const out = model.step(x, action.reshape([K, B, A]) as tf.Tensor3D, context);
        actions ??= new Float32Array(horizon * K * B * A);
        actions.set(action.dataSync(), t * K * B * A);
        successProb.set(tf.sigmoid(out.successLogit).dataSync(), t * K * B);
        progress.set(out.progress.dataSync(), t * K * B);
        return out.next;
      });
      x.dispose();
      x = next;
      states.set(x.dataSync(), (t + 1) * K * B * D);
    }
  } finally {
    x.dispose();
    context.dispose();
  }
  const rolled = {
    horizon,
    members: K,
    rollouts: B,
    stateDim: D,
    actionDim: A,
    states,
    actions: actions ?? new Float32Array(0),
    successProb,
    progress,
  };
  const { score, variance } = rolloutScores(scorer.perStep({ ...rolled, rows: K * B }), horizon, K, B, scorer.over);
  return { ...rolled, score, scoreVariance: variance };
}

/**
 * Per member: the rollout's score over the horizon from per-step
 * values (H × K × B); then mean and variance over members.
 */
export function rolloutScores(
  values: Float32Array,
  horizon: number,
  K: number,
  B: number,
  rule: 'final' | 'max' = 'final',
): { score: Float32Array; variance: Float32Array } {
  const score = new Float32Array(B);
  const variance = new Float32Array(B);
  for (let b = 0; b < B; b++) {
    const perMember: number[] = [];
    for (let k = 0; k < K; k++) {
      let value = 0;
      if (rule === 'final') value = horizon > 0 ? values[((horizon - 1) * K + k) * B + b]! : 0;
      else for (let t = 0; t < horizon; t++) value = Math.max(value, values[(t * K + k) * B + b]!);
      perMember.push(value);
    }
    const mean = perMember.reduce((a, v) => a + v, 0) / K;
    score[b] = mean;
    variance[b] = perMember.reduce((a, v) => a + (v - mean) ** 2, 0) / K;
  }
  return { score, variance };
}
