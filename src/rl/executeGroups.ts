import type { NoiseSpec } from '../policy/rolloutNoise.ts';
import { worldModelEpisodes } from '../worldmodel/perceptionWorldModel.ts';
import type { GroupSpec } from './anchorRunner.ts';
import { realGroupsFrom, type RealGroups } from './realGroups.ts';
import type { Trainer } from './trainer.ts';

/**
 * Groups run for real through the anchor runner, charged as robot time; their episodes join the
 * anchors (ids for the checkpoint, model layout for refits). `step` 0 is the warm-up.
 */
export async function executeGroups(
  t: Trainer,
  step: number,
  groups: { slot: number; spec: GroupSpec }[],
  rollouts: number,
  noise: NoiseSpec,
): Promise<RealGroups> {
  const { learning } = t;
  const episodes = await t.anchors.run({
    step,
    groups,
    rollouts,
    noise,
    policy: learning.policy,
    ...(t.onEpisode ? { onEpisode: t.onEpisode } : {}),
  });
  const real = realGroupsFrom(learning.policy, episodes);
  learning.progress.robotSeconds += real.robotSeconds;
  learning.progress.realEpisodes += real.episodes.length;
  learning.progress.anchorEpisodeIds.push(...real.episodes.map((e) => e.id));
  if (learning.worldModel)
    learning.anchorModelEpisodes.push(...worldModelEpisodes(learning.policy, real.episodes, t.endEffector));
  return real;
}
