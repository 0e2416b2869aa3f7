/**
 * A whole `wmrl train` run in a folder: set-up (or resume), the steps, evaluations, metrics and
 * checkpoints. The folder holds config.json (resolved), train.metrics.jsonl, checkpoint/,
 * anchors/ (the real episodes the run executed) and, at the end, policy/ and report.json.
 */
import * as tf from '@tensorflow/tfjs';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { resolveConfig } from '../../core/config.ts';
import { readRunLog, RunLog } from '../../core/runLog.ts';
import type { Episode } from '../../core/types.ts';
import { EpisodeStore } from '../../data/episodeStore.ts';
import type { Env } from '../../envs/env.ts';
import type { AskOperator } from '../../operator/askOperator.ts';
import { LabelStore, labelVerdict } from '../../operator/labelStore.ts';
import { loadPolicy, savePolicy } from '../../policy/policyFiles.ts';
import type { VlaPolicy } from '../../policy/vlaPolicy.ts';
import { parseTaskSelectors } from '../../tasks/selectors.ts';
import type { EndEffectorFeatures } from '../../worldmodel/endEffectorFeatures.ts';
import {
  layoutOf,
  perceptionEpisodes,
  perceptionLayout,
  trainPerceptionWorldModel,
  worldModelEpisodes,
} from '../../worldmodel/perceptionWorldModel.ts';
import type { WorldModel } from '../../worldmodel/worldModel.ts';
import { type WorldModelConfig, worldModelConfigSchema } from '../../worldmodel/worldModelConfig.ts';
import { loadWorldModel, saveWorldModel } from '../../worldmodel/worldModelFiles.ts';
import { setStd } from '../step/actionStd.ts';
import type { AnchorRunner } from './anchorRunner.ts';
import { type EvalMetrics, type HeldOutEvaluator, inProcessEvaluator } from '../estimates/heldOutEvaluation.ts';
import { AnchorWeight } from '../corrections/denoisingWeights.ts';
import { imaginationCheck, type ImaginationCheck } from '../estimates/imaginationCheck.ts';
import { PpiWindow } from '../estimates/ppiWindow.ts';
import { IsotonicCalibrator } from '../corrections/isotonicCalibrator.ts';
import { withOutcome } from './operatorOutcomes.ts';
import { resolveMethod } from '../config/method.ts';
import { refuseChangedDatasets, runDatasets } from './runDatasets.ts';
import { ppiCheck } from '../estimates/ppiCheck.ts';
import { startPool } from '../step/startPool.ts';
import {
  checkpointDir,
  hasTrainCheckpoint,
  loadTrainCheckpoint,
  progressOf,
  saveTrainCheckpoint,
  truncateMetrics,
} from './trainCheckpoint.ts';
import type { LearningState, Trainer } from '../step/trainer.ts';
import type { StepMetrics } from '../step/stepMetrics.ts';
import { trainStep } from '../step/trainStep.ts';
import { type WmrlConfig, withoutRemovedKeys, wmrlConfigSchema } from '../config/wmrlConfig.ts';
import { worldModelFeatures } from '../corrections/worldModelFeatures.ts';

export interface RunOptions {
  config: WmrlConfig;
  /** The behaviour-cloned policy checkpoint: the start and the KL reference. */
  policyDir: string;
  /** Episodes the world model learns from and (without `starts`) group starts are drawn from. */
  data: Episode[];
  /**
   * The folders `data` was read from, recorded in train.config.json (`data`): what a run learned from and drew its
   * starts from is part of what it is (the benchmark reuses a run only if it read the same folders).
   */
  dataDirs?: string[];
  /** Episodes group starts are drawn from instead of `data` (their train split; the same robot). */
  starts?: Episode[];
  /** The folders `starts` was read from, recorded in train.config.json (`starts`; without them, `data`'s). */
  startDirs?: string[];
  runDir: string;
  /** Where evaluations and measurements run. */
  env: Env;
  /**
   * Where anchor episodes run; it stores them in `runAnchorDir(runDir)`. The caller builds it:
   * `envAnchorRunner(env, runAnchorDir(runDir))` in-process, or a robot pool's or remote workers'.
   */
  anchors: AnchorRunner;
  /** Labels anchor outcomes with config `--outcome operator` (the caller builds it: an OperatorDesk's `ask`). */
  askOperator?: AskOperator;
  resume: boolean;
  /**
   * World-model preset files and overrides (trained here over the policy's perception). `given`: the
   * files were asked for (train --wm-config), so a model loaded from worldModelDir must agree with them.
   */
  worldModelConfig: { files: string[]; overrides?: Record<string, string>; given?: boolean };
  /**
   * A perception world model to start from: loaded when the folder
   * holds one, else trained and saved there (shared by runs).
   */
  worldModelDir?: string;
  onProgress?: (what: string) => void;
  onEpisode?: (done: number, total: number) => void;
  onStep?: (m: StepMetrics) => void;
  /** Each held-out evaluation's result, when it arrives (with an own evaluator, perhaps out of step order). */
  onEval?: (m: EvalMetrics) => void;
  /** Where held-out evaluations run; default: in-process on `env`, training waiting (heldOutEvaluation.ts). */
  evaluator?: HeldOutEvaluator;
  onImaginationCheck?: (c: ImaginationCheck) => void;
}

