/**
 * The WMRL loop (DESIGN.md §1), one step at a time:
 *  1. draw G groups (instruction + start) from the start pool, and the anchor groups among them
 *     uniformly at random, plus optionally `activeAnchors` more where the ensemble disagrees most
 *     (src/scheduler/anchorSelection.ts; every anchor group's inclusion probability is logged);
 *  2. imagine the other groups' M rollouts in the world model; imagine the anchor groups too, with
 *     the exploration noise they are then executed with on the environment, so each anchor
 *     rollout has an imagined score and a real outcome (their within-group rank agreement says
 *     whether imagination can teach, and sets the weight λ of imagined samples);
 *  3. debias every world-model score through the isotonic map, fitted on anchor pairs;
 *  4. GRPO advantages, weighted by the anchor weight and the per-rollout ensemble weights;
 *     imagined samples weigh λ each (src/rl/imaginationTrust.ts), real ones 1;
 *  5. a PPO-clip update with a KL penalty to the behaviour-cloned reference;
 *  6. the PPI estimate of the policy's true success rate (groups, not rollouts, are its samples);
 *  7. every few steps the world model is refitted with the anchor episodes;
 *  8. a checkpoint, so a killed run resumes exactly here.
 * Optionally, before step 1, a warm-up: episodes of the starting policy refit the world model.
 * `real` mode executes every group (GRPO on the environment: the baseline); `wm-only` runs no
 * anchors and corrects nothing. Each step's randomness derives from (seed, step) alone.
 */
import * as tf from '@tensorflow/tfjs';
import type { Episode } from '../core/types.ts';
import { Rng } from '../core/rng.ts';
import type { Env } from '../envs/env.ts';
import { runEpisode } from '../envs/rollout.ts';
import { EpisodeStore } from '../data/episodeStore.ts';
import { PolicyController } from '../policy/policyController.ts';
import type { VlaPolicy } from '../policy/vlaPolicy.ts';
import type { WorldModel } from '../worldmodel/worldModel.ts';
import { CONTEXT_DIM, familyOneHot } from '../tasks/familyContext.ts';
import { planEpisodes } from '../tasks/episodePlan.ts';
import { parseTaskSelectors, taskMatches } from '../tasks/selectors.ts';
import { branchStarts, concatStarts } from './branchStarts.ts';
import { AnchorWeight, ensembleWeights } from './denoisingWeights.ts';
import { groupAdvantages } from './groupAdvantages.ts';
import { imagineGroups, type ImaginedGroups } from './imaginedGroups.ts';
import type { NoiseSpec } from './rolloutNoise.ts';
import type { ImaginationTrust } from './imaginationTrust.ts';
import { IsotonicCalibrator } from './isotonicCalibrator.ts';
import { startStates, worldModelEpisodes } from './perceptionWorldModel.ts';
import type { EndEffectorFeatures } from './endEffectorFeatures.ts';
import { concatSamples, withOldLogProb, type PolicySamples } from './policySamples.ts';
import { groupMeans, groupedPpiEstimate, weightedPpiEstimate, type PpiEstimate } from './ppiEstimate.ts';
import { ppoUpdate } from './ppoUpdate.ts';
import { runRealGroups, type GroupSpec, type RealGroups } from './realGroups.ts';
import { selectAnchorGroups } from '../scheduler/anchorSelection.ts';
import type { TrainerState } from './trainCheckpoint.ts';
import { groupRankAgreement, type RankAgreement } from './rankAgreement.ts';
import { anchorGroupCount, imagineOptions, noiseSpec, type WmrlConfig } from './wmrlConfig.ts';
import type { ImaginationStarts } from '../worldmodel/imagine.ts';

/** A group start: a recorded episode's first observation (its task and scene seed reproduce it). */
export interface StartPool {
  specs: GroupSpec[];
  /** Perception state of each start (2·qposDim + latent), for imagination. */
  states: Float32Array;
  stateDim: number;
}

