/**
 * Which of the policy's inputs does the world model mispredict, and how far does that move the
 * policy's action? In imagination the policy acts on the model's predicted state, so an input
 * the model cannot predict, and that the policy leans on, sends imagined rollouts where the real
 * ones do not go: the within-group ranking GRPO learns from is then lost in closed loop even when
 * replay (recorded actions) ranks well. Measured on recorded real episodes, one step at a time:
 * from each real state with the recorded action, the model's prediction of the next state (the
 * ensemble mean) against the real next state, per input group; and the policy's mean action on
 * the real next state against the same with that group taken from the prediction.
 */
import * as tf from '@tensorflow/tfjs';
import type { Episode } from '../core/types.ts';
import type { VlaPolicy } from '../policy/vlaPolicy.ts';
import type { ImaginationPolicy } from '../worldmodel/imagine.ts';
import { statesAt } from '../worldmodel/statesAt.ts';
import type { Imaginer } from './replayRanking.ts';

export interface InputError {
  /** e.g. 'gripper velocity' */
  input: string;
  /** RMS of prediction − real over the steps and the group's columns. */
  error: number;
  /** The real values' standard deviation (RMS over the columns): error / spread near 1 is no prediction at all. */
  spread: number;
  /** RMS change of the policy's mean action when this group alone comes from the prediction. */
  actionChange: number;
}

export interface InputSensitivity {
  /** Real steps measured. */
  steps: number;
  inputs: InputError[];
  /** The mean action's RMS change with the whole predicted state. */
  actionChangeAll: number;
}

/**
 * `episodes` in the model's layout ([qpos, qvel, perception latent, …], the gripper last of the
 * joints), at most `maxSteps` transitions each. The policy reads [qpos, qvel] and the latent.
 */
export function inputSensitivity(
  model: Imaginer,
  policy: VlaPolicy,
  episodes: Episode[],
  maxSteps = Number.POSITIVE_INFINITY,
): InputSensitivity {
  const picked: Episode[] = [];
  const before: number[] = [];
  for (const e of episodes) for (let t = 0; t < Math.min(e.steps, maxSteps); t++) picked.push(e), before.push(t);
  if (picked.length === 0) throw new Error('input sensitivity: no recorded step in the given episodes');
  const N = picked.length;
  const Q = picked[0]!.qposDim;
  const A = picked[0]!.actionDim;
  const Z = policy.latentDim;
  const from = statesAt(picked, before);
  const real = statesAt(
    picked,
    before.map((t) => t + 1),
  ).states;
  const D = from.stateDim;
  const actions = new Float32Array(N * A);
  picked.forEach((e, i) => actions.set(e.actions.subarray(before[i]! * A, (before[i]! + 1) * A), i * A));
  const recorded: ImaginationPolicy = {
    act: (obs) => tf.tidy(() => tf.gather(tf.tensor2d(actions, [N, A]), tf.tensor1d(obs.rollout, 'int32'))),
  };
  const next = model.imagine(recorded, from, 1, { rule: 'progress' });
  const K = next.members;
  const predicted = new Float32Array(N * D);
  for (let k = 0; k < K; k++) for (let i = 0; i < N * D; i++) predicted[i]! += next.states[(K + k) * N * D + i]! / K;
  const groups: { input: string; columns: number[] }[] = [
    { input: 'arm joint positions', columns: range(0, Q - 1) },
    { input: 'gripper position', columns: [Q - 1] },
    { input: 'arm joint velocities', columns: range(Q, 2 * Q - 1) },
    { input: 'gripper velocity', columns: [2 * Q - 1] },
    { input: 'perception latent', columns: range(2 * Q, 2 * Q + Z) },
  ];
  const tokens = new Int32Array(N * policy.tokenizer.maxTokens);
  picked.forEach((e, i) => tokens.set(policy.tokenizer.encode(e.task.instruction), i * policy.tokenizer.maxTokens));
  const meanAction = (columns: Set<number>): Float32Array =>
    tf.tidy(() => {
      const x = Float32Array.from(real);
      for (let i = 0; i < N; i++) for (const j of columns) x[i * D + j] = predicted[i * D + j]!;
      const state = tf.tensor2d(x, [N, D]);
      return policy
        .mean({
          proprio: state.slice([0, 0], [N, 2 * Q]) as tf.Tensor2D,
          latent: state.slice([0, 2 * Q], [N, Z]) as tf.Tensor2D,
          tokens: tf.tensor2d(tokens, [N, policy.tokenizer.maxTokens], 'int32'),
        })
        .dataSync() as Float32Array;
    });
  const base = meanAction(new Set());
  const change = (m: Float32Array) => Math.sqrt(m.reduce((s, v, i) => s + (v - base[i]!) ** 2, 0) / m.length);
  const inputs = groups.map(({ input, columns }) => {
    let error = 0;
    let variance = 0;
    for (const j of columns) {
      let sum = 0;
      let squares = 0;
      for (let i = 0; i < N; i++) {
        const r = real[i * D + j]!;
        error += (predicted[i * D + j]! - r) ** 2;
        sum += r;
        squares += r * r;
      }
      variance += Math.max(0, squares / N - (sum / N) ** 2);
    }
    return {
      input,
      error: Math.sqrt(error / (N * columns.length)),
      spread: Math.sqrt(variance / columns.length),
      actionChange: change(meanAction(new Set(columns))),
    };
  });
  return { steps: N, inputs, actionChangeAll: change(meanAction(new Set(range(0, 2 * Q + Z)))) };
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from }, (_, i) => from + i);
}
