/**
 * Imagined groups: every group's start repeated M times and rolled out by the current policy
 * in every ensemble member, one batched computation per step. Yields the policy-gradient rows
 * (each member's copy of a rollout weighs 1/K) and each rollout's score and ensemble variance.
 */
import * as tf from '@tensorflow/tfjs';
import type { VlaPolicy } from '../../policy/vlaPolicy.ts';
import type {
  ImaginationPolicy,
  ImaginationStarts,
  ImaginedRollouts,
  ImagineOptions,
} from '../../worldmodel/imagine.ts';
import type { WorldModel } from '../../worldmodel/worldModel.ts';
import { emptySamples, type PolicySamples } from './policySamples.ts';
import { RolloutNoise, type NoiseSpec } from '../../policy/rolloutNoise.ts';

export interface ImaginedGroups {
  /** G·M rollout scores (group-major) and their ensemble variances. */
  score: Float32Array;
  variance: Float32Array;
  /**
   * Rows: one per step a member's rollout acted in (at most H·K·G·M), with
   * `rolloutOf[row]` the rollout (group-major index) each belongs to.
   */
  samples: PolicySamples;
  rolloutOf: Int32Array;
  members: number;
}

/** Closed-loop rollouts of the groups (G·M, group-major) and the token rows they were imagined with. */
export interface GroupRollouts {
  imagined: ImaginedRollouts;
  /** K·B·maxTokens instruction tokens, member-major. */
  tokenRows: Int32Array;
}

/**
 * `starts` holds one row per group; each is repeated `rollouts` times. Rollout b (group-major,
 * g·M + m) explores with sequence b of `noise`: exactly the noise `runRealGroups(…, noise)` (or a
 * robot pool) executes its rollout b with, so an imagined and an executed batch under one
 * NoiseSpec pair rollout by rollout (they part only where imagined and real observations lead
 * the policy apart).
 */
export function imagineGroupRollouts(
  policy: VlaPolicy,
  model: WorldModel,
  starts: ImaginationStarts,
  rollouts: number,
  horizon: number,
  noise: NoiseSpec,
  options: ImagineOptions = {},
): GroupRollouts {
  const B = starts.instructions.length * rollouts;
  const repeated = repeatStarts(starts, rollouts);
  const P = 2 * model.meta.qposDim;
  const L = policy.tokenizer.maxTokens;
  const K = model.members;
  const tokenRows = new Int32Array(K * B * L);
  for (let r = 0; r < K * B; r++) tokenRows.set(policy.tokenizer.encode(repeated.instructions[r % B]!), r * L);
  const tokens = tf.tensor2d(tokenRows, [K * B, L], 'int32');
  try {
    const imagined = model.imagine(
      sharedNoisePolicy(policy, tokens, {
        proprioDim: P,
        members: K,
        noise: new RolloutNoise(B, policy.outputDim, noise),
      }),
      repeated,
      horizon,
      options,
    );
    return { imagined, tokenRows };
  } finally {
    tokens.dispose();
  }
}

/** Each start repeated `times` times in a row (group-major rollouts). */
export function repeatStarts(starts: ImaginationStarts, times: number): ImaginationStarts {
  const G = starts.instructions.length;
  const D = starts.stateDim;
  const C = starts.context.length / G;
  const B = G * times;
  const repeat = (src: Float32Array, width: number) => {
    const out = new Float32Array(B * width);
    for (let b = 0; b < B; b++)
      out.set(src.subarray(Math.floor(b / times) * width, (Math.floor(b / times) + 1) * width), b * width);
    return out;
  };
  return {
    states: repeat(starts.states, D),
    stateDim: D,
    context: repeat(starts.context, C),
    instructions: Array.from({ length: B }, (_, b) => starts.instructions[Math.floor(b / times)]!),
  };
}

/** imagineGroupRollouts as policy-gradient rows, scores and ensemble variances. */
export function imagineGroups(
  policy: VlaPolicy,
  model: WorldModel,
  starts: ImaginationStarts,
  rollouts: number,
  horizon: number,
  noise: NoiseSpec,
  options: ImagineOptions = {},
): ImaginedGroups {
  const D = starts.stateDim;
  const B = starts.instructions.length * rollouts;
  const P = 2 * model.meta.qposDim;
  const L = policy.tokenizer.maxTokens;
  const K = model.members;
  const { imagined, tokenRows } = imagineGroupRollouts(policy, model, starts, rollouts, horizon, noise, options);
  const A = imagined.actionDim;
  // The policy's latent leads the model state after proprio;
  // world-model features may follow it (end-effector position).
  const Z = policy.latentDim;
  // Every step of every member's rollout is a sample.
  const rows = horizon * K * B;
  const samples = emptySamples({ latentDim: Z, proprioDim: P, actionDim: A, maxTokens: L }, rows);
  const rolloutOf = new Int32Array(rows);
  let row = 0;
  for (let t = 0; t < horizon; t++) {
    for (let r = 0; r < K * B; r++) {
      const at = t * K * B + r;
      const state = imagined.states.subarray(at * D, (at + 1) * D);
      samples.proprio.set(state.subarray(0, P), row * P);
      samples.latents.set(state.subarray(P, P + Z), row * Z);
      samples.tokens.set(tokenRows.subarray(r * L, (r + 1) * L), row * L);
      samples.actions.set(imagined.actions.subarray(at * A, (at + 1) * A), row * A);
      rolloutOf[row] = r % B;
      row++;
    }
  }
  return { score: imagined.score, variance: imagined.scoreVariance, samples, rolloutOf, members: K };
}

/**
 * The sampling policy in imagination, over K × B member-major rows: one exploration noise per
 * rollout and step, shared by its K member copies. A rollout is then one action sequence and its
 * score (the ensemble mean) is that sequence's; with noise drawn per member, its advantage would
 * credit K different sequences at once.
 */
export function sharedNoisePolicy(
  policy: VlaPolicy,
  tokens: tf.Tensor2D,
  o: { proprioDim: number; members: number; noise: RolloutNoise },
): ImaginationPolicy {
  const P = o.proprioDim;
  return {
    act: (obs) =>
      tf.tidy(() => {
        const proprio = obs.state.slice([0, 0], [-1, P]) as tf.Tensor2D;
        const latent = obs.state.slice([0, P], [-1, policy.latentDim]) as tf.Tensor2D;
        const A = policy.outputDim;
        const perRollout = tf.tensor2d(o.noise.step(obs.step), [o.noise.rollouts, A]);
        return policy.act({ latent, proprio, tokens }, { noise: tf.tile(perRollout, [o.members, 1]) as tf.Tensor2D })
          .action;
      }),
  };
}
