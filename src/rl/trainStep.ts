/**
 * One WMRL training step (docs/design.md), in the method's order:
 *  1. draw G groups (instruction + start) from the start pool, and the anchor groups among them:
 *     uniformly at random, plus optionally `activeAnchors` more where the ensemble disagrees most
 *     (every anchor group's inclusion probability is logged);
 *  2. imagine the other groups' M rollouts in the world model (from step `imagineFromStep` on), and
 *     the anchor groups too, with the exploration noise they are then executed with, so each anchor
 *     rollout has an imagined score and a real outcome;
 *  3. run the anchor groups for real (through the run's AnchorRunner); with `--outcome operator` a
 *     person labels them, and a group without a label for every rollout is left out;
 *  4. calibrate: debias every world-model score through the run's correction (a step's
 *     predictions are made before its own pairs enter it);
 *  5. weight: GRPO advantages, times the anchor weight and the per-rollout ensemble weights;
 *     imagined samples weigh λ each (from the anchors' within-group rank agreement), real ones 1;
 *  6. update: PPO-clip with a KL penalty to the behaviour-cloned reference (with `anchorUpdateFirst`,
 *     first on the anchor groups alone, then on every sample);
 *  7. estimate the policy's true success rate (PPI; groups, not rollouts, are its samples); then
 *     the anchor pairs enter the correction;
 *  8. every few steps refit the world model with the anchor episodes.
 * The run checkpoints after each step (src/rl/runTraining.ts). Before step 1 an optional warm-up
 * runs episodes of the starting policy and refits the world model with them. `real` mode runs
 * every group (GRPO on the environment: the baseline); `wm-only` runs no anchors and corrects
 * nothing. Each step's randomness derives from (seed, step) alone (src/rl/seeds.ts).
 */
import * as tf from '@tensorflow/tfjs';
import { Rng } from '../core/rng.ts';
import type { ImaginationStarts } from '../worldmodel/imagine.ts';
import type { NoiseSpec } from '../policy/rolloutNoise.ts';
import { groupRankAgreement, type RankAgreement } from '../eval/rankAgreement.ts';
import { selectAnchorGroups, type AnchorSelection } from './anchorSelection.ts';
import { branchStarts, concatStarts } from './branchStarts.ts';
import { ensembleWeights } from './denoisingWeights.ts';
import { groupAdvantages } from './groupAdvantages.ts';
import { imagineGroups, type ImaginedGroups } from './imaginedGroups.ts';
import { concatSamples, withOldLogProb, type PolicySamples } from './policySamples.ts';
import { groupMeans, weightedPpiEstimate, type PpiEstimate } from '../eval/ppiEstimate.ts';
import { ppoUpdate, type PpoStats } from './ppoUpdate.ts';
import type { RealGroups } from './realGroups.ts';
import { executeGroups, type ExecutedGroups } from './executeGroups.ts';
import { keepGroups } from './keepGroups.ts';
import { anchorsDue } from './method.ts';
import { addAnchorPairs, correctionFeatures, debiasedScores, debiasStored } from './debias.ts';
import { stepSeed } from './seeds.ts';
import { afterUpdate, resumeIfDue } from './imaginationStop.ts';
import { groupStarts } from './startPool.ts';
import type { Trainer } from './trainer.ts';
import { imagineOptions, noiseSpec, type WmrlConfig } from './wmrlConfig.ts';
import { NO_WARMUP, refitWorldModel, type Warmup, worldModelWarmup } from './worldModelRefit.ts';
import { penalisedScores } from './uncertaintyPenalty.ts';

