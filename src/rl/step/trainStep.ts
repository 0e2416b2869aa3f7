/**
 * One WMRL training step (docs/design.md), in the method's order:
 *  1. draw G groups (instruction + start) from the start pool, and the anchor groups among them
 *     uniformly at random (on the steps anchors are due);
 *  2. imagine the other groups' M rollouts in the world model, and the anchor groups too, with the
 *     exploration noise they are then executed with, so each anchor rollout has an imagined score
 *     and a real outcome;
 *  3. run the anchor groups for real (through the run's AnchorRunner); with `--outcome operator` a
 *     person labels them, and a group without a label for every rollout is left out;
 *  4. calibrate: debias every world-model score through the isotonic map (a step's predictions are
 *     made before its own pairs enter it);
 *  5. weight: GRPO advantages, times the anchor weight and the per-rollout ensemble weights;
 *     imagined samples weigh λ each, real ones 1;
 *  6. update: PPO-clip with a KL penalty to the behaviour-cloned reference;
 *  7. estimate the policy's true success rate (PPI; groups, not rollouts, are its samples);
 *  8. the step's anchors enter the corrections (the map's pairs, the anchor weight, the PPI window,
 *     the world model's data): the one place the learning state changes besides the update;
 *  9. every few steps refit the world model with the anchor episodes.
 * Each helper takes what it reads and returns what it computed. The run checkpoints after each step
 * (src/rl/run/runTraining.ts). Before step 1 an optional warm-up runs episodes of the starting policy and
 * refits the world model with them. `real` mode runs every group (GRPO on the environment: the
 * baseline); `wm-only` runs no anchors and corrects nothing. Each step's randomness derives from
 * (seed, step) alone (src/rl/config/seeds.ts).
 */
import * as tf from '@tensorflow/tfjs';
import { Rng } from '../../core/rng.ts';
import type { ImaginationStarts } from '../../worldmodel/imagine.ts';
import { groupRankAgreement } from '../../eval/rankAgreement.ts';
import { imagineGroups, type ImaginedGroups } from './imaginedGroups.ts';
import { withOldLogProb, type PolicySamples } from './policySamples.ts';
import { observedAnchorWeight, weight } from './stepWeights.ts';
import { ppoUpdate, type PpoStats } from './ppoUpdate.ts';
import { commitExecuted, executeGroups, type ExecutedGroups } from './executeGroups.ts';
import { debiased } from '../corrections/debias.ts';
import { keepGroups } from './keepGroups.ts';
import { anchorsDue } from '../config/method.ts';
import { stepSeed } from '../config/seeds.ts';
import { groupStarts } from './startPool.ts';
import { meanOrNull, phaseClock, type StepMetrics } from './stepMetrics.ts';
import type { LearningState, Trainer } from './trainer.ts';
import type { VlaPolicy } from '../../policy/vlaPolicy.ts';
import { imagineOptions, noiseSpec, type WmrlConfig } from '../config/wmrlConfig.ts';
import { NO_WARMUP, refitWorldModel, worldModelWarmup } from '../corrections/worldModelRefit.ts';

