/**
 * A whole `wmrl train` run in a folder: set-up (or resume), the steps, evaluations, metrics and
 * checkpoints. The folder holds config.json (resolved), train.metrics.jsonl, checkpoint/,
 * anchors/ (the real episodes the run executed) and, at the end, policy/ and report.json.
 */
import * as tf from '@tensorflow/tfjs';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { resolveConfig } from '../core/config.ts';
import { RunLog } from '../core/runLog.ts';
import type { Episode } from '../core/types.ts';
import { EpisodeStore } from '../data/episodeStore.ts';
import type { Env } from '../envs/env.ts';
import { loadPolicy, savePolicy } from '../policy/policyFiles.ts';
import type { VlaPolicy } from '../policy/vlaPolicy.ts';
import type { WorldModel } from '../worldmodel/worldModel.ts';
import { worldModelConfigSchema } from '../worldmodel/worldModelConfig.ts';
import { loadWorldModel, saveWorldModel } from '../worldmodel/worldModelFiles.ts';
import { AnchorWeight } from './denoisingWeights.ts';
import { ImaginationTrust } from './imaginationTrust.ts';
import { IsotonicCalibrator } from './isotonicCalibrator.ts';
import { trainPerceptionWorldModel, worldModelEpisodes } from './perceptionWorldModel.ts';
import { END_EFFECTOR_DIM, EndEffectorFeatures } from './endEffectorFeatures.ts';
import { hasTrainCheckpoint, loadTrainCheckpoint, saveTrainCheckpoint, truncateMetrics, type TrainerState } from './trainCheckpoint.ts';
import type { WmrlConfig } from './wmrlConfig.ts';
import type { RobotDescription } from '../core/robotDescription.ts';
import { poolAnchorRunner } from '../scheduler/poolAnchorRunner.ts';
import type { SchedulerEvent } from '../scheduler/calibrationScheduler.ts';
import type { PoolFile } from '../scheduler/robotConfig.ts';
import { RobotPool, type PoolRobot } from '../scheduler/robotPool.ts';
import type { AnchorQueue } from '../scheduler/anchorQueue.ts';
import { imaginationCheck, type ImaginationCheck } from './imaginationCheck.ts';
import { evaluatePolicy, ppiCheck, startPool, trainStep, type EvalMetrics, type StepMetrics, type TrainerParts } from './wmrlTrainer.ts';
import { parseTaskSelectors } from '../tasks/selectors.ts';

export interface RunOptions {
  config: WmrlConfig;
  /** The behaviour-cloned policy checkpoint: the start and the KL reference. */
  policyDir: string;
  /** Episodes the world model learns from and group starts are drawn from. */
  data: Episode[];
  runDir: string;
  env: Env;
  resume: boolean;
  /** World-model preset files and overrides (trained here over the policy's perception). */
  worldModelConfig: { files: string[]; overrides?: Record<string, string> };
  /** A perception world model to start from: loaded when the folder holds one, else trained and saved there (shared by runs). */
  worldModelDir?: string;
  onProgress?: (what: string) => void;
  onEpisode?: (done: number, total: number) => void;
  /**
   * Run anchor groups on this robot pool through the calibration scheduler (in parallel, within
   * the pool file's budget, exactly once across --resume; queue and ledger in <run>/schedule.db)
   * instead of on `env`, which then serves evaluation only.
   */
  robotPool?: { file: PoolFile; robots: PoolRobot[]; robot: RobotDescription; onEvent?: (e: SchedulerEvent) => void };
  /** Or run them on remote `wmrl worker`s through this Redis queue (each step's policy saved in <run>/anchor-policies/, which they must be able to read). */
  remoteQueue?: { url: string; name?: string; robot: RobotDescription };
  onStep?: (m: StepMetrics) => void;
  onEval?: (m: EvalMetrics) => void;
  onImaginationCheck?: (c: ImaginationCheck) => void;
}

export interface RunReport {
  steps: number;
  robotSeconds: number;
  computeSeconds: number;
  realEpisodes: number;
  evaluations: EvalMetrics[];
  policyDir: string;
}