export interface StepMetrics {
  step: number;
  mode: WmrlConfig['mode'];
  anchorGroups: number;
  anchorInclusionProbability: number;
  /** Anchor groups drawn by ensemble disagreement (beyond the uniform ones). */
  activeAnchorGroups: number;
  /** π of each anchor group, in the order of the step's anchor groups. */
  anchorInclusion: number[];
  imaginedRollouts: number;
  /** Imagined groups that started from a recent anchor rollout's state (config branch). */
  branchedGroups: number;
  /** Anchor rollouts used (with operator outcomes: those of fully labelled groups). */
  realRollouts: number;
  /** Outcome operator: anchor episodes executed but left out for want of a label (skipped or timed out). */
  unlabelledAnchors: number;
  successImagined: number | null;
  successCalibrated: number | null;
  successAnchors: number | null;
  /**
   * Within-group AUC of this step's anchor rollouts: imagined (with the
   * noise they were executed with) raw scores against real outcomes.
   */
  anchorRank: RankAgreement | null;
  /**
   * λ, the weight of one imagined policy sample relative to a real one (null: no imagined
   * groups), and the moving paired AUC behind it (wmrl mode, imaginedWeight 'trust').
   */
  imaginedWeight: number | null;
  trustAuc: number | null;
  ppi: PpiEstimate | null;
  debiasMap: { x: number[]; y: number[] };
  calibrationPairs: number;
  /**
   * The contextual correction's pairs and weights (per feature, then r̂, then the intercept; empty:
   * the identity); null unless debiasMap is contextual.
   */
  contextual: { pairs: number; weights: number[] } | null;
  anchorWeight: number;
  ensembleWeight: { min: number; max: number } | null;
  ensembleVariance: number | null;
  /** KL(π ‖ π_BC) after the update on the anchors alone (anchorUpdateFirst; null without it). */
  anchorsAloneKl: number | null;
  kl: number;
  clipFraction: number;
  /** Adam steps of the policy update (epochs × minibatches; 0 without samples). */
  updates: number;
  /** Adam's step of the policy update (ppo.learningRate, or learningRateAfterStop once stopped; null: none). */
  learningRate: number | null;
  /** The step after which imagination stopped (config imaginedKlLimit); null while it runs. */
  imaginationStoppedAt: number | null;
  /** With imaginationRestartAfter, the KL to the clone the limit counts from once stopped; null otherwise. */
  imaginationKlBase: number | null;
  worldModelRefit: 'full' | 'score head' | false;
  /**
   * Episodes of the starting policy run before this step to refit
   * the world model (config worldModel.warmupEpisodes; step 1 only).
   */
  worldModelWarmupEpisodes: number;
  /** Robot time of the warm-up's episodes (included in robotSeconds). */
  worldModelWarmupRobotSeconds: number;
  /** Epochs of the warm-up's refit (config worldModel.warmupRefitEpochs; 0 without a warm-up). */
  worldModelWarmupRefitEpochs: number;
  robotSeconds: number;
  computeSeconds: number;
  /** Wall seconds of this step's phases. */
  phaseSeconds: StepPhases;
  /**
   * This process's CPU seconds (user + system) in each phase: the compute a step costs on a
   * machine of its own, where the wall clock also counts other jobs' turns on shared cores.
   */
  phaseCpuSeconds: StepPhases;
  numTensors: number;
}

/** One training step; changes the trainer's learning state (policy, optimizer, world model, calibration, counters). */
export async function trainStep(t: Trainer): Promise<StepMetrics> {
  const started = performance.now();
  const clock = phaseClock();
  const step = t.learning.progress.step + 1;
  if (resumeIfDue(t.learning.progress, t.method, step)) t.onProgress?.('imagination resumes');
  const drawn = drawGroups(t, step);
  const warmup = step === 1 ? await worldModelWarmup(t) : NO_WARMUP;
  clock.lap('warmup');
  const imagined = imagine(t, step, drawn);
  const predictedAll = predictAnchors(t, step, drawn);
  clock.lap('imagine');
  const executed = await runAnchors(t, step, drawn);
  const { draw, predicted } = keptAnchors(t, drawn, predictedAll, executed?.kept);
  const real = executed?.real;
  const unlabelled = executed?.unlabelled ?? 0;
  clock.lap('anchors');
  const calibrated = calibrate(t, imagined, predicted, real);
  const weighted = weight(t, imagined, calibrated, predicted, real);
  const anchorsAlone = await anchorsAloneUpdate(t, step, real, weighted);
  const ppo = await update(t, step, weighted.samples);
  if (afterUpdate(t.learning.progress, t.method, step, ppo.kl, imagined !== undefined && weighted.lambda! > 0))
    t.onProgress?.(`imagination stopped: KL to the clone ${ppo.kl.toFixed(3)} passed its limit`);
  const ppi = estimate(t, step, draw, imagined, predicted, calibrated, real);
  // The anchor pairs enter the corrections last: this step's scores and its PPI estimate were
  // debiased by the corrections as they were before these pairs.
  if (predicted && real) addAnchorPairs(t, predicted.out, predicted.starts, real.outcomes);
  clock.lap('update');
  const refitted = await refit(t, step);
  clock.lap('refit');
  t.learning.progress.step = step;
  t.learning.progress.computeSeconds += (performance.now() - started) / 1000;
  return stepMetrics(
    t,
    step,
    { draw, warmup, imagined, calibrated, real, unlabelled, weighted, anchorsAlone, ppo, ppi, refitted },
    clock.laps,
    clock.cpu,
  );
}