/** One training step; its update and its commit (step 8) change the trainer's learning state. */
export async function trainStep(t: Trainer): Promise<StepMetrics> {
  const started = performance.now();
  const clock = phaseClock();
  const { config, method, learning } = t;
  const step = learning.progress.step + 1;
  const M = config.rolloutsPerGroup;
  const anchorsNow = anchorsDue(method, step) ? method.anchorGroups : 0;
  const draw = drawGroups(stepSeed(config.seed, step), config.groups, t.pool.specs.length, anchorsNow);
  const warmup = step === 1 ? await worldModelWarmup(t) : NO_WARMUP;
  clock.lap('warmup');
  const imagineFor = (groups: number[], noiseSeed: number): Imagined => {
    if (!learning.worldModel) throw new Error(`mode '${config.mode}' imagines rollouts but no world model was given`);
    const starts = groupStarts(
      t.pool,
      groups.map((g) => draw.groupIdx[g]!),
    );
    const noise = noiseSpec(config, noiseSeed);
    const out = imagineGroups(
      learning.policy,
      learning.worldModel,
      starts,
      M,
      config.horizon,
      noise,
      imagineOptions(config),
    );
    return { starts, out };
  };
  let imagined: Imagined | undefined;
  if (draw.imaginedGroups.length > 0) {
    t.onProgress?.(`imagining ${draw.imaginedGroups.length}×${M} rollouts`);
    imagined = imagineFor(draw.imaginedGroups, stepSeed(config.seed, step, 'imaginedNoise'));
  }
  const anchorNoise = stepSeed(config.seed, step, 'anchorNoise');
  const predictedAll =
    draw.anchorGroups.length > 0 && method.corrects && learning.worldModel
      ? imagineFor(draw.anchorGroups, anchorNoise)
      : undefined;
  clock.lap('imagine');
  const executed = await runAnchors(t, step, draw, anchorNoise);
  const kept = keptAnchors(draw.anchorGroups, predictedAll, executed?.kept, M);
  const real = executed?.real;
  const predicted = real ? kept.predicted : undefined;
  clock.lap('anchors');
  const debias = (scores: ArrayLike<number>) => debiased(method, learning.calibrator, scores);
  const calibrated = {
    imagined: imagined && debias(imagined.out.score),
    anchors: predicted && debias(predicted.out.score),
  };
  const anchorWeight =
    predicted && real ? observedAnchorWeight(learning.anchorWeight, calibrated.anchors!, real.outcomes, M) : undefined;
  const weighted = weight(
    config,
    method,
    imagined?.out,
    calibrated.imagined,
    real,
    anchorWeight ?? learning.anchorWeight,
  );
  if (weighted.samples) t.onProgress?.('policy update');
  const ppo = await update(
    learning,
    t.reference,
    config.ppo,
    stepSeed(config.seed, step, 'ppoShuffle'),
    weighted.samples,
  );
  const window =
    imagined && predicted && real && real.outcomes.length >= M
      ? learning.ppiWindow.with(step, predicted.out.score, real.outcomes, M)
      : undefined;
  const ppi =
    window && imagined!.out.score.length >= 2 * M ? window.estimate(step, calibrated.imagined!, M, debias) : null;
  // 8. The anchors enter the corrections last: this step's scores and its PPI estimate were debiased by the
  // corrections as they were before them.
  if (predicted && real) learning.calibrator.add(predicted.out.score, real.outcomes);
  if (anchorWeight) learning.anchorWeight = anchorWeight;
  if (window) learning.ppiWindow = window;
  if (executed) commitExecuted(t, executed);
  clock.lap('update');
  const refitted = refitDue(t, step) ? 'full' : false;
  if (refitted) {
    t.onProgress?.('refitting the world model');
    const { worldModel, anchorModelEpisodes } = learning;
    await refitWorldModel(
      worldModel!,
      config.worldModel,
      t.modelData,
      anchorModelEpisodes,
      stepSeed(config.seed, step, 'refit'),
    );
  }
  clock.lap('refit');
  learning.progress.step = step;
  learning.progress.computeSeconds += (performance.now() - started) / 1000;
  const startRows = imagined?.out.score.length ?? 0;
  const ensembleW = weighted.ensembleWeight;
  return {
    step,
    mode: config.mode,
    anchorGroups: kept.anchorGroups,
    anchorInclusionProbability: anchorsNow / config.groups,
    imaginedRollouts: startRows,
    realRollouts: kept.anchorGroups * M,
    unlabelledAnchors: executed?.unlabelled ?? 0,
    successImagined: meanOrNull(imagined?.out.score),
    successCalibrated: meanOrNull(calibrated.imagined),
    successAnchors: meanOrNull(real?.outcomes),
    anchorRank: predicted && real ? groupRankAgreement(predicted.out.score, real.outcomes, M) : null,
    imaginedWeight: weighted.lambda,
    ppi,
    debiasMap: learning.calibrator.knots(),
    calibrationPairs: learning.calibrator.pairs,
    anchorWeight: weighted.anchorWeight,
    ensembleWeight: ensembleW ? { min: Math.min(...ensembleW), max: Math.max(...ensembleW) } : null,
    ensembleVariance: meanOrNull(imagined?.out.variance),
    kl: ppo.kl,
    clipFraction: ppo.clipFraction,
    updates: ppo.updates,
    worldModelRefit: refitted,
    worldModelWarmupEpisodes: warmup.episodes,
    worldModelWarmupRobotSeconds: warmup.robotSeconds,
    robotSeconds: learning.progress.robotSeconds,
    computeSeconds: learning.progress.computeSeconds,
    phaseSeconds: clock.laps,
    phaseCpuSeconds: clock.cpu,
    numTensors: tf.memory().numTensors,
  };
}

