/**
 * Measurements beside training: rollouts imagined and then executed on the environment with the
 * same exploration noise. Their real episodes are measurement, not training: never charged as
 * robot time, never stored, and the calibration map is left untouched.
 */
import { Rng } from '../../core/rng.ts';
import { groupMeans, weightedGroupsPpiEstimate } from '../../eval/ppiEstimate.ts';
import type { NoiseSpec } from '../../policy/rolloutNoise.ts';
import type { ImaginationStarts } from '../../worldmodel/imagine.ts';
import { debiased } from '../corrections/debias.ts';
import { imagineGroups, type ImaginedGroups } from '../step/imaginedGroups.ts';
import { runRealGroups, type RealGroups } from '../step/realGroups.ts';
import { type SeedPurpose, stepSeed } from '../config/seeds.ts';
import { groupStarts } from '../step/startPool.ts';
import type { Trainer } from '../step/trainer.ts';
import { imagineOptions, noiseSpec } from '../config/wmrlConfig.ts';

/**
 * Measurement groups (pool indices): imagined, then executed on the env with the same
 * noise, rollout by rollout; returns the raw imagined scores and the real groups.
 */
export async function imagineAndRun(
  t: Trainer,
  indices: number[],
  noise: NoiseSpec,
  onEpisode?: (done: number, total: number) => void,
): Promise<{ imagined: ImaginedGroups; starts: ImaginationStarts; real: RealGroups }> {
  const { config } = t;
  const { policy, worldModel } = t.learning;
  if (!worldModel) throw new Error('imagining needs a world model');
  const starts = groupStarts(t.pool, indices);
  const imagined = imagineGroups(
    policy,
    worldModel,
    starts,
    config.rolloutsPerGroup,
    config.horizon,
    noise,
    imagineOptions(config),
  );
  const real = await runRealGroups(
    t.env,
    policy,
    indices.map((i) => t.pool.specs[i]!),
    config.rolloutsPerGroup,
    noise,
    onEpisode,
  );
  return { imagined, starts, real };
}

export interface PpiCheck {
  step: number;
  estimate: number;
  lower: number;
  upper: number;
  naive: number;
  /** Success rate of the same (sampling) policy over `episodes` real episodes from the same starts. */
  truth: number;
  episodes: number;
  covered: boolean;
  /**
   * The estimate's samples, group means, so that other windows can be judged on the same check:
   * the imagined groups', and the rectifying groups' with their weights (the window's oldest
   * first, then the check's fresh anchor groups, the last `freshGroups`).
   */
  samples: { imagined: number[]; predicted: number[]; outcomes: number[]; weights: number[]; freshGroups: number };
}

/**
 * Does the PPI interval cover the truth? One round of imagined groups plus random anchor groups
 * gives the estimate for the current policy (no update); many real episodes of the same sampling
 * policy from the same start distribution give the truth.
 */
export async function ppiCheck(t: Trainer, truthEpisodes: number): Promise<PpiCheck | null> {
  const { config, method } = t;
  const { policy, worldModel } = t.learning;
  if (!worldModel || !method.corrects) return null;
  const step = t.learning.progress.step;
  const seed = (purpose: SeedPurpose) => stepSeed(config.seed, step, purpose);
  const rng = new Rng(seed('ppiCheckStarts'));
  const M = config.rolloutsPerGroup;
  const draw = (n: number) => Array.from({ length: n }, () => rng.int(t.pool.specs.length));
  const imaginedIdx = draw(config.groups);
  const anchorIdx = draw(Math.max(2, method.anchorGroups));
  const starts = groupStarts(t.pool, imaginedIdx);
  const out = imagineGroups(
    policy,
    worldModel,
    starts,
    M,
    config.horizon,
    noiseSpec(config, seed('ppiCheckImaginedNoise')),
    imagineOptions(config),
  );
  const f = debiased(t.method, t.learning.calibrator, out.score);
  const anchors = await imagineAndRun(t, anchorIdx, noiseSpec(config, seed('ppiCheckAnchorNoise')));
  // The training estimate's own rectifiers (the window) plus the check's fresh anchor groups.
  const rescore = (scores: number[]) => debiased(t.method, t.learning.calibrator, scores);
  const fresh = {
    predicted: debiased(t.method, t.learning.calibrator, anchors.imagined.score),
    outcomes: anchors.real.outcomes,
  };
  // The rectifiers once (each rescores the whole window): for the estimate and for the log.
  const rectifiers = t.learning.ppiWindow.rectifiers(step, M, rescore, fresh);
  const imagined = groupMeans(f, M);
  const est = weightedGroupsPpiEstimate(imagined, rectifiers.predicted, rectifiers.outcomes, rectifiers.weights);
  const truth = await runRealGroups(
    t.env,
    policy,
    draw(truthEpisodes).map((i) => t.pool.specs[i]!),
    1,
    noiseSpec(config, seed('ppiCheckTruthNoise')),
  );
  const rate = truth.outcomes.reduce((s, v) => s + v, 0) / truth.outcomes.length;
  return {
    step,
    estimate: est.estimate,
    lower: est.lower,
    upper: est.upper,
    naive: est.naive,
    truth: rate,
    episodes: truthEpisodes,
    covered: est.lower <= rate && rate <= est.upper,
    samples: { imagined, ...rectifiers, freshGroups: anchorIdx.length },
  };
}