/** Wall and CPU seconds of a step's phases, for the metrics log: where a step's compute goes. */
function phaseClock(): { lap(phase: keyof StepPhases): void; laps: StepPhases; cpu: StepPhases } {
  const laps: StepPhases = { warmup: 0, imagine: 0, anchors: 0, update: 0, refit: 0 };
  const cpu: StepPhases = { ...laps };
  let last = performance.now();
  let lastCpu = process.cpuUsage();
  return {
    lap(phase) {
      const now = performance.now();
      const nowCpu = process.cpuUsage();
      laps[phase] += (now - last) / 1000;
      cpu[phase] += (nowCpu.user - lastCpu.user + nowCpu.system - lastCpu.system) / 1e6;
      last = now;
      lastCpu = nowCpu;
    },
    laps,
    cpu,
  };
}

export interface StepPhases {
  warmup: number;
  /** Imagining the step's groups and the anchor groups' predictions. */
  imagine: number;
  /** Running the anchor groups (robot time's wall clock, and waiting for robots). */
  anchors: number;
  /** Calibration, weights, the PPO update and the PPI estimate. */
  update: number;
  refit: number;
}

/** 1. The step's groups (pool indices) and which of them run for real. */
interface GroupDraw {
  groupIdx: number[];
  selection: AnchorSelection;
  anchorGroups: number[];
  imaginedGroups: number[];
}

function drawGroups(t: Trainer, step: number): GroupDraw {
  const { config, method } = t;
  const rng = new Rng(stepSeed(config.seed, step));
  // Once imagination has stopped, a run with realGroupsAfterStop executes every group it draws.
  const allReal = t.learning.progress.imaginationStoppedAt !== undefined ? method.realGroupsAfterStop : undefined;
  const G = allReal ?? config.groups;
  const groupIdx = Array.from({ length: G }, () => rng.int(t.pool.specs.length));
  const due = anchorsDue(method, step);
  const active = allReal === undefined && t.learning.worldModel && due ? method.activeAnchors : 0;
  const priority = active > 0 ? groupDisagreement(t, groupIdx, step) : undefined;
  const selection = selectAnchorGroups(rng, {
    groups: G,
    uniform: allReal ?? (due ? method.anchorGroups : 0),
    active,
    ...(priority ? { priority } : {}),
  });
  const anchorSet = new Set(selection.anchors);
  const imaginedGroups = Array.from({ length: G }, (_, i) => i).filter((i) => !anchorSet.has(i));
  return { groupIdx, selection, anchorGroups: selection.anchors, imaginedGroups };
}

/**
 * Per-group ensemble disagreement (mean variance of 2 imagined rollouts each, a seed of its own), for active anchors.
 */
function groupDisagreement(t: Trainer, groupIdx: number[], step: number): Float32Array {
  const R = 2;
  const noise = noiseSpec(t.config, stepSeed(t.config.seed, step, 'disagreementNoise'));
  const out = imagineGroups(
    t.learning.policy,
    t.learning.worldModel!,
    groupStarts(t.pool, groupIdx),
    R,
    t.config.horizon,
    noise,
    imagineOptions(t.config),
  );
  return Float32Array.from(
    groupIdx,
    (_, g) => out.variance.subarray(g * R, (g + 1) * R).reduce((s, v) => s + v, 0) / R,
  );
}

/**
 * 2. The imagined groups, the last `branched` of them starting from
 * recent anchor rollouts' states (their pool draws go unused).
 */
interface Imagined {
  /** The groups' starts (their task context feeds the contextual correction). */
  starts: ImaginationStarts;
  out: ImaginedGroups;
  branched: number;
  /**
   * Rows of the groups imagined from episode starts (the first ones):
   * branches start mid-episode, so they estimate no episode success rate.
   */
  startRows: number;
}

