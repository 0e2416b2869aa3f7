/**
 * The imagination check: can this world model tell which of a group's rollouts will succeed?
 * GRPO's imagined advantages use nothing else. Rollouts are imagined and then executed on the
 * environment with exactly the same exploration noise (the policy's own reactions differ only
 * where imagined and real observations differ), and the within-group AUC of the imagined scores
 * against the real outcomes is measured. 0.5: imagination cannot teach this policy. Training
 * measures the same on every anchor group (`anchorRank`, and λ from it); this check measures it
 * on many groups at once, before robot time is spent. Its real episodes are measurement: never
 * charged as robot time, never stored or trained on.
 */
import { Rng } from '../../core/rng.ts';
import { groupRankAgreement, type RankAgreement } from '../../eval/rankAgreement.ts';
import { imagineAndRun } from './ppiCheck.ts';
import { stepSeed } from '../config/seeds.ts';
import type { Trainer } from '../step/trainer.ts';
import { noiseSpec } from '../config/wmrlConfig.ts';

export interface ImaginationCheck {
  step: number;
  groups: number;
  rolloutsPerGroup: number;
  /** Mean imagined score and real success rate of the same rollouts. */
  imaginedScore: number;
  realSuccess: number;
  /** Within-group AUC of imagined scores against real outcomes (null: no group had both outcomes). */
  rank: RankAgreement;
  /** Per group: the mean imagined score and the real success rate (between-group agreement: which starts are hard). */
  groupImagined: number[];
  groupReal: number[];
}

export async function imaginationCheck(t: Trainer, groups: number): Promise<ImaginationCheck | null> {
  const { config } = t;
  if (!t.learning.worldModel || config.mode === 'real' || groups === 0) return null;
  const step = t.learning.progress.step;
  const M = config.rolloutsPerGroup;
  const rng = new Rng(stepSeed(config.seed, step, 'checkStarts'));
  const picks = Array.from({ length: groups }, () => rng.int(t.pool.specs.length));
  const { imagined: out, real } = await imagineAndRun(
    t,
    picks,
    noiseSpec(config, stepSeed(config.seed, step, 'checkNoise')),
    t.onEpisode,
  );
  const imagined = out.score;
  const mean = (a: Float32Array) => a.reduce((s, v) => s + v, 0) / a.length;
  const perGroup = (a: Float32Array) => Array.from({ length: groups }, (_, g) => mean(a.subarray(g * M, (g + 1) * M)));
  return {
    step,
    groups,
    rolloutsPerGroup: M,
    imaginedScore: mean(imagined),
    realSuccess: mean(real.outcomes),
    rank: groupRankAgreement(imagined, real.outcomes, M),
    groupImagined: perGroup(imagined),
    groupReal: perGroup(real.outcomes),
  };
}