export type { EvalMetrics } from '../estimates/heldOutEvaluation.ts';

export interface RunReport {
  steps: number;
  robotSeconds: number;
  computeSeconds: number;
  realEpisodes: number;
  evaluations: EvalMetrics[];
  policyDir: string;
}

/** The run folder's store of the real episodes it executed. */
export function runAnchorDir(runDir: string): string {
  return join(runDir, 'anchors');
}

/** The config keys a resumed run may change (and records): it may be continued for more steps. */
const RESUMABLE_KEYS = new Set(['steps']);

export async function runTraining(o: RunOptions): Promise<RunReport> {
  const { config, runDir } = o;
  if (config.outcome.source === 'operator' && !o.askOperator)
    throw new Error('--outcome operator needs an operator to ask (RunOptions.askOperator)');
  const resuming = o.resume && hasTrainCheckpoint(runDir);
  if (!o.resume && hasTrainCheckpoint(runDir))
    throw new Error(`${runDir} already holds a training run; pass --resume to continue it, or choose another --out`);
  if (resuming) refuseChangedConfig(runDir, config);
  const startDirs = o.startDirs ?? o.dataDirs;
  const datasets = o.dataDirs ? await runDatasets(o.dataDirs, o.startDirs ?? o.dataDirs) : undefined;
  if (resuming && datasets) refuseChangedDatasets(runDir, datasets);
  const log = new RunLog(
    runDir,
    'train',
    {
      command: 'train',
      policy: o.policyDir,
      ...(o.dataDirs ? { data: o.dataDirs } : {}),
      ...(startDirs ? { starts: startDirs } : {}),
      ...(datasets ? { datasets } : {}),
      config,
      worldModel: o.worldModelConfig,
    },
    { append: resuming },
  );
  // Bad task selectors fail here, not after minutes of world-model training.
  parseTaskSelectors(config.tasks);
  parseTaskSelectors(config.eval.tasks);
  const reference = await loadPolicy(o.policyDir);
  if (reference.config.actionChunk !== 1) {
    reference.dispose();
    throw new Error(
      `${o.policyDir} predicts chunks of ${reference.config.actionChunk} actions; ` +
        `post-training acts every tick and needs a policy with actionChunk 1`,
    );
  }
  setStd(reference, config.ppo.std);
  const optimizer = tf.train.adam(config.ppo.learningRate);
  const needsModel = config.mode !== 'real';
  const evaluations = new PendingEvaluations(o.evaluator ?? inProcessEvaluator(o.env, config), log, o.onEval);
  let learning: LearningState | undefined;
  let endEffector: EndEffectorFeatures | undefined;
  try {
    // The data in the world model's layout, computed once: for training it and for every refit.
    const perceived = needsModel ? perceptionEpisodes(reference, o.data) : [];
    if (needsModel && config.worldModel.endEffector)
      endEffector = await worldModelFeatures(
        { ...o.config.worldModel, data: o.data, robot: o.env.robot, latentDim: reference.latentDim },
        perceived,
        resuming ? join(checkpointDir(o.runDir), 'worldmodel') : o.worldModelDir,
        { log, ...(o.onProgress ? { onProgress: o.onProgress } : {}) },
      );
    const modelData = endEffector ? endEffector.append(perceived) : perceived;
    learning = resuming
      ? await resumeLearning(o, optimizer, reference, endEffector, log)
      : await startLearning(o, optimizer, reference, endEffector, modelData, log, evaluations);
    const trainer: Trainer = {
      config,
      method: resolveMethod(config),
      reference,
      pool: startPool(reference, o.starts ?? o.data, config.tasks, endEffector),
      modelData,
      ...(endEffector ? { endEffector } : {}),
      anchors: o.anchors,
      env: o.env,
      ...(o.askOperator ? { askOperator: o.askOperator } : {}),
      learning,
      ...(o.onProgress ? { onProgress: o.onProgress } : {}),
      ...(o.onEpisode ? { onEpisode: o.onEpisode } : {}),
    };
    if (!resuming) await checkImagination(trainer, log, o);
    while (learning.progress.step < config.steps) {
      const m = await trainStep(trainer);
      log.log({ kind: 'step', ...m });
      o.onStep?.(m);
      if (m.step % config.eval.every === 0 || m.step === config.steps) {
        if (config.eval.keepPolicies) await savePolicy(learning.policy, evaluatedPolicyDir(runDir, m.step));
        await evaluations.start(learning.policy, m.step, { trainingRobotSeconds: learning.progress.robotSeconds });
        await checkImagination(trainer, log, o);
        if (config.ppiCheckEpisodes > 0) {
          const check = await ppiCheck(trainer, config.ppiCheckEpisodes);
          if (check) log.log({ kind: 'ppi-check', ...check });
        }
      }
      await saveTrainCheckpoint(runDir, learning);
    }
    await evaluations.finished();
    const policyDir = join(runDir, 'policy');
    await savePolicy(learning.policy, policyDir);
    const { progress } = learning;
    const report: RunReport = {
      steps: progress.step,
      robotSeconds: progress.robotSeconds,
      computeSeconds: progress.computeSeconds,
      realEpisodes: progress.realEpisodes,
      evaluations: readEvaluations(log.metricsFile),
      policyDir,
    };
    writeFileSync(join(runDir, 'report.json'), JSON.stringify(report, null, 2) + '\n');
    return report;
  } finally {
    endEffector?.close();
    learning?.policy.dispose();
    reference.dispose();
    learning?.worldModel?.dispose();
    optimizer.dispose();
  }
}

