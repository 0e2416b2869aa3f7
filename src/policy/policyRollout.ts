/**
 * One rollout of the current, sampling policy on an env. Its exploration noise is the sequence of
 * its seed (`rolloutNoiseSeed`): the same on any robot, so a robot pool reproduces a sequential
 * run and imagination under the same NoiseSpec can roll out exactly this rollout. `maxSteps` ends it
 * (complete, its outcome as it stands then) before the task's horizon.
 */
import type { Episode, TaskSpec } from '../core/types.ts';
import type { Env } from '../envs/env.ts';
import { runEpisode } from '../envs/rollout.ts';
import { PolicyController } from './policyController.ts';
import { RolloutNoise } from './rolloutNoise.ts';
import type { VlaPolicy } from './vlaPolicy.ts';

export function runPolicyRollout(
  env: Env,
  policy: VlaPolicy,
  start: { task: TaskSpec; seed: number },
  noiseSeed: number,
  correlation: number,
  maxSteps?: number,
): Promise<Episode> {
  const noise = RolloutNoise.single(noiseSeed, policy.outputDim, correlation);
  const controller = new PolicyController(policy, { deterministic: false, noise });
  return runEpisode(env, controller, maxSteps === undefined ? start : { ...start, maxSteps });
}