function imagine(t: Trainer, step: number, draw: GroupDraw): Imagined | undefined {
  const { config, method, learning } = t;
  const { imaginedGroups } = draw;
  if (
    imaginedGroups.length === 0 ||
    step < method.imagineFromStep ||
    learning.progress.imaginationStoppedAt !== undefined
  )
    return undefined;
  if (!learning.worldModel) throw new Error(`mode '${config.mode}' imagines rollouts but no world model was given`);
  const M = config.rolloutsPerGroup;
  t.onProgress?.(`imagining ${imaginedGroups.length}×${M} rollouts`);
  const branched =
    learning.anchorModelEpisodes.length > 0 ? Math.round(method.branchFraction * imaginedGroups.length) : 0;
  const fromPool = groupStarts(
    t.pool,
    imaginedGroups.slice(0, imaginedGroups.length - branched).map((g) => draw.groupIdx[g]!),
  );
  const starts =
    branched > 0
      ? concatStarts(
          fromPool,
          branchStarts(
            learning.anchorModelEpisodes.slice(-config.branch.recentEpisodes),
            branched,
            new Rng(stepSeed(config.seed, step, 'branchStarts')),
            { beforeClose: config.branch.beforeClose },
          ),
        )
      : fromPool;
  const out = imagineGroups(
    learning.policy,
    learning.worldModel,
    starts,
    M,
    config.horizon,
    noiseSpec(config, stepSeed(config.seed, step, 'imaginedNoise')),
    imagineOptions(config),
  );
  return { out, starts, branched, startRows: (imaginedGroups.length - branched) * M };
}

/**
 * 2b. The anchor groups imagined with the noise they run with:
 * what imagination says of these very rollouts (wmrl mode).
 */
function predictAnchors(t: Trainer, step: number, draw: GroupDraw): Imagined | undefined {
  const { config, learning } = t;
  if (draw.anchorGroups.length === 0 || !t.method.corrects || !learning.worldModel) return undefined;
  const starts = groupStarts(
    t.pool,
    draw.anchorGroups.map((g) => draw.groupIdx[g]!),
  );
  const M = config.rolloutsPerGroup;
  const out = imagineGroups(
    learning.policy,
    learning.worldModel,
    starts,
    M,
    config.horizon,
    anchorNoise(t, step),
    imagineOptions(config),
  );
  return { out, starts, branched: 0, startRows: draw.anchorGroups.length * M };
}

function anchorNoise(t: Trainer, step: number): NoiseSpec {
  return noiseSpec(t.config, stepSeed(t.config.seed, step, 'anchorNoise'));
}

/** 3. The anchor groups run for real. */
async function runAnchors(t: Trainer, step: number, draw: GroupDraw): Promise<ExecutedGroups | undefined> {
  if (draw.anchorGroups.length === 0) return undefined;
  t.onProgress?.(`executing ${draw.anchorGroups.length}×${t.config.rolloutsPerGroup} anchor episodes`);
  const groups = draw.anchorGroups.map((g) => ({ slot: g, spec: t.pool.specs[draw.groupIdx[g]!]! }));
  return executeGroups(t, step, groups, t.config.rolloutsPerGroup, anchorNoise(t, step));
}

/**
 * 3b. The anchor groups that count: all of them, or those the operator labelled fully (their
 * predictions cut down to match, so every pair stays a pair).
 */
function keptAnchors(
  t: Trainer,
  draw: GroupDraw,
  predicted: Imagined | undefined,
  kept: number[] | undefined,
): { draw: GroupDraw; predicted: Imagined | undefined } {
  if (!kept || kept.length === draw.anchorGroups.length) return { draw, predicted };
  const M = t.config.rolloutsPerGroup;
  const keptDraw = { ...draw, anchorGroups: kept.map((k) => draw.anchorGroups[k]!) };
  if (!predicted || kept.length === 0) return { draw: keptDraw, predicted: undefined };
  const { starts, out } = keepGroups(predicted.starts, predicted.out, kept, M);
  return { draw: keptDraw, predicted: { starts, out, branched: 0, startRows: kept.length * M } };
}

/** 4. Debiased scores of the imagined rollouts and of the anchors' predictions (their pairs enter after step 7). */
interface Calibrated {
  imagined?: Float32Array;
  anchors?: Float32Array;
}

