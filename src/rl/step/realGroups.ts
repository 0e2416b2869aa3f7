/**
 * Executed groups as training data: M episodes of the sampling policy per group (group-major),
 * their true outcomes, the robot time they used and their policy-gradient rows (perception
 * latents of the real frames). `runRealGroups` executes measurement groups on an env (nothing
 * stored or charged); anchors come through an AnchorRunner.
 */
import type { Episode } from '../../core/types.ts';
import { requireComplete } from '../../data/completeEpisodes.ts';
import type { Env } from '../../envs/env.ts';
import { episodeProprio } from '../../policy/policyInputs.ts';
import type { VlaPolicy } from '../../policy/vlaPolicy.ts';
import { perceptionEpisodes } from '../../worldmodel/perceptionWorldModel.ts';
import { emptySamples, type PolicySamples } from './policySamples.ts';
import type { NoiseSpec } from '../../policy/rolloutNoise.ts';
import { runGroupRollouts, type GroupSpec } from '../run/anchorRunner.ts';
import { robotSeconds as robotSecondsOf } from '../../data/robotTime.ts';

export interface RealGroups {
  episodes: Episode[];
  /** G·M outcomes (1 success, 0 failure), group-major. */
  outcomes: Float32Array;
  robotSeconds: number;
  samples: PolicySamples;
  rolloutOf: Int32Array;
}

export async function runRealGroups(
  env: Env,
  policy: VlaPolicy,
  groups: GroupSpec[],
  rollouts: number,
  noise: NoiseSpec,
  onEpisode?: (done: number, total: number) => void,
): Promise<RealGroups> {
  return realGroupsFrom(
    policy,
    await runGroupRollouts(env, policy, groups, rollouts, noise, onEpisode ? { onEpisode } : {}),
  );
}

/** Outcomes, robot time and policy-gradient rows of executed episodes (group-major, M per group). */
export function realGroupsFrom(policy: VlaPolicy, episodes: Episode[]): RealGroups {
  requireComplete(episodes, 'policy update');
  const outcomes = Float32Array.from(episodes, (e) => (e.success ? 1 : 0));
  const robotSeconds = robotSecondsOf(episodes);
  const perceived = perceptionEpisodes(policy, episodes);
  const first = perceived[0]!;
  const P = 2 * first.qposDim;
  const L = policy.tokenizer.maxTokens;
  const rows = episodes.reduce((n, e) => n + e.steps, 0);
  const samples = emptySamples(
    { latentDim: first.stateDim, proprioDim: P, actionDim: first.actionDim, maxTokens: L },
    rows,
  );
  const rolloutOf = new Int32Array(rows);
  let row = 0;
  perceived.forEach((e, i) => {
    const proprio = episodeProprio(e);
    const ids = policy.tokenizer.encode(e.task.instruction);
    for (let t = 0; t < e.steps; t++, row++) {
      samples.latents.set(e.state.subarray(t * e.stateDim, (t + 1) * e.stateDim), row * e.stateDim);
      samples.proprio.set(proprio.subarray(t * P, (t + 1) * P), row * P);
      samples.tokens.set(ids, row * L);
      samples.actions.set(e.actions.subarray(t * e.actionDim, (t + 1) * e.actionDim), row * e.actionDim);
      rolloutOf[row] = i;
    }
  });
  return { episodes, outcomes, robotSeconds, samples, rolloutOf };
}