/** Starts from recorded train-split episodes of the selected tasks: one per distinct (instruction, seed). */
export function startPool(policy: VlaPolicy, episodes: Episode[], tasks = 'all', endEffector?: EndEffectorFeatures): StartPool {
  const selectors = parseTaskSelectors(tasks);
  const seen = new Set<string>();
  const chosen = episodes.filter((e) => {
    const key = `${e.task.instruction}|${e.seed}`;
    if (e.task.split !== 'train' || !taskMatches(e.task, selectors) || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  if (chosen.length === 0) throw new Error(`no train-split episodes of tasks '${tasks}' in the data to draw group starts from`);
  return { specs: chosen.map((e) => ({ task: e.task, seed: e.seed })), ...startStates(policy, chosen, endEffector) };
}

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
  realRollouts: number;
  successImagined: number | null;
  successCalibrated: number | null;
  successAnchors: number | null;
  /** Within-group AUC of this step's anchor rollouts: imagined (with the noise they were executed with) raw scores against real outcomes. */
  anchorRank: RankAgreement | null;
  /** λ, the weight of one imagined policy sample relative to a real one (null: no imagined groups), and the moving paired AUC behind it (wmrl mode, imaginedWeight 'trust'). */
  imaginedWeight: number | null;
  trustAuc: number | null;
  ppi: PpiEstimate | null;
  debiasMap: { x: number[]; y: number[] };
  calibrationPairs: number;
  anchorWeight: number;
  ensembleWeight: { min: number; max: number } | null;
  ensembleVariance: number | null;
  kl: number;
  clipFraction: number;
  worldModelRefit: 'full' | 'score head' | false;
  /** Episodes of the starting policy run before this step to refit the world model (config worldModel.warmupEpisodes; step 1 only). */
  worldModelWarmupEpisodes: number;
  robotSeconds: number;
  computeSeconds: number;
  numTensors: number;
}

export interface EvalMetrics {
  step: number;
  split: string;
  episodes: number;
  successes: number;
  successRate: number;
  perFamily: Record<string, { episodes: number; successes: number }>;
  robotSeconds: number;
}

export interface TrainerParts {
  config: WmrlConfig;
  policy: VlaPolicy;
  reference: VlaPolicy;
  optimizer: tf.Optimizer;
  worldModel?: WorldModel;
  /** The world model's training data in its layout (perception episodes), for refits. */
  modelData: Episode[];
  pool: StartPool;
  env: Env;
  /** Where anchor episodes are stored (one closed chunk per step: durable at the checkpoint). */
  anchorDir: string;
  state: TrainerState;
  calibrator: IsotonicCalibrator;
  anchorWeight: AnchorWeight;
  trust: ImaginationTrust;
  /** The end-effector features of the world model's state (config worldModel.endEffector), if it has them. */
  endEffector?: EndEffectorFeatures;
  /** Anchor episodes of completed steps (model layout), for refits. */
  anchorModelEpisodes: Episode[];
  onProgress?: (what: string) => void;
  /** Each real episode of a step as it finishes. */
  onEpisode?: (done: number, total: number) => void;
  /**
   * Runs a step's anchor groups somewhere other than `env` (a robot pool through the calibration
   * scheduler), returning them as runRealGroups does; it stores the episodes itself, exactly once.
   */
  runAnchors?: (step: number, groups: { slot: number; spec: GroupSpec }[], rollouts: number, noise: NoiseSpec, onEpisode?: (done: number, total: number) => void) => Promise<RealGroups>;
}

/** Held-out evaluation on the environment (deterministic policy; never charged as training robot time). */
export async function evaluatePolicy(env: Env, policy: VlaPolicy, config: WmrlConfig, step: number): Promise<EvalMetrics> {
  const plan = planEpisodes(
    parseTaskSelectors(config.eval.tasks),
    config.eval.split,
    config.eval.episodes,
    // The same evaluation episodes at every step, in every mode, for every training seed: paired comparisons.
    900_000,
  );
  const perFamily: EvalMetrics['perFamily'] = {};
  let successes = 0;
  let robotSeconds = 0;
  for (const p of plan) {
    const e = await runEpisode(env, new PolicyController(policy, { deterministic: true }), p);
    const f = (perFamily[e.task.family] ??= { episodes: 0, successes: 0 });
    f.episodes++;
    if (e.success) {
      f.successes++;
      successes++;
    }
    robotSeconds += e.steps / e.controlHz;
  }
  return { step, split: config.eval.split, episodes: plan.length, successes, successRate: successes / plan.length, perFamily, robotSeconds };
}

/** One training step; mutates the policy, optimizer, world model, calibration and state. */
export async function trainStep(p: TrainerParts): Promise<StepMetrics> {
  const started = performance.now();
  const { config, policy, state } = p;
  const step = state.step + 1;
  const rng = new Rng(hashSeed(config.seed, step));
  const M = config.rolloutsPerGroup;
  const G = config.groups;
  const groupIdx = Array.from({ length: G }, () => rng.int(p.pool.specs.length));
  const nAnchor = anchorGroupCount(config);
  // Uniform anchors (today's draw, unchanged), plus optional active ones where the ensemble disagrees most.
  const nActive = config.mode === 'wmrl' && p.worldModel ? Math.min(config.activeAnchors, G - nAnchor) : 0;
  const priority = nActive > 0 ? groupDisagreement(p, groupIdx, step) : undefined;
  const selection = selectAnchorGroups(rng, { groups: G, uniform: nAnchor, active: nActive, ...(priority ? { priority } : {}) });
  const anchorSet = new Set(selection.anchors);
  const anchorGroups = selection.anchors;
  const imaginedGroups = Array.from({ length: G }, (_, i) => i).filter((i) => !anchorSet.has(i));
  const parts: PolicySamples[] = [];
  const warmup = step === 1 ? await worldModelWarmup(p) : 0;

  // Imagined groups.
  let imagined: { score: Float32Array; calibrated: Float32Array; variance: Float32Array } | undefined;
  let imaginedSamples: ImaginedGroups | undefined;
  let ensembleW: Float32Array | undefined;
  let branched = 0;
  if (imaginedGroups.length > 0) {
    if (!p.worldModel) throw new Error(`mode '${config.mode}' imagines rollouts but no world model was given`);
    p.onProgress?.(`imagining ${imaginedGroups.length}×${M} rollouts`);
    // The last `branched` imagined groups start from recent anchor rollouts' states (their pool draws go unused).
    branched = config.mode === 'wmrl' && p.anchorModelEpisodes.length > 0 ? Math.round(config.branch.fraction * imaginedGroups.length) : 0;
    const fromPool = groupStarts(p.pool, imaginedGroups.slice(0, imaginedGroups.length - branched).map((g) => groupIdx[g]!));
    const starts = branched > 0 ? concatStarts(fromPool, branchStarts(p.anchorModelEpisodes.slice(-config.branch.recentEpisodes), branched, new Rng(hashSeed(config.seed, step, 14)))) : fromPool;
    const out = imagineGroups(policy, p.worldModel, starts, M, config.horizon, noiseSpec(config, hashSeed(config.seed, step, 1)), imagineOptions(config));
    const correct = config.mode === 'wmrl';
    const calibrated = correct && config.debias ? p.calibrator.mapAll(out.score) : out.score;
    let advantage = groupAdvantages(calibrated, M, { scale: config.imaginedAdvantage });
    if (correct && config.denoise) {
      ensembleW = ensembleWeights(out.variance, config.sigma0Squared);
      advantage = advantage.map((a, i) => a * ensembleW![i]!);
    }
    for (let r = 0; r < out.samples.count; r++) out.samples.advantage[r] = advantage[out.rolloutOf[r]!]!;
    imaginedSamples = out;
    imagined = { score: out.score, calibrated, variance: out.variance };
  }

  // Anchor (real) groups.
  let anchors: { outcomes: Float32Array; predicted?: Float32Array; robotSeconds: number } | undefined;
  let anchorRank: RankAgreement | null = null;
  if (anchorGroups.length > 0) {
    p.onProgress?.(`executing ${anchorGroups.length}×${M} anchor episodes`);
    const noise = noiseSpec(config, hashSeed(config.seed, step, 2));
    // Imagined before they run, with the noise they run with: the anchors' scores are what imagination says of these very rollouts.
    const raw = config.mode === 'wmrl' && p.worldModel ? imagineGroups(policy, p.worldModel, groupStarts(p.pool, anchorGroups.map((g) => groupIdx[g]!)), M, config.horizon, noise, imagineOptions(config)).score : undefined;
    const real = await executeGroups(p, step, anchorGroups.map((g) => ({ slot: g, spec: p.pool.specs[groupIdx[g]!]! })), M, noise);
    let predicted: Float32Array | undefined;
    if (raw) {
      anchorRank = groupRankAgreement(raw, real.outcomes, M);
      p.trust.observe(raw, real.outcomes, M);
      predicted = config.debias ? p.calibrator.mapAll(raw) : raw;
      for (let g = 0; g < anchorGroups.length; g++) p.anchorWeight.observe(predicted.subarray(g * M, (g + 1) * M), real.outcomes.subarray(g * M, (g + 1) * M));
      // Pairs enter the map after this step's predictions were made with it.
      p.calibrator.add(raw, real.outcomes);
    }
    const w = config.mode === 'wmrl' && config.denoise ? p.anchorWeight.weight : 1;
    const advantage = groupAdvantages(real.outcomes, M).map((a) => a * w);
    for (let r = 0; r < real.samples.count; r++) real.samples.advantage[r] = advantage[real.rolloutOf[r]!]!;
    parts.push(real.samples);
    anchors = { outcomes: real.outcomes, robotSeconds: real.robotSeconds, ...(predicted ? { predicted } : {}) };
  }

  // Imagined samples weigh λ each against a real one (every ensemble member's copy of a rollout 1/K of that); at λ = 0 they are left out.
  const lambda = imaginedSamples ? imaginedSampleWeight(config, p.trust) : null;
  if (imaginedSamples && lambda! > 0) {
    imaginedSamples.samples.weight.fill(lambda! / imaginedSamples.members);
    parts.unshift(imaginedSamples.samples);
  }

  // Policy update.
  p.onProgress?.('policy update');
  const samples = withOldLogProb(policy, concatSamples(parts));
  const ppo = await ppoUpdate(policy, p.reference, p.optimizer, samples, config.ppo, new Rng(hashSeed(config.seed, step, 3)));

  // Rows of the groups imagined from episode starts (the first ones): branches start mid-episode, so they estimate no episode success rate.
  const startRows = (imaginedGroups.length - branched) * M;

  // PPI estimate of the true success rate (needs imagined groups and an anchor group).
  let ppi: PpiEstimate | null = null;
  if (imagined && anchors?.predicted && anchors.outcomes.length >= M) {
    // Rollouts of one group share a start: the interval counts groups, not rollouts.
    if (selection.active.length === 0) {
      if (startRows >= 2 * M) ppi = groupedPpiEstimate(imagined.calibrated.subarray(0, startRows), anchors.predicted, anchors.outcomes, M);
    } else if (branched === 0) {
      // Active anchors are not a uniform sample: weight each group by 1/π (Zrnic & Candès 2024).
      const calibrated = groupMeans(imagined.calibrated, M);
      const predicted = groupMeans(anchors.predicted, M);
      const outcomes = groupMeans(anchors.outcomes, M);
      ppi = weightedPpiEstimate([
        ...imaginedGroups.map((g, k) => ({ predicted: calibrated[k]!, outcome: null, inclusion: selection.inclusion[g]! })),
        ...anchorGroups.map((g, k) => ({ predicted: predicted[k]!, outcome: outcomes[k]!, inclusion: selection.inclusion[g]! })),
      ]);
    }
  }

  // World-model refit with the anchors gathered so far.
  let refitted: 'full' | 'score head' | false = false;
  if (config.mode === 'wmrl' && config.refit && p.worldModel && p.anchorModelEpisodes.length > 0) {
    const { refitEvery, scoreRefitEvery } = config.worldModel;
    if (step % refitEvery === 0) refitted = 'full';
    else if (scoreRefitEvery > 0 && step % scoreRefitEvery === 0) refitted = 'score head'; // a joint-head model is refused at start-up
    if (refitted) {
      p.onProgress?.(refitted === 'full' ? 'refitting the world model' : 'refitting the scene score head');
      await refitWorldModel(p, p.worldModel, hashSeed(config.seed, step, 4), refitted === 'score head');
    }
  }

  state.step = step;
  state.computeSeconds += (performance.now() - started) / 1000;
  const mean = (a: Float32Array | undefined) => (a && a.length ? a.reduce((s, v) => s + v, 0) / a.length : null);
  return {
    step,
    mode: config.mode,
    anchorGroups: anchorGroups.length,
    anchorInclusionProbability: nAnchor / G,
    activeAnchorGroups: selection.active.length,
    anchorInclusion: anchorGroups.map((g) => selection.inclusion[g]!),
    imaginedRollouts: imaginedGroups.length * M,
    branchedGroups: branched,
    realRollouts: anchorGroups.length * M,
    successImagined: mean(imagined?.score.subarray(0, startRows)),
    successCalibrated: mean(imagined?.calibrated.subarray(0, startRows)),
    successAnchors: mean(anchors?.outcomes),
    anchorRank,
    imaginedWeight: lambda,
    trustAuc: config.mode === 'wmrl' && config.imaginedWeight === 'trust' ? p.trust.auc : null,
    ppi,
    debiasMap: p.calibrator.knots(),
    calibrationPairs: p.calibrator.pairs,
    anchorWeight: config.mode === 'wmrl' && config.denoise ? p.anchorWeight.weight : 1,
    ensembleWeight: ensembleW ? { min: Math.min(...ensembleW), max: Math.max(...ensembleW) } : null,
    ensembleVariance: mean(imagined?.variance),
    kl: ppo.kl,
    clipFraction: ppo.clipFraction,
    worldModelRefit: refitted,
    worldModelWarmupEpisodes: warmup,
    robotSeconds: state.robotSeconds,
    computeSeconds: state.computeSeconds,
    numTensors: tf.memory().numTensors,
  };
}

/** λ: imagined samples' weight against real ones — measured trust, a fixed number, or 1 where nothing is measured (wm-only). */
function imaginedSampleWeight(config: WmrlConfig, trust: ImaginationTrust): number {
  if (config.imaginedWeight !== 'trust') return config.imaginedWeight;
  return config.mode === 'wmrl' ? trust.weight : 1;
}

/**
 * Before the first step (wmrl mode): episodes of the starting policy from distinct starts, one
 * each, run for real and charged as robot time, stored with the anchors (so every later refit
 * keeps them), and a refit of the world model with them. Returns how many ran.
 */
async function worldModelWarmup(p: TrainerParts): Promise<number> {
  const { config } = p;
  const n = config.worldModel.warmupEpisodes;
  if (n === 0 || config.mode !== 'wmrl' || !p.worldModel) return 0;
  p.onProgress?.(`warm-up: ${n} episodes of the starting policy for the world model`);
  const rng = new Rng(hashSeed(config.seed, 0, 10));
  const order = rng.shuffle(Array.from({ length: p.pool.specs.length }, (_, i) => i));
  const groups = Array.from({ length: n }, (_, slot) => ({ slot, spec: p.pool.specs[order[slot % order.length]!]! }));
  const real = await executeGroups(p, 0, groups, 1, noiseSpec(config, hashSeed(config.seed, 0, 11)));
  p.onProgress?.('refitting the world model with the warm-up episodes');
  await refitWorldModel(p, p.worldModel, hashSeed(config.seed, 0, 4));
  return real.episodes.length;
}

/**
 * Groups run for real (on the robot pool when there is one, else on `env`), charged as robot
 * time and stored with the anchors. `step` 0 is the warm-up.
 */
async function executeGroups(p: TrainerParts, step: number, groups: { slot: number; spec: GroupSpec }[], rollouts: number, noise: NoiseSpec): Promise<RealGroups> {
  const real = p.runAnchors
    ? await p.runAnchors(step, groups, rollouts, noise, p.onEpisode)
    : await runRealGroups(p.env, p.policy, groups.map((g) => g.spec), rollouts, noise, p.onEpisode);
  p.state.robotSeconds += real.robotSeconds;
  p.state.realEpisodes += real.episodes.length;
  await storeAnchors(p, real.episodes);
  return real;
}

/** Warm-started refit on the world model's data plus every anchor episode so far (each `anchorRepeat` times). */
async function refitWorldModel(p: TrainerParts, model: WorldModel, seed: number, scoreHeadOnly = false): Promise<void> {
  const anchors = Array.from({ length: p.config.worldModel.anchorRepeat }, () => p.anchorModelEpisodes).flat();
  await model.refit([...p.modelData, ...anchors], { epochs: p.config.worldModel.refitEpochs, seed, scoreHeadOnly });
}

export function groupStarts(pool: StartPool, indices: number[]): ImaginationStarts {
  const D = pool.stateDim;
  const states = new Float32Array(indices.length * D);
  const context = new Float32Array(indices.length * CONTEXT_DIM);
  indices.forEach((idx, i) => {
    states.set(pool.states.subarray(idx * D, (idx + 1) * D), i * D);
    context.set(familyOneHot(pool.specs[idx]!.task.family), i * CONTEXT_DIM);
  });
  return { states, stateDim: D, context, instructions: indices.map((idx) => pool.specs[idx]!.task.instruction) };
}

/** Append a step's anchor episodes in their own closed chunk, and keep them (model layout) for refits. */
async function storeAnchors(p: TrainerParts, episodes: Episode[]): Promise<void> {
  if (!p.runAnchors) await appendAnchors(p, episodes);
  p.state.anchorEpisodeIds.push(...episodes.map((e) => e.id));
  if (p.worldModel) p.anchorModelEpisodes.push(...worldModelEpisodes(p.policy, episodes, p.endEffector));
}

async function appendAnchors(p: TrainerParts, episodes: Episode[]): Promise<void> {
  const store = await EpisodeStore.openForAppend(p.anchorDir, { robot: p.env.robot.name });
  try {
    for (const e of episodes) await store.append(e);
  } finally {
    await store.close();
  }
}

/** Per-group ensemble disagreement (mean variance of 2 imagined rollouts each, a seed of its own), for active anchors. */
function groupDisagreement(p: TrainerParts, groupIdx: number[], step: number): Float32Array {
  const R = 2;
  const out = imagineGroups(p.policy, p.worldModel!, groupStarts(p.pool, groupIdx), R, p.config.horizon, noiseSpec(p.config, hashSeed(p.config.seed, step, 9)), imagineOptions(p.config));
  return Float32Array.from(groupIdx, (_, g) => out.variance.subarray(g * R, (g + 1) * R).reduce((s, v) => s + v, 0) / R);
}

/**
 * Measurement groups (pool indices): imagined, then executed on `env` with the same noise, rollout
 * by rollout. Returns the raw imagined scores and the real groups; nothing is charged or stored.
 */
export async function imagineAndRun(p: TrainerParts, indices: number[], noise: NoiseSpec, onEpisode?: (done: number, total: number) => void): Promise<{ imagined: Float32Array; real: RealGroups }> {
  const { config, policy } = p;
  if (!p.worldModel) throw new Error('imagining needs a world model');
  const imagined = imagineGroups(policy, p.worldModel, groupStarts(p.pool, indices), config.rolloutsPerGroup, config.horizon, noise, imagineOptions(config)).score;
  const real = await runRealGroups(p.env, policy, indices.map((i) => p.pool.specs[i]!), config.rolloutsPerGroup, noise, onEpisode);
  return { imagined, real };
}

/** A 32-bit seed from a run seed and step (and a purpose), so each step's draws stand alone. */
export function hashSeed(...parts: number[]): number {
  let h = 0x811c9dc5;
  for (const p of parts) {
    h = Math.imul(h ^ (p >>> 0), 0x01000193) >>> 0;
    h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d) >>> 0;
  }
  return h;
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
}

/**
 * Does the PPI interval cover the truth? One round of imagined groups plus random anchor groups
 * gives the estimate for the current policy (no update, nothing stored, the calibration map
 * untouched); many real episodes of the same sampling policy from the same start distribution
 * give the truth. Real episodes here are measurement, not training: never charged as robot time.
 */
export async function ppiCheck(p: TrainerParts, truthEpisodes: number): Promise<PpiCheck | null> {
  const { config, policy } = p;
  if (!p.worldModel || config.mode !== 'wmrl') return null;
  const step = p.state.step;
  const rng = new Rng(hashSeed(config.seed, step, 5));
  const M = config.rolloutsPerGroup;
  const pick = (n: number) => Array.from({ length: n }, () => rng.int(p.pool.specs.length));
  const imaginedIdx = pick(config.groups);
  const anchorIdx = pick(Math.max(2, anchorGroupCount(config)));
  const out = imagineGroups(policy, p.worldModel, groupStarts(p.pool, imaginedIdx), M, config.horizon, noiseSpec(config, hashSeed(config.seed, step, 6)), imagineOptions(config));
  const f = config.debias ? p.calibrator.mapAll(out.score) : out.score;
  const { imagined: raw, real } = await imagineAndRun(p, anchorIdx, noiseSpec(config, hashSeed(config.seed, step, 7)));
  const est = groupedPpiEstimate(f, config.debias ? p.calibrator.mapAll(raw) : raw, real.outcomes, M);
  const truth = await runRealGroups(p.env, policy, pick(truthEpisodes).map((i) => p.pool.specs[i]!), 1, noiseSpec(config, hashSeed(config.seed, step, 8)));
  const rate = truth.outcomes.reduce((s, v) => s + v, 0) / truth.outcomes.length;
  return { step, estimate: est.estimate, lower: est.lower, upper: est.upper, naive: est.naive, truth: rate, episodes: truthEpisodes, covered: est.lower <= rate && rate <= est.upper };
}
