/**
 * Imagined groups: every group's start repeated M times and rolled out by the current policy
 * in every ensemble member, one batched computation per step. Yields the policy-gradient rows
 * (each member's copy of a rollout weighs 1/K) and each rollout's score and ensemble variance.
 */
import * as tf from '@tensorflow/tfjs';
import type { VlaPolicy } from '../policy/vlaPolicy.ts';
import type { ImaginationStarts, ScoreRule } from '../worldmodel/imagine.ts';
import type { WorldModel } from '../worldmodel/worldModel.ts';
import { emptySamples, type PolicySamples } from './policySamples.ts';

export interface ImaginedGroups {
  /** G·M rollout scores (group-major) and their ensemble variances. */
  score: Float32Array;
  variance: Float32Array;
  /** Rows: H·K·G·M, with `rolloutOf[row]` the rollout (group-major index) each belongs to. */
  samples: PolicySamples;
  rolloutOf: Int32Array;
  members: number;
}

/** `starts` holds one row per group; each is repeated `rollouts` times. */
export function imagineGroups(policy: VlaPolicy, model: WorldModel, starts: ImaginationStarts, rollouts: number, horizon: number, seed: number, rule: ScoreRule = 'final'): ImaginedGroups {
  const G = starts.instructions.length;
  const D = starts.stateDim;
  const C = starts.context.length / G;
  const B = G * rollouts;
  const repeat = (src: Float32Array, width: number) => {
    const out = new Float32Array(B * width);
    for (let b = 0; b < B; b++) out.set(src.subarray(Math.floor(b / rollouts) * width, (Math.floor(b / rollouts) + 1) * width), b * width);
    return out;
  };
  const repeated: ImaginationStarts = { states: repeat(starts.states, D), stateDim: D, context: repeat(starts.context, C), instructions: Array.from({ length: B }, (_, b) => starts.instructions[Math.floor(b / rollouts)]!) };
  const P = 2 * model.meta.qposDim;
  const L = policy.tokenizer.maxTokens;
  const K = model.members;
  const tokenRows = new Int32Array(K * B * L);
  for (let r = 0; r < K * B; r++) tokenRows.set(policy.tokenizer.encode(repeated.instructions[r % B]!), r * L);
  const tokens = tf.tensor2d(tokenRows, [K * B, L], 'int32');
  let imagined;
  try {
    imagined = model.imagine(
      {
        act: (obs) =>
          tf.tidy(() => {
            const proprio = obs.state.slice([0, 0], [-1, P]) as tf.Tensor2D;
            const latent = obs.state.slice([0, P], [-1, D - P]) as tf.Tensor2D;
            return policy.act({ latent, proprio, tokens }, { seed: seed * 7919 + obs.step }).action;
          }),
      },
      repeated,
      horizon,
      rule,
    );
  } finally {
    tokens.dispose();
  }
  const A = imagined.actionDim;
  const Z = D - P;
  const rows = horizon * K * B;
  const samples = emptySamples({ latentDim: Z, proprioDim: P, actionDim: A, maxTokens: L }, rows);
  const rolloutOf = new Int32Array(rows);
  for (let t = 0; t < horizon; t++) {
    for (let r = 0; r < K * B; r++) {
      const row = t * K * B + r;
      const state = imagined.states.subarray((t * K * B + r) * D, (t * K * B + r + 1) * D);
      samples.proprio.set(state.subarray(0, P), row * P);
      samples.latents.set(state.subarray(P), row * Z);
      samples.tokens.set(tokenRows.subarray(r * L, (r + 1) * L), row * L);
      samples.actions.set(imagined.actions.subarray(row * A, (row + 1) * A), row * A);
      rolloutOf[row] = r % B;
    }
  }
  return { score: imagined.score, variance: imagined.scoreVariance, samples, rolloutOf, members: K };
}
