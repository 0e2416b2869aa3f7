import type { NoiseSpec } from '../policy/rolloutNoise.ts';
import { worldModelEpisodes } from '../worldmodel/perceptionWorldModel.ts';
import type { GroupSpec } from './anchorRunner.ts';
import { labelAnchorGroups } from './operatorOutcomes.ts';
import { realGroupsFrom, type RealGroups } from './realGroups.ts';
import type { Trainer } from './trainer.ts';
import { robotSeconds } from '../data/robotTime.ts';

export interface ExecutedGroups {
  /** The groups that count, with their outcomes (undefined: none does). */
  real: RealGroups | undefined;
  /** Indices (in the order asked) of the groups in `real`: all of them unless operator labels left some out. */
  kept: number[];
  /** Episodes executed (charged), kept or not. */
  executed: number;
  /** With outcome operator: episodes left out for want of a label. */
  unlabelled: number;
}

/**
 * Groups run for real through the anchor runner, charged as robot time; with `--outcome operator`
 * their outcomes are the operator's labels, and a group without a label for every rollout is left
 * out (src/rl/operatorOutcomes.ts). The kept groups' episodes join the anchors (ids for the
 * checkpoint, model layout for refits). `step` 0 is the warm-up.
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
    ...(t.config.realEpisodeSteps > 0 ? { maxSteps: t.config.realEpisodeSteps } : {}),
    ...(t.onEpisode ? { onEpisode: t.onEpisode } : {}),
  });
  // Robot time is spent whether or not a label comes.
  learning.progress.robotSeconds += robotSeconds(episodes);
  learning.progress.realEpisodes += episodes.length;
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
  if (episodes.length === 0) return { real: undefined, kept, executed, unlabelled };
  const real = realGroupsFrom(learning.policy, episodes);
  learning.progress.anchorEpisodeIds.push(...real.episodes.map((e) => e.id));
  if (learning.worldModel)
    learning.anchorModelEpisodes.push(...worldModelEpisodes(learning.policy, real.episodes, t.endEffector));
  return { real, kept, executed, unlabelled };
}
