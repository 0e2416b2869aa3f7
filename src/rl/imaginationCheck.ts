/**
 * The imagination check: can this world model tell which of a group's rollouts will succeed?
 * GRPO's imagined advantages use nothing else. Rollouts are imagined and then executed on the
 * environment with exactly the same exploration noise (the policy's own reactions differ only
 * where imagined and real observations differ), and the within-group AUC of the imagined scores
 * against the real outcomes is measured. 0.5: imagination cannot teach this policy; anchor
 * replay (`anchorRank`) can read far higher, because it feeds the model the real actions.
 * The real episodes are measurement: never charged as robot time, never stored or trained on.
 */
import { Rng } from '../core/rng.ts';
import { runEpisode } from '../envs/rollout.ts';
import { PolicyController } from '../policy/policyController.ts';
import { imagineGroups } from './imaginedGroups.ts';
import { groupRankAgreement, type RankAgreement } from './rankAgreement.ts';
import { RolloutNoise } from './rolloutNoise.ts';
import { groupStarts, hashSeed, type TrainerParts } from './wmrlTrainer.ts';
import { imagineOptions } from './wmrlConfig.ts';

export interface ImaginationCheck {
  step: number;
  groups: number;
  rolloutsPerGroup: number;
  /** Mean imagined score and real success rate of the same rollouts. */
  imaginedScore: number;
  realSuccess: number;
  /** Within-group AUC of imagined scores against real outcomes (null: no group had both outcomes). */
  rank: RankAgreement;
}

export async function imaginationCheck(p: TrainerParts, groups: number): Promise<ImaginationCheck | null> {
  const { config, policy } = p;
  if (!p.worldModel || config.mode === 'real' || groups === 0) return null;
  const step = p.state.step;
  const M = config.rolloutsPerGroup;
  const rng = new Rng(hashSeed(config.seed, step, 12));
  const picks = Array.from({ length: groups }, () => rng.int(p.pool.specs.length));
  const noise = new RolloutNoise(groups * M, policy.actionDim, hashSeed(config.seed, step, 13));
  const imagined = imagineGroups(policy, p.worldModel, groupStarts(p.pool, picks), M, config.horizon, 0, { ...imagineOptions(config), noise });
  const outcomes = new Float32Array(groups * M);
  for (let b = 0; b < groups * M; b++) {
    const spec = p.pool.specs[picks[Math.floor(b / M)]!]!;
    const e = await runEpisode(p.env, new PolicyController(policy, { deterministic: false, noise: (t) => noise.at(b, t) }), spec);
    if (e.status !== 'complete') throw new Error(`imagination check: episode ${e.id} ended '${e.status}'; an aborted episode has no outcome to compare with`);
    outcomes[b] = e.success ? 1 : 0;
    p.onEpisode?.(b + 1, groups * M);
  }
  const mean = (a: Float32Array) => a.reduce((s, v) => s + v, 0) / a.length;
  return { step, groups, rolloutsPerGroup: M, imaginedScore: mean(imagined.score), realSuccess: mean(outcomes), rank: groupRankAgreement(imagined.score, outcomes, M) };
}