/** 1. The step's groups (pool indices) and which of them run for real. */
interface GroupDraw {
  groupIdx: number[];
  anchorGroups: number[];
  imaginedGroups: number[];
}

/** G groups drawn from a pool of `poolSize` starts, `anchors` of them (uniformly at random) run for real. */
export function drawGroups(seed: number, G: number, poolSize: number, anchors: number): GroupDraw {
  const rng = new Rng(seed);
  const groupIdx = Array.from({ length: G }, () => rng.int(poolSize));
  const anchorGroups = rng
    .shuffle(Array.from({ length: G }, (_, i) => i))
    .slice(0, anchors)
    .sort((a, b) => a - b);
  const anchorSet = new Set(anchorGroups);
  const imaginedGroups = Array.from({ length: G }, (_, i) => i).filter((i) => !anchorSet.has(i));
  return { groupIdx, anchorGroups, imaginedGroups };
}

/** 2. Imagined groups: their starts and their rollouts. */
interface Imagined {
  starts: ImaginationStarts;
  out: ImaginedGroups;
}

/** 3. The anchor groups run for real. */
async function runAnchors(
  t: Trainer,
  step: number,
  draw: GroupDraw,
  noiseSeed: number,
): Promise<ExecutedGroups | undefined> {
  if (draw.anchorGroups.length === 0) return undefined;
  t.onProgress?.(`executing ${draw.anchorGroups.length}×${t.config.rolloutsPerGroup} anchor episodes`);
  const groups = draw.anchorGroups.map((g) => ({ slot: g, spec: t.pool.specs[draw.groupIdx[g]!]! }));
  return executeGroups(t, step, groups, t.config.rolloutsPerGroup, noiseSpec(t.config, noiseSeed));
}

/**
 * 3b. The anchor groups that count: all of them, or those the operator labelled fully (their
 * predictions cut down to match, so every pair stays a pair).
 */
function keptAnchors(
  anchorGroups: number[],
  predicted: Imagined | undefined,
  kept: number[] | undefined,
  M: number,
): { anchorGroups: number; predicted: Imagined | undefined } {
  if (!kept || kept.length === anchorGroups.length) return { anchorGroups: anchorGroups.length, predicted };
  if (!predicted || kept.length === 0) return { anchorGroups: kept.length, predicted: undefined };
  return { anchorGroups: kept.length, predicted: keepGroups(predicted.starts, predicted.out, kept, M) };
}

/** 6. The policy update, its minibatches shuffled with `seed` (none when there are no samples). */
async function update(
  learning: Pick<LearningState, 'policy' | 'optimizer'>,
  reference: VlaPolicy,
  ppo: WmrlConfig['ppo'],
  seed: number,
  samples: PolicySamples | null,
): Promise<PpoStats> {
  if (!samples) return { loss: 0, kl: 0, clipFraction: 0, updates: 0 };
  const { policy, optimizer } = learning;
  return ppoUpdate(policy, reference, optimizer, withOldLogProb(policy, samples), ppo, new Rng(seed));
}

/** 9. Whether the world model is refitted with the anchors gathered so far after `step`. */
function refitDue(t: Pick<Trainer, 'method' | 'config' | 'learning'>, step: number): boolean {
  const { worldModel, anchorModelEpisodes } = t.learning;
  return (
    t.method.refit &&
    worldModel !== undefined &&
    anchorModelEpisodes.length > 0 &&
    step % t.config.worldModel.refitEvery === 0
  );
}