function calibrate(
  t: Trainer,
  imagined: Imagined | undefined,
  predicted: Imagined | undefined,
  real: RealGroups | undefined,
): Calibrated {
  const out: Calibrated = {};
  if (imagined) out.imagined = debiasedScores(t, imagined.out, imagined.starts);
  if (predicted && real) out.anchors = debiasedScores(t, predicted.out, predicted.starts);
  return out;
}

/** 5. Advantages and sample weights. */
interface Weighted {
  /** Null when nothing is left to learn from (every group was an anchor, and none was labelled). */
  samples: PolicySamples | null;
  ensembleWeight?: Float32Array;
  anchorRank: RankAgreement | null;
  lambda: number | null;
  /** The weight the anchors' advantages were multiplied by (1 in an update without imagined samples). */
  anchorWeight: number;
}

function weight(
  t: Trainer,
  imagined: Imagined | undefined,
  calibrated: Calibrated,
  predicted: Imagined | undefined,
  real: RealGroups | undefined,
): Weighted {
  const { config, method, learning } = t;
  const M = config.rolloutsPerGroup;
  const parts: PolicySamples[] = [];
  let ensembleW: Float32Array | undefined;
  if (imagined) {
    const scores = penalisedScores(calibrated.imagined!, imagined.out.variance, config.uncertaintyPenalty);
    let advantage = groupAdvantages(scores, M, { scale: config.imaginedAdvantage });
    if (method.ensembleWeight) {
      const w = ensembleWeights(imagined.out.variance, config.sigma0Squared);
      advantage = advantage.map((a, i) => a * w[i]!);
      ensembleW = w;
    }
    setAdvantages(imagined.out.samples, imagined.out.rolloutOf, advantage);
  }
  let anchorRank: RankAgreement | null = null;
  if (real) {
    if (predicted) {
      anchorRank = groupRankAgreement(predicted.out.score, real.outcomes, M);
      learning.trust.observe(predicted.out.score, real.outcomes, M);
      for (let g = 0; g < real.outcomes.length / M; g++)
        learning.anchorWeight.observe(
          calibrated.anchors!.subarray(g * M, (g + 1) * M),
          real.outcomes.subarray(g * M, (g + 1) * M),
        );
    }
  }
  // Imagined samples weigh λ each against a real one (every ensemble member's copy of a rollout
  // 1/K of that), λ from this step's anchors too; at λ = 0 they are left out.
  const lambda = imagined ? (method.imaginedWeight === 'trust' ? learning.trust.weight : method.imaginedWeight) : null;
  const withImagined = imagined !== undefined && lambda! > 0;
  const anchorWeight = appliedAnchorWeight(method.anchorWeight ? learning.anchorWeight.weight : 1, lambda);
  if (real) {
    setAdvantages(
      real.samples,
      real.rolloutOf,
      groupAdvantages(real.outcomes, M).map((a) => a * anchorWeight),
    );
    parts.push(real.samples);
  }
  if (withImagined) {
    imagined.out.samples.weight.fill(lambda! / imagined.out.members);
    if (!config.imaginationTrainsGripper) imagined.out.samples.actionMask = gripperLeftOut(imagined.out.samples);
    parts.unshift(imagined.out.samples);
  }
  return {
    samples: parts.length > 0 ? concatSamples(parts) : null,
    ...(ensembleW ? { ensembleWeight: ensembleW } : {}),
    anchorRank,
    lambda,
    anchorWeight,
  };
}

/**
 * The multiplier of the anchors' advantages: the learned anchor weight when imagined samples are in
 * the update (λ > 0), else 1. The weight balances real against imagined samples; in an update of
 * anchors alone it would only scale the step (at λ = 0 on pick it doubled the anchors' advantages
 * against the anchors-only arm's).
 */
export function appliedAnchorWeight(learned: number, lambda: number | null): number {
  return lambda !== null && lambda > 0 ? learned : 1;
}

/** A mask of every row's action dims but the last (the gripper command: arm joints, then gripper). */
function gripperLeftOut(samples: PolicySamples): Float32Array {
  const A = samples.actionDim;
  const mask = new Float32Array(samples.count * A).fill(1);
  for (let r = 0; r < samples.count; r++) mask[r * A + A - 1] = 0;
  return mask;
}

/** Every policy-gradient row gets its rollout's advantage. */
function setAdvantages(samples: PolicySamples, rolloutOf: Int32Array, advantage: Float32Array): void {
  for (let r = 0; r < samples.count; r++) samples.advantage[r] = advantage[rolloutOf[r]!]!;
}