/**
 * A new run: the policy from the BC checkpoint, the world model
 * loaded or trained, an evaluation at step 0, a first checkpoint.
 */
async function startLearning(
  o: RunOptions,
  optimizer: tf.Optimizer,
  reference: VlaPolicy,
  endEffector: EndEffectorFeatures | undefined,
  modelData: Episode[],
  log: RunLog,
  evaluations: PendingEvaluations,
): Promise<LearningState> {
  const { config } = o;
  const policy = await loadPolicy(o.policyDir);
  setStd(policy, config.ppo.std);
  const learning: LearningState = {
    policy,
    optimizer,
    calibrator: new IsotonicCalibrator(config.isotonic),
    anchorWeight: new AnchorWeight(config.anchorWeight),
    ppiWindow: new PpiWindow(config.ppiWindow, config.ppiHalfLife),
    progress: { step: 0, robotSeconds: 0, computeSeconds: 0, realEpisodes: 0, anchorEpisodeIds: [] },
    anchorModelEpisodes: [],
  };
  try {
    if (config.mode !== 'real') learning.worldModel = await startWorldModel(o, reference, endEffector, modelData, log);
    await evaluations.start(policy, 0);
    await saveTrainCheckpoint(o.runDir, learning);
    return learning;
  } catch (err) {
    policy.dispose();
    learning.worldModel?.dispose();
    throw err;
  }
}

/**
 * The run's world model: loaded from --world-model when that folder holds
 * one (checked against this run), else trained over the policy's perception.
 */
async function startWorldModel(
  o: RunOptions,
  reference: VlaPolicy,
  endEffector: EndEffectorFeatures | undefined,
  modelData: Episode[],
  log: RunLog,
): Promise<WorldModel> {
  const { config } = o;
  if (o.worldModelDir && existsSync(join(o.worldModelDir, 'model.json'))) {
    o.onProgress?.(`loading the world model ${o.worldModelDir}`);
    const worldModel = await loadWorldModel(o.worldModelDir);
    try {
      if (o.worldModelConfig.given) refuseOtherModel(worldModel.config, resolveWorldModelConfig(o), o.worldModelDir);
      const layout = perceptionLayout(worldModel, reference);
      const modelHasIt = layout.endEffector;
      if (Boolean(layout.keyframes) !== Boolean(endEffector?.keyframes))
        throw new Error(
          `${o.worldModelDir} has ${layout.keyframes ? 'the' : 'no'} keyframes in its state; this run's ` +
            `worldModel.keyframes is ${config.worldModel.keyframes} (pass ` +
            `--worldModel.keyframes=${Boolean(layout.keyframes)}, or train a new one)`,
        );
      if (modelHasIt !== (endEffector !== undefined)) {
        const fix = modelHasIt
          ? 'it was trained with worldModel.endEffector: true; drop --worldModel.endEffector=false'
          : 'it was trained without the end-effector position: pass --worldModel.endEffector=false, or train a new one';
        throw new Error(
          `${o.worldModelDir} ${modelHasIt ? 'has' : 'lacks'} the end-effector position in its state, ` +
            `which this run's worldModel.endEffector ${endEffector ? 'asks for' : 'leaves out'} (${fix})`,
        );
      }
      return worldModel;
    } catch (err) {
      worldModel.dispose();
      throw err;
    }
  }
  o.onProgress?.('training the world model over the policy perception');
  const wmConfig = resolveWorldModelConfig(o);
  const worldModel = await trainPerceptionWorldModel(modelData, wmConfig, layoutOf(endEffector), {
    onEpoch: (stage, m) => {
      const v = (m.validation as Record<string, number> | undefined) ?? {};
      log.log({ kind: 'worldmodel', stage, ...m });
      o.onProgress?.(
        `world model epoch ${(m.epoch as number) + 1}: validation ${Object.entries(v)
          .map(([k, x]) => `${k} ${x.toFixed(3)}`)
          .join(', ')}`,
      );
    },
  });
  if (o.worldModelDir) await saveWorldModel(worldModel, o.worldModelDir);
  return worldModel;
}

