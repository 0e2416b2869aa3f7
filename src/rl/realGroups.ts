/**
 * Groups executed on an environment (anchor groups, or every group in `real` mode): M episodes
 * of the current, sampling policy from the same task and scene seed, each with its own action
 * noise (rollout g·M + m of a batch under `noise` draws from rolloutNoiseSeed(noise.seed, g·M + m)).
 * Yields the episodes, their true outcomes, the robot time they used and the
 * policy-gradient rows (perception latents of the real frames).
 */
import type { Episode, TaskSpec } from '../core/types.ts';
import type { Env } from '../envs/env.ts';
import { runEpisode } from '../envs/rollout.ts';
import { PolicyController } from '../policy/policyController.ts';
import { episodeProprio } from '../policy/policyInputs.ts';
import type { VlaPolicy } from '../policy/vlaPolicy.ts';
import { perceptionEpisodes } from '../worldmodel/perceptionWorldModel.ts';
import { emptySamples, type PolicySamples } from './policySamples.ts';
import { RolloutNoise, rolloutNoiseSeed, type NoiseSpec } from '../policy/rolloutNoise.ts';

export interface GroupSpec {
  task: TaskSpec;
  seed: number;
}

export interface RealGroups {
  episodes: Episode[];
  /** G·M outcomes (1 success, 0 failure), group-major. */
  outcomes: Float32Array;
  robotSeconds: number;
  samples: PolicySamples;
  rolloutOf: Int32Array;
}

/**
 * One rollout of the current, sampling policy on an env. Its exploration noise is the sequence of
 * its seed (`rolloutNoiseSeed`): the same on any robot, so a pool reproduces a sequential run and
 * imagination (`imagineGroups` under the same NoiseSpec) can roll out exactly this rollout.
 */
export function runRollout(env: Env, policy: VlaPolicy, group: GroupSpec, rolloutSeed: number, correlation: number): Promise<Episode> {
  return runEpisode(env, new PolicyController(policy, { deterministic: false, noise: RolloutNoise.single(rolloutSeed, policy.outputDim, correlation) }), group);
}

export async function runRealGroups(env: Env, policy: VlaPolicy, groups: GroupSpec[], rollouts: number, noise: NoiseSpec, onEpisode?: (done: number, total: number) => void): Promise<RealGroups> {
  const episodes: Episode[] = [];
  for (const [g, group] of groups.entries()) {
    for (let m = 0; m < rollouts; m++) {
      const episode = await runRollout(env, policy, group, rolloutNoiseSeed(noise.seed, g * rollouts + m), noise.correlation);
      if (episode.status !== 'complete') throw new Error(`episode ${episode.id} ended '${episode.status}'; aborted episodes never enter training`);
      episodes.push(episode);
      onEpisode?.(episodes.length, groups.length * rollouts);
    }
  }
  return realGroupsFrom(policy, episodes);
}

/** Outcomes, robot time and policy-gradient rows of executed episodes (group-major, M per group). */
export function realGroupsFrom(policy: VlaPolicy, episodes: Episode[]): RealGroups {
  const outcomes = Float32Array.from(episodes, (e) => (e.success ? 1 : 0));
  const robotSeconds = episodes.reduce((s, e) => s + e.steps / e.controlHz, 0);
  const perceived = perceptionEpisodes(policy, episodes);
  const first = perceived[0]!;
  const P = 2 * first.qposDim;
  const L = policy.tokenizer.maxTokens;
  const rows = episodes.reduce((n, e) => n + e.steps, 0);
  const samples = emptySamples({ latentDim: first.stateDim, proprioDim: P, actionDim: first.actionDim, maxTokens: L }, rows);
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