/**
 * 6a. With `anchorUpdateFirst`, an update on the anchor groups alone, with their plain GRPO
 * advantages, before the joint one (null when it does not apply: no anchors, or nothing imagined
 * in the update). In the joint update the anchors are one group in 32; here they get Adam steps
 * of their own, as GRPO on the environment with one group a step would give them.
 */
async function anchorsAloneUpdate(
  t: Trainer,
  step: number,
  real: RealGroups | undefined,
  weighted: Weighted,
): Promise<PpoStats | null> {
  if (!t.method.anchorUpdateFirst || !real || weighted.lambda === null || weighted.lambda <= 0) return null;
  const alone: PolicySamples = {
    ...real.samples,
    oldLogProb: new Float32Array(real.samples.count),
    advantage: new Float32Array(real.samples.count),
  };
  setAdvantages(alone, real.rolloutOf, groupAdvantages(real.outcomes, t.config.rolloutsPerGroup));
  return update(t, step, alone, 'ppoShuffleAnchorsAlone');
}

/** 6. The policy update (none when there are no samples). */
async function update(
  t: Trainer,
  step: number,
  samples: PolicySamples | null,
  shuffleLabel: 'ppoShuffle' | 'ppoShuffleAnchorsAlone' = 'ppoShuffle',
): Promise<PpoStats> {
  if (!samples) return { loss: 0, kl: 0, clipFraction: 0, updates: 0, learningRate: null };
  t.onProgress?.(shuffleLabel === 'ppoShuffle' ? 'policy update' : 'policy update on the anchors alone');
  const { policy, optimizer } = t.learning;
  const stopped = t.learning.progress.imaginationStoppedAt !== undefined;
  const minibatches = (stopped ? t.method.minibatchesAfterStop : undefined) ?? t.config.ppo.minibatches;
  const learningRate = (stopped ? t.method.learningRateAfterStop : undefined) ?? t.config.ppo.learningRate;
  return ppoUpdate(
    policy,
    t.reference,
    optimizer,
    withOldLogProb(policy, samples),
    { ...t.config.ppo, minibatches, learningRate },
    new Rng(stepSeed(t.config.seed, step, shuffleLabel)),
  );
}

/** 7. The PPI estimate of the true success rate (needs imagined groups from starts and an anchor group). */
function estimate(
  t: Trainer,
  step: number,
  draw: GroupDraw,
  imagined: Imagined | undefined,
  predicted: Imagined | undefined,
  calibrated: Calibrated,
  real: RealGroups | undefined,
): PpiEstimate | null {
  const M = t.config.rolloutsPerGroup;
  if (!imagined || !predicted || !calibrated.anchors || !real || real.outcomes.length < M) return null;
  const { selection } = draw;
  // Rollouts of one group share a start: the interval counts groups, not rollouts. Uniform anchor
  // groups join the window of the latest steps' groups that rectifies the estimate.
  if (selection.active.length === 0) {
    const features = correctionFeatures(t, predicted.out, predicted.starts);
    t.learning.ppiWindow.add(step, predicted.out.score, features, real.outcomes, M);
    if (imagined.startRows < 2 * M) return null;
    // The window's groups are debiased by this step's correction, as the imagined scores were.
    return t.learning.ppiWindow.estimate(step, calibrated.imagined!.subarray(0, imagined.startRows), M, (scores, f) =>
      debiasStored(t, scores, f),
    );
  }
  if (imagined.branched > 0) return null;
  // Active anchors are not a uniform sample: weight each group by 1/π (Zrnic & Candès 2024).
  const imaginedMeans = groupMeans(calibrated.imagined!, M);
  const predictedMeans = groupMeans(calibrated.anchors, M);
  const outcomes = groupMeans(real.outcomes, M);
  return weightedPpiEstimate([
    ...draw.imaginedGroups.map((g, k) => ({
      predicted: imaginedMeans[k]!,
      outcome: null,
      inclusion: selection.inclusion[g]!,
    })),
    ...draw.anchorGroups.map((g, k) => ({
      predicted: predictedMeans[k]!,
      outcome: outcomes[k]!,
      inclusion: selection.inclusion[g]!,
    })),
  ]);
}