/** The world-model config the run would train with: its presets, the run's seed, its overrides. */
function resolveWorldModelConfig(o: RunOptions): WorldModelConfig {
  return resolveConfig(worldModelConfigSchema, {
    files: o.worldModelConfig.files,
    overrides: { seed: String(o.config.seed), ...o.worldModelConfig.overrides },
  });
}

/** What makes a loaded world model another model than the asked-for config describes (not how long it trained). */
const MODEL_KEYS = ['kind', 'members', 'hidden', 'scoreHead'] as const;

/**
 * Refuses a world model loaded from `dir` whose shape or labels differ from the config the run was
 * given: the loaded model would be used as it is, and the asked-for setting silently ignored.
 */
function refuseOtherModel(loaded: WorldModelConfig, asked: WorldModelConfig, dir: string): void {
  const differ = MODEL_KEYS.filter((k) => JSON.stringify(loaded[k]) !== JSON.stringify(asked[k]));
  if (differ.length === 0) return;
  const both = differ.map((k) => `${k} ${JSON.stringify(loaded[k])} (asked: ${JSON.stringify(asked[k])})`);
  throw new Error(
    `${dir} holds a world model with ${both.join(', ')}: train one into another --world-model folder, ` +
      'or drop --wm-config to use this one as it is',
  );
}

/**
 * A resumed run: everything from the last checkpoint; only anchors
 * of completed steps count (a killed step's partial ones run again).
 */
async function resumeLearning(
  o: RunOptions,
  optimizer: tf.Optimizer,
  reference: VlaPolicy,
  endEffector: EndEffectorFeatures | undefined,
  log: RunLog,
): Promise<LearningState> {
  const { config, runDir } = o;
  o.onProgress?.('resuming from the checkpoint');
  const { state, policy, worldModel } = await loadTrainCheckpoint(runDir, optimizer);
  try {
    await truncateMetrics(log.metricsFile, state.step);
    const ids = new Set(state.anchorEpisodeIds);
    const anchorEpisodes: Episode[] = [];
    const anchorDir = runAnchorDir(runDir);
    if (existsSync(anchorDir))
      for await (const e of (await EpisodeStore.open(anchorDir)).episodes()) if (ids.has(e.id)) anchorEpisodes.push(e);
    if (anchorEpisodes.length !== ids.size)
      throw new Error(
        `${anchorDir} holds ${anchorEpisodes.length} of the ${ids.size} anchor episodes the checkpoint counts`,
      );
    if (config.outcome.source === 'operator') await applyLabels(runDir, anchorEpisodes);
    return {
      policy,
      optimizer,
      ...(worldModel ? { worldModel } : {}),
      calibrator: IsotonicCalibrator.fromJSON(state.calibrator),
      anchorWeight: AnchorWeight.fromJSON(state.anchorWeight),
      ppiWindow: state.ppiWindow
        ? PpiWindow.fromJSON(config.ppiWindow, config.ppiHalfLife, state.ppiWindow)
        : new PpiWindow(config.ppiWindow, config.ppiHalfLife),
      progress: progressOf(state),
      anchorModelEpisodes: worldModel ? worldModelEpisodes(reference, anchorEpisodes, endEffector) : [],
    };
  } catch (err) {
    policy.dispose();
    worldModel?.dispose();
    throw err;
  }
}