export async function runTraining(o: RunOptions): Promise<RunReport> {
  const { config, runDir } = o;
  const resuming = o.resume && hasTrainCheckpoint(runDir);
  if (!o.resume && hasTrainCheckpoint(runDir)) throw new Error(`${runDir} already holds a training run; pass --resume to continue it, or choose another --out`);
  const log = new RunLog(runDir, 'train', { command: 'train', policy: o.policyDir, config, worldModel: o.worldModelConfig }, { append: resuming });
  // Bad task selectors fail here, not after minutes of world-model training.
  parseTaskSelectors(config.tasks);
  parseTaskSelectors(config.eval.tasks);
  const reference = await loadPolicy(o.policyDir);
  if (reference.config.actionChunk !== 1) {
    reference.dispose();
    throw new Error(`${o.policyDir} predicts chunks of ${reference.config.actionChunk} actions; post-training acts every tick and needs a policy with actionChunk 1`);
  }
  setStd(reference, config.ppo.std);
  const optimizer = tf.train.adam(config.ppo.learningRate);
  const needsModel = config.mode !== 'real';
  let policy: VlaPolicy | undefined;
  let worldModel: WorldModel | undefined;
  let state: TrainerState;
  let calibrator: IsotonicCalibrator;
  let anchorWeight: AnchorWeight;
  let trust: ImaginationTrust;
  let anchorEpisodes: Episode[] = [];
  const anchorDir = join(runDir, 'anchors');
  let queue: AnchorQueue | undefined;
  let robots: RobotPool | undefined;
  let endEffector: EndEffectorFeatures | undefined;
  try {
    if (o.robotPool && o.remoteQueue) throw new Error('anchors run either on a robot pool or on remote workers, not both');
    // Loaded only when asked for: a plain run never needs the native SQLite addon or a Redis client.
    if (o.robotPool) {
      const { SqliteQueue } = await import('../scheduler/sqliteQueue.ts');
      queue = SqliteQueue.open(join(runDir, 'schedule.db'));
      robots = new RobotPool(o.robotPool.robots);
    } else if (o.remoteQueue) {
      const { RedisQueue } = await import('../scheduler/redisQueue.ts');
      queue = await RedisQueue.open({ url: o.remoteQueue.url, ...(o.remoteQueue.name ? { name: o.remoteQueue.name } : {}) });
    }
    if (needsModel && config.worldModel.endEffector) endEffector = await EndEffectorFeatures.forRobot(o.env.robot.name);
    // The data in the world model's layout, computed once: for training it and for every refit.
    const modelData = needsModel ? worldModelEpisodes(reference, o.data, endEffector) : [];
    if (resuming) {
      o.onProgress?.('resuming from the checkpoint');
      const loaded = await loadTrainCheckpoint(runDir, optimizer);
      policy = loaded.policy;
      worldModel = loaded.worldModel;
      if (worldModel) refuseScoreRefit(config, worldModel.config.scoreHead, 'the checkpoint\'s world model');
      state = loaded.state;
      calibrator = IsotonicCalibrator.fromJSON(state.calibrator);
      anchorWeight = AnchorWeight.fromJSON(state.anchorWeight);
      trust = state.trust ? ImaginationTrust.fromJSON(state.trust) : new ImaginationTrust(config.trust);
      await truncateMetrics(log.metricsFile, state.step);
      // Only anchors of completed steps count; a killed step's partial ones are run again.
      const ids = new Set(state.anchorEpisodeIds);
      if (existsSync(anchorDir)) for await (const e of (await EpisodeStore.open(anchorDir)).episodes()) if (ids.has(e.id)) anchorEpisodes.push(e);
      if (anchorEpisodes.length !== ids.size) throw new Error(`${anchorDir} holds ${anchorEpisodes.length} of the ${ids.size} anchor episodes the checkpoint counts`);
    } else {
      policy = await loadPolicy(o.policyDir);
      setStd(policy, config.ppo.std);
      calibrator = new IsotonicCalibrator(config.isotonic);
      anchorWeight = new AnchorWeight(config.anchorWeight);
      trust = new ImaginationTrust(config.trust);
      state = { step: 0, robotSeconds: 0, computeSeconds: 0, realEpisodes: 0, calibrator: calibrator.toJSON(), anchorWeight: anchorWeight.toJSON(), trust: trust.toJSON(), anchorEpisodeIds: [] };
      if (needsModel && o.worldModelDir && existsSync(join(o.worldModelDir, 'model.json'))) {
        o.onProgress?.(`loading the world model ${o.worldModelDir}`);
        worldModel = await loadWorldModel(o.worldModelDir);
        refuseScoreRefit(config, worldModel.config.scoreHead, o.worldModelDir);
        const expected = reference.meta.proprioDim + reference.latentDim + (endEffector ? END_EFFECTOR_DIM : 0);
        if (worldModel.meta.dims.state !== expected) {
          const other = worldModel.meta.dims.state === expected + END_EFFECTOR_DIM ? ' (it was trained with worldModel.endEffector: true; drop --worldModel.endEffector=false)' : worldModel.meta.dims.state === expected - END_EFFECTOR_DIM ? ' (it was trained without the end-effector position: pass --worldModel.endEffector=false, or train a new one)' : ': it was trained for another policy';
          throw new Error(`${o.worldModelDir} models ${worldModel.meta.dims.state}-dim states; this policy's perception${endEffector ? ' and the end-effector position' : ''} give ${expected}${other}`);
        }
      } else if (needsModel) {
        o.onProgress?.('training the world model over the policy perception');
        const wmConfig = resolveConfig(worldModelConfigSchema, { files: o.worldModelConfig.files, overrides: { seed: String(config.seed), ...o.worldModelConfig.overrides } });
        refuseScoreRefit(config, wmConfig.scoreHead, 'the world-model config');
        worldModel = await trainPerceptionWorldModel(modelData, wmConfig, {
          onEpoch: (stage, m) => {
            const v = (m.validation as Record<string, number> | undefined) ?? {};
            log.log({ kind: 'worldmodel', stage, ...m });
            o.onProgress?.(`world model epoch ${(m.epoch as number) + 1}: validation ${Object.entries(v).map(([k, x]) => `${k} ${x.toFixed(3)}`).join(', ')}`);
          },
        });
        if (o.worldModelDir) await saveWorldModel(worldModel, o.worldModelDir);
      }
      const initial = await evaluatePolicy(o.env, policy, config, 0);
      log.log({ kind: 'eval', ...initial });
      o.onEval?.(initial);
      await saveTrainCheckpoint(runDir, { state, policy, optimizer, worldModel });
    }
    const parts: TrainerParts = {
      config,
      policy,
      reference,
      optimizer,
      worldModel,
      modelData,
      pool: startPool(reference, o.data, config.tasks, endEffector),
      env: o.env,
      anchorDir,
      state,
      calibrator,
      anchorWeight,
      trust,
      anchorModelEpisodes: worldModel ? worldModelEpisodes(reference, anchorEpisodes, endEffector) : [],
      ...(endEffector ? { endEffector } : {}),
      onProgress: o.onProgress,
      onEpisode: o.onEpisode,
    };
    const runId = basename(resolve(runDir)).replace(/[^\w.-]/g, '_');
    if (o.robotPool && queue && robots) {
      parts.runAnchors = poolAnchorRunner({
        runId,
        queue,
        pool: robots,
        storeDir: anchorDir,
        robot: o.robotPool.robot,
        policy,
        budget: o.robotPool.file.budget,
        maxAttempts: o.robotPool.file.maxAttempts,
        ...(o.robotPool.onEvent ? { onEvent: o.robotPool.onEvent } : {}),
      });
    } else if (o.remoteQueue && queue) {
      parts.runAnchors = poolAnchorRunner({ runId, queue, storeDir: anchorDir, robot: o.remoteQueue.robot, policy, policySnapshots: join(runDir, 'anchor-policies') });
    }
    if (!resuming) await checkImagination(parts, log, o);
    while (state.step < config.steps) {
      const m = await trainStep(parts);
      log.log({ kind: 'step', ...m });
      o.onStep?.(m);
      if (m.step % config.eval.every === 0 || m.step === config.steps) {
        const e = await evaluatePolicy(o.env, policy, config, m.step);
        log.log({ kind: 'eval', ...e, trainingRobotSeconds: state.robotSeconds });
        o.onEval?.(e);
        await checkImagination(parts, log, o);
        if (config.ppiCheckEpisodes > 0) {
          const check = await ppiCheck(parts, config.ppiCheckEpisodes);
          if (check) log.log({ kind: 'ppi-check', ...check });
        }
      }
      state.calibrator = calibrator.toJSON();
      state.anchorWeight = anchorWeight.toJSON();
      state.trust = trust.toJSON();
      await saveTrainCheckpoint(runDir, { state, policy, optimizer, worldModel });
    }
    const policyDir = join(runDir, 'policy');
    await savePolicy(policy, policyDir);
    const evaluations = readEvaluations(log.metricsFile);
    const report: RunReport = { steps: state.step, robotSeconds: state.robotSeconds, computeSeconds: state.computeSeconds, realEpisodes: state.realEpisodes, evaluations, policyDir };
    writeFileSync(join(runDir, 'report.json'), JSON.stringify(report, null, 2) + '\n');
    return report;
  } finally {
    endEffector?.close();
    await robots?.close();
    await queue?.close();
    policy?.dispose();
    reference.dispose();
    worldModel?.dispose();
    optimizer.dispose();
  }
}