/** 8. The world-model refit with the anchors gathered so far, when one is due. */
async function refit(t: Trainer, step: number): Promise<'full' | 'score head' | false> {
  const { learning } = t;
  if (!t.method.refit || !learning.worldModel || learning.anchorModelEpisodes.length === 0) return false;
  // Nothing imagines any more: a refit would cost compute for no use (unless imagination restarts).
  if (learning.progress.imaginationStoppedAt !== undefined && t.method.imaginationRestartAfter === undefined)
    return false;
  const { refitEvery, scoreRefitEvery } = t.config.worldModel;
  let refitted: 'full' | 'score head' | false = false;
  if (step % refitEvery === 0) refitted = 'full';
  else if (scoreRefitEvery > 0 && step % scoreRefitEvery === 0)
    // a joint-head model is refused at start-up
    refitted = 'score head';
  if (!refitted) return false;
  t.onProgress?.(refitted === 'full' ? 'refitting the world model' : 'refitting the scene score head');
  await refitWorldModel(t, learning.worldModel, stepSeed(t.config.seed, step, 'refit'), refitted === 'score head');
  return refitted;
}

function stepMetrics(
  t: Trainer,
  step: number,
  r: {
    draw: GroupDraw;
    warmup: Warmup;
    imagined?: Imagined;
    calibrated: Calibrated;
    real?: RealGroups;
    unlabelled: number;
    weighted: Weighted;
    anchorsAlone: PpoStats | null;
    ppo: PpoStats;
    ppi: PpiEstimate | null;
    refitted: 'full' | 'score head' | false;
  },
  phaseSeconds: StepPhases,
  phaseCpuSeconds: StepPhases,
): StepMetrics {
  const { config, method, learning } = t;
  const M = config.rolloutsPerGroup;
  const mean = (a: Float32Array | undefined) => (a?.length ? a.reduce((s, v) => s + v, 0) / a.length : null);
  const startRows = r.imagined?.startRows ?? 0;
  const ensembleW = r.weighted.ensembleWeight;
  return {
    step,
    mode: config.mode,
    anchorGroups: r.draw.anchorGroups.length,
    anchorInclusionProbability: r.draw.selection.uniformProbability,
    activeAnchorGroups: r.draw.selection.active.length,
    anchorInclusion: r.draw.anchorGroups.map((g) => r.draw.selection.inclusion[g]!),
    imaginedRollouts: r.imagined ? r.draw.imaginedGroups.length * M : 0,
    branchedGroups: r.imagined?.branched ?? 0,
    realRollouts: r.draw.anchorGroups.length * M,
    unlabelledAnchors: r.unlabelled,
    successImagined: mean(r.imagined?.out.score.subarray(0, startRows)),
    successCalibrated: mean(r.calibrated.imagined?.subarray(0, startRows)),
    successAnchors: mean(r.real?.outcomes),
    anchorRank: r.weighted.anchorRank,
    imaginedWeight: r.weighted.lambda,
    trustAuc: method.imaginedWeight === 'trust' ? learning.trust.auc : null,
    ppi: r.ppi,
    debiasMap: learning.calibrator.knots(),
    calibrationPairs: learning.calibrator.pairs,
    contextual:
      method.debiasMap === 'contextual'
        ? { pairs: learning.contextual.pairs, weights: learning.contextual.weights }
        : null,
    anchorWeight: r.weighted.anchorWeight,
    ensembleWeight: ensembleW ? { min: Math.min(...ensembleW), max: Math.max(...ensembleW) } : null,
    ensembleVariance: mean(r.imagined?.out.variance),
    anchorsAloneKl: r.anchorsAlone?.kl ?? null,
    kl: r.ppo.kl,
    clipFraction: r.ppo.clipFraction,
    updates: r.ppo.updates,
    learningRate: r.ppo.learningRate,
    imaginationStoppedAt: learning.progress.imaginationStoppedAt ?? null,
    imaginationKlBase: learning.progress.imaginationKlBase ?? null,
    worldModelRefit: r.refitted,
    worldModelWarmupEpisodes: r.warmup.episodes,
    worldModelWarmupRobotSeconds: r.warmup.robotSeconds,
    worldModelWarmupRefitEpochs: r.warmup.refitEpochs,
    robotSeconds: learning.progress.robotSeconds,
    computeSeconds: learning.progress.computeSeconds,
    phaseSeconds,
    phaseCpuSeconds,
    numTensors: tf.memory().numTensors,
  };
}
