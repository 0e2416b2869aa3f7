/**
 * Imagined evaluation episodes (`wmrl eval --world-model`): each start, an episode's first
 * observation, rolled out by the policy in the world model for its task's episode horizon and
 * scored by the model. The policy acts through the adapter training imagines with
 * (sharedNoisePolicy), or with its mean action when evaluation takes the mean.
 *
 * Pairing: under a NoiseSpec, the start of scene seed s explores with the sequence of
 * rolloutNoiseSeed(noise.seed, s), and `evaluationEpisodeNoise` gives a real episode of that seed
 * the same sequence. A real episode and its imagined twin thus share the start and the noise; they
 * part only where imagined and real observations lead the policy apart.
 */
import * as tf from '@tensorflow/tfjs';
import type { Episode } from '../../core/types.ts';
import { RolloutNoise, rolloutNoiseSeed, type NoiseSpec } from '../../policy/rolloutNoise.ts';
import type { VlaPolicy } from '../../policy/vlaPolicy.ts';
import { familyDef } from '../../tasks/families.ts';
import { episodeTicks } from '../../tasks/familyDef.ts';
import type { EndEffectorFeatures } from '../../worldmodel/endEffectorFeatures.ts';
import type { ImaginationPolicy, ImaginedRollouts, ImagineOptions } from '../../worldmodel/imagine.ts';
import { worldModelEpisodes } from '../../worldmodel/perceptionWorldModel.ts';
import { statesAt } from '../../worldmodel/statesAt.ts';
import type { WorldModel } from '../../worldmodel/worldModel.ts';
import { sharedNoisePolicy } from '../step/imaginedGroups.ts';

export interface EvaluationImagination {
  /** The exploration noise of the evaluated (sampling) policy; null: the mean action, as `wmrl eval` takes. */
  noise: NoiseSpec | null;
  /** Imagined control steps; default: each task family's episode horizon. */
  horizon?: number;
  /** How a rollout is scored (and whether it ends at predicted success). */
  imagine: ImagineOptions;
  /** The world model's state holds the end-effector position (featuresOfModel). */
  endEffector?: EndEffectorFeatures;
  /** Rollouts per batched imagination (memory: horizon × members × chunk states). */
  chunk?: number;
}

/** The world model's score of each start's imagined episode (in the order of `starts`). */
export function imagineEvaluationScores(
  policy: VlaPolicy,
  model: WorldModel,
  starts: Episode[],
  o: EvaluationImagination,
): Float32Array {
  const scores = new Float32Array(starts.length);
  const chunk = o.chunk ?? 128;
  const byFamily = new Map<string, number[]>();
  starts.forEach((e, i) => byFamily.set(e.task.family, [...(byFamily.get(e.task.family) ?? []), i]));
  for (const [family, indices] of byFamily) {
    const horizon = o.horizon ?? episodeTicks(familyDef(family), starts[indices[0]!]!.controlHz);
    for (let c = 0; c < indices.length; c += chunk) {
      const batch = indices.slice(c, c + chunk);
      const { score } = imagineFromStarts(
        policy,
        model,
        batch.map((i) => starts[i]!),
        horizon,
        o,
      );
      batch.forEach((i, b) => (scores[i] = score[b]!));
    }
  }
  return scores;
}

/** What a real episode of scene seed s explores with: its imagined twin's sequence (PolicyController episodeNoise). */
export function evaluationEpisodeNoise(
  noise: NoiseSpec,
  policy: VlaPolicy,
): (seed: number) => (t: number) => Float32Array {
  return (seed) => RolloutNoise.single(rolloutNoiseSeed(noise.seed, seed), policy.outputDim, noise.correlation);
}

/** One batched imagination from the first observation of each of `episodes` (any families), `horizon` steps. */
export function imagineFromStarts(
  policy: VlaPolicy,
  model: WorldModel,
  episodes: Episode[],
  horizon: number,
  o: Pick<EvaluationImagination, 'noise' | 'imagine' | 'endEffector'>,
): ImaginedRollouts {
  const first = worldModelEpisodes(
    policy,
    episodes.map((e) => ({ ...e, steps: 0 })),
    o.endEffector,
  );
  const starts = statesAt(
    first,
    first.map(() => 0),
  );
  const B = episodes.length;
  const K = model.members;
  const L = policy.tokenizer.maxTokens;
  // Rows are member-major (K × B): row r is rollout r mod B.
  const tokenRows = new Int32Array(K * B * L);
  for (let r = 0; r < K * B; r++) tokenRows.set(policy.tokenizer.encode(starts.instructions[r % B]!), r * L);
  const tokens = tf.tensor2d(tokenRows, [K * B, L], 'int32');
  const proprioDim = 2 * model.meta.qposDim;
  try {
    const actor = o.noise
      ? sharedNoisePolicy(policy, tokens, {
          proprioDim,
          members: K,
          noise: RolloutNoise.ofSeeds(
            episodes.map((e) => rolloutNoiseSeed(o.noise!.seed, e.seed)),
            policy.outputDim,
            o.noise.correlation,
          ),
        })
      : meanActionPolicy(policy, tokens, proprioDim);
    return model.imagine(actor, starts, horizon, o.imagine);
  } finally {
    tokens.dispose();
  }
}

/** The policy's mean action on every imagined row (its latent leads the model state after proprio). */
function meanActionPolicy(policy: VlaPolicy, tokens: tf.Tensor2D, proprioDim: number): ImaginationPolicy {
  return {
    act: (obs) =>
      tf.tidy(() => {
        const proprio = obs.state.slice([0, 0], [-1, proprioDim]) as tf.Tensor2D;
        const latent = obs.state.slice([0, proprioDim], [-1, policy.latentDim]) as tf.Tensor2D;
        return policy.act({ latent, proprio, tokens }, { deterministic: true }).action;
      }),
  };
}