async function checkImagination(parts: TrainerParts, log: RunLog, o: RunOptions): Promise<void> {
  if (parts.config.imaginationCheckGroups === 0) return;
  o.onProgress?.(`imagination check: ${parts.config.imaginationCheckGroups}×${parts.config.rolloutsPerGroup} rollouts imagined and executed with the same noise`);
  const check = await imaginationCheck(parts, parts.config.imaginationCheckGroups);
  if (!check) return;
  log.log({ kind: 'imagination-check', ...check });
  o.onImaginationCheck?.(check);
}

/** worldModel.scoreRefitEvery refits the scene score head alone: a world model without one is refused before any work, not silently left unrefitted. */
function refuseScoreRefit(config: WmrlConfig, scoreHead: 'joint' | 'scene', source: string): void {
  if (config.mode !== 'wmrl' || !config.refit || config.worldModel.scoreRefitEvery === 0 || scoreHead === 'scene') return;
  throw new Error(`worldModel.scoreRefitEvery refits the scene score head alone, but ${source} scores with the joint head: use a world model with scoreHead: scene, or drop scoreRefitEvery`);
}

/** Exploration: the action std RL starts from (evaluation takes the mean action, so it is unchanged). */
function setStd(policy: VlaPolicy, std: number): void {
  if (std <= 0) return;
  const logStd = tf.fill(policy.logStd.shape, Math.log(std));
  policy.logStd.assign(logStd);
  logStd.dispose();
}

function readEvaluations(file: string): EvalMetrics[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { kind?: string } & EvalMetrics)
    .filter((r) => r.kind === 'eval');
}
