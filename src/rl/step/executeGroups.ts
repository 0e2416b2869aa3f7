import type { NoiseSpec } from '../../policy/rolloutNoise.ts';
import { worldModelEpisodes } from '../../worldmodel/perceptionWorldModel.ts';
import type { GroupSpec } from '../run/anchorRunner.ts';
import { labelAnchorGroups } from '../run/operatorOutcomes.ts';
import { realGroupsFrom, type RealGroups } from './realGroups.ts';
import type { Trainer } from './trainer.ts';
import type { Episode } from '../../core/types.ts';
import { robotSeconds } from '../../data/robotTime.ts';

export interface ExecutedGroups {
  /** The groups that count, with their outcomes (undefined: none does). */
  real: RealGroups | undefined;
  /** Indices (in the order asked) of the groups in `real`: all of them unless operator labels left some out. */
  kept: number[];
  /** Episodes executed (charged), kept or not. */
  executed: number;
  /** Their robot time, kept or not. */
  robotSeconds: number;
  /** The kept episodes in the world model's layout (none without a world model), for refits. */
  modelEpisodes: Episode[];
  /** With outcome operator: episodes left out for want of a label. */
  unlabelled: number;
}

/**
 * Groups run for real through the anchor runner, charged as robot time; with `--outcome operator`
 * their outcomes are the operator's labels, and a group without a label for every rollout is left
 * out (src/rl/run/operatorOutcomes.ts). Nothing of the learning state changes here: the caller commits
 * the robot time and the kept episodes (commitExecuted, below). `step` 0 is the warm-up.
 */
export async function executeGroups(
  t: Trainer,
  step: number,
  groups: { slot: number; spec: GroupSpec }[],
  rollouts: number,
  noise: NoiseSpec,
): Promise<ExecutedGroups> {
  const { learning } = t;
  let episodes = await t.anchors.run({
    step,
    groups,
    rollouts,
    noise,
    policy: learning.policy,
    ...(t.onEpisode ? { onEpisode: t.onEpisode } : {}),
  });
  // Robot time is spent whether or not a label comes.
  const spent = robotSeconds(episodes);
  const executed = episodes.length;
  let kept = groups.map((_, k) => k);
  let unlabelled = 0;
  if (t.config.outcome.source === 'operator') {
    if (!t.askOperator) throw new Error("--outcome operator needs an operator to ask (the trainer's askOperator)");
    t.onProgress?.(`waiting for the operator's labels of ${episodes.length} anchor episodes`);
    const labelled = await labelAnchorGroups(episodes, rollouts, t.askOperator, t.config.operator, step);
    ({ kept, episodes } = labelled);
    unlabelled = labelled.skipped.length;
  }
  const done = { kept, executed, unlabelled, robotSeconds: spent };
  if (episodes.length === 0) return { ...done, real: undefined, modelEpisodes: [] };
  const real = realGroupsFrom(learning.policy, episodes);
  const modelEpisodes = learning.worldModel ? worldModelEpisodes(learning.policy, real.episodes, t.endEffector) : [];
  return { ...done, real, modelEpisodes };
}

/**
 * Executed episodes count (a step's commit, or the warm-up's): their robot time, their ids (for the checkpoint), their
 * model episodes (for refits).
 */
export function commitExecuted(t: Trainer, executed: ExecutedGroups): void {
  const { progress } = t.learning;
  progress.robotSeconds += executed.robotSeconds;
  progress.realEpisodes += executed.executed;
  if (!executed.real) return;
  progress.anchorEpisodeIds.push(...executed.real.episodes.map((e) => e.id));
  t.learning.anchorModelEpisodes.push(...executed.modelEpisodes);
}