/** Operator outcomes: the counted anchors' outcomes are their labels in labels.jsonl, read back on resume. */
async function applyLabels(runDir: string, episodes: Episode[]): Promise<void> {
  const labels = await LabelStore.open(runDir);
  for (const [i, e] of episodes.entries()) {
    const label = labels.get(e.id);
    const verdict = label ? labelVerdict(label) : 'skip';
    if (verdict === 'skip')
      throw new Error(
        `${labels.file} has no success/failure label for anchor episode ${e.id}, which the checkpoint counts`,
      );
    episodes[i] = withOutcome(e, verdict);
  }
}

/**
 * --resume continues the run its folder records: a config that differs from the recorded one
 * (train.config.json) is refused with the differing keys, except those a resume may change
 * (RESUMABLE_KEYS), which are applied and recorded. Otherwise the checkpoint's calibration state
 * would silently run under options the record does not show.
 */
function refuseChangedConfig(runDir: string, config: WmrlConfig): void {
  const file = join(runDir, 'train.config.json');
  if (!existsSync(file)) return;
  const stored = (JSON.parse(readFileSync(file, 'utf8')) as { config?: unknown }).config;
  if (stored === undefined) return;
  // Keys since removed that the run recorded at what today's code behaves as are no difference.
  const raw = withoutRemovedKeys(stored);
  // A run recorded before a key existed has that key's default, the behaviour it ran with.
  const parsed = wmrlConfigSchema.safeParse(raw);
  const recorded: unknown = parsed.success ? parsed.data : raw;
  const changed = differingKeys(recorded, config).filter((k) => !RESUMABLE_KEYS.has(k));
  if (changed.length === 0) return;
  const value = (root: unknown, key: string) =>
    JSON.stringify(key.split('.').reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], root));
  const list = changed.map((k) => `${k} (run: ${value(recorded, k)}, now: ${value(config, k)})`).join(', ');
  throw new Error(
    `--resume with a config that differs from the run's (${file}): ${list}. Resume with the run's ` +
      `config (only ${[...RESUMABLE_KEYS].join(', ')} may change), or start a new run in another --out`,
  );
}

/** Dotted keys whose values differ between two JSON-like values (leaves and arrays compared whole). */
export function differingKeys(a: unknown, b: unknown, prefix = ''): string[] {
  const isObject = (v: unknown): v is Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v);
  if (isObject(a) && isObject(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    return keys.flatMap((k) => differingKeys(a[k], b[k], prefix ? `${prefix}.${k}` : k));
  }
  return JSON.stringify(a) === JSON.stringify(b) ? [] : [prefix];
}

/** Where `eval.keepPolicies` saves the policy evaluated after `step`. */
export function evaluatedPolicyDir(runDir: string, step: number): string {
  return join(runDir, 'evaluated', `step-${step}`);
}

async function checkImagination(trainer: Trainer, log: RunLog, o: RunOptions): Promise<void> {
  const groups = trainer.config.imaginationCheckGroups;
  if (groups === 0) return;
  o.onProgress?.(
    `imagination check: ${groups}×${trainer.config.rolloutsPerGroup} ` +
      `rollouts imagined and executed with the same noise`,
  );
  const check = await imaginationCheck(trainer, groups);
  if (!check) return;
  log.log({ kind: 'imagination-check', ...check });
  o.onImaginationCheck?.(check);
}

/** The run's evaluations in step order (an own evaluator's results may have been logged out of order). */
function readEvaluations(file: string): EvalMetrics[] {
  const evaluations = readRunLog(file).filter((r) => r.kind === 'eval') as unknown as EvalMetrics[];
  return evaluations.sort((a, b) => a.step - b.step);
}

/**
 * Evaluations started and not yet logged: each result is logged (and handed to onEval) when it
 * arrives; the run waits for all of them before its report. A result that fails fails the run there.
 */
class PendingEvaluations {
  #pending: Promise<void>[] = [];
  #evaluator: HeldOutEvaluator;
  #log: RunLog;
  #onEval: ((m: EvalMetrics) => void) | undefined;

  constructor(evaluator: HeldOutEvaluator, log: RunLog, onEval: ((m: EvalMetrics) => void) | undefined) {
    this.#evaluator = evaluator;
    this.#log = log;
    this.#onEval = onEval;
  }

  async start(policy: VlaPolicy, step: number, extra: { trainingRobotSeconds?: number } = {}): Promise<void> {
    const { result } = await this.#evaluator.start(policy, step);
    const logged = result.then((e) => {
      this.#log.log({ kind: 'eval', ...e, ...extra });
      this.#onEval?.(e);
    });
    // Awaited in finished(); until then a failure must not end the process unhandled.
    logged.catch(() => {});
    this.#pending.push(logged);
  }

  async finished(): Promise<void> {
    await Promise.all(this.#pending);
  }
}
