/** `wmrl train`: WMRL post-training of a behaviour-cloned policy (and its baselines/ablations). */
import { mkdirSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { describeConfigSchema, resolveConfig } from '../core/config.ts';
import type { Episode } from '../core/types.ts';
import { loadRobotWithTasks } from '../tasks/robotTasks.ts';
import { makeEnv } from '../envs/makeEnv.ts';
import { EpisodeAbortedError } from '../envs/env.ts';
import { EpisodeRerunsExhaustedError } from '../envs/rerunAborted.ts';
import { OperatorDesk } from '../operator/operatorDesk.ts';
import { TerminalPrompt } from '../operator/terminalPrompt.ts';
import { POLICY_KERNELS } from '../policy/policyConfig.ts';
import { envAnchorRunner, type AnchorRunner } from '../rl/run/anchorRunner.ts';
import { runAnchorDir, runTraining } from '../rl/run/runTraining.ts';
import { TRAIN_MODES, type WmrlConfig, wmrlConfigSchema } from '../rl/config/wmrlConfig.ts';
import { WORLD_MODEL_KERNELS } from '../worldmodel/worldModelConfig.ts';
import { CONFIGS_DIR } from '../core/robotDescription.ts';
import { parseFlags, UsageError } from './args.ts';
import { policyFolder } from './runInputs.ts';
import { configOverrides, datasetRobot, episodeFolderReader, useBackend } from './common.ts';
import { ENV_FLAGS, envChoice } from './envFlags.ts';
import { Progress } from './progress.ts';
import { readPoolFile } from '../scheduler/poolFile.ts';
import { poolRobots } from '../scheduler/openRobot.ts';
import type { AnchorQueue } from '../scheduler/anchorQueue.ts';
import type { SchedulerEvent } from '../scheduler/calibrationScheduler.ts';
import { poolAnchorRunner } from '../scheduler/poolAnchorRunner.ts';
import { RobotPool } from '../scheduler/robotPool.ts';
import { loadDetector } from '../success/detectorFiles.ts';
import { envRecordDir } from '../success/envRecordDir.ts';
import type { SuccessDetector } from '../success/successDetector.ts';
import { detectorAnchors, detectorDir, simulatedOperator, spotCheckAnswerer } from './detectorOutcomes.ts';

const HELP = `usage: wmrl train --policy DIR --data DIR --out DIR [--config FILE]... [options] [--key.path=value]...

  --policy DIR     behaviour-cloned policy (wmrl pretrain's policy/ folder): the start and the KL reference
  --data DIR       dataset folder(s): the world model's data and the pool of group starts (train split)
  --starts DIR     dataset folder(s) whose train-split episodes are the pool of group starts instead (default: --data),
                   e.g. the demonstrations alone, so runs whose world models read different data start from the same
                   scenes
  --out DIR        run folder: config, metrics JSONL, checkpoint/, anchors/, policy/, report.json
  --config FILE    preset(s), e.g. configs/train/quickstart.yaml
  --wm-config FILE world-model preset (default configs/wm/perception.yaml)
  --world-model DIR load the perception world model from DIR, or train it and save it there (runs can share it);
                   with --wm-config too, a model there of another shape or labels is refused
  --wm-seed S      the seed of a world model this run trains (default: --seed); runs sharing --world-model
                   pass one, so the model does not depend on which of them trains it
  --mode M         ${TRAIN_MODES.join(' | ')}
  --no-debias      ablation: no isotonic calibration of world-model scores
  --no-denoise     ablation: no anchor weight, no ensemble weights
  --no-refit       ablation: anchor episodes never enter the world model's data
  --resume         continue the run in --out from its last checkpoint
  --env E          sim (the in-process simulator; default) | rosbridge: anchor (and evaluation)
                   episodes on a robot's rosbridge server; an aborted episode is stored marked
                   aborted and runs again once the robot answers; after 3 aborts in a row the run
                   stops (nothing of the step is used): continue with --resume
  --url URL        with --env rosbridge: ws://host:9090
  --speed X        with --env rosbridge: the robot's speed (1 = real time; 'max' for a --lockstep sim-server)
  --connect-timeout S  with --env rosbridge: seconds to wait for the robot's server (default 30)
  --reset WHO      with --env rosbridge: service (the robot's reset service; default) | operator (a person sets
                   the scene up, prompted in \`wmrl view --run\` and on this terminal: docs/operator.md)
  --robots FILE    run anchor episodes on this robot pool (\`wmrl robot add --pool FILE\`), in parallel across
                   its robots, within its budget, exactly once across --resume (queue + ledger: <out>/schedule.db);
                   --env then serves evaluation only. See docs/scheduler.md
  --queue URL      or run anchor episodes on remote robot workers (\`wmrl worker --queue URL\`) through this
                   Redis queue; they must be able to read <out>/anchor-policies/ (shared storage)
  --queue-name Q   the Redis queue's name (default wmrl-anchors)
  --robot R        the robot description (a name under robots/, a folder holding robot.yaml, or a .yaml);
                   default: the one the data was recorded with (from where it recorded it), which must be the same robot
  --outcome O      environment (default: the simulator's or the robot's task-status service) | detector:
                   anchor outcomes from the success detector in --detector, a random outcome.spotChecks share
                   (0.1) of anchor episodes checked by the operator (on a robot: you, in \`wmrl view --run\` or on
                   this terminal; in the sim: a simulated operator answering with the simulator's outcome, or you
                   with --outcome.spotCheckOperator=desk), its bias corrected on them, drift flagged. The trainer sees
                   only the relabelled episodes (anchors/); the environment's own record goes to anchors-env/
                   (in the sim: the true outcomes, kept for measurement). See docs/success.md
  --detector DIR   with --outcome detector: wmrl success train's --out (or its detector/ folder)
  --seed S, --backend B

config keys:
`;

/** `wmrl train`'s own flags; its other `--key=value` arguments set config keys. */
const TRAIN_FLAGS = {
  policy: { type: 'string' },
  data: { type: 'string', multiple: true },
  starts: { type: 'string', multiple: true },
  out: { type: 'string' },
  config: { type: 'string', multiple: true },
  'wm-config': { type: 'string', multiple: true },
  'world-model': { type: 'string' },
  'wm-seed': { type: 'string' },
  mode: { type: 'string' },
  'no-debias': { type: 'boolean' },
  'no-denoise': { type: 'boolean' },
  'no-refit': { type: 'boolean' },
  resume: { type: 'boolean' },
  robots: { type: 'string' },
  queue: { type: 'string' },
  'queue-name': { type: 'string' },
  ...ENV_FLAGS,
  robot: { type: 'string' },
  reset: { type: 'string' },
  outcome: { type: 'string' },
  detector: { type: 'string' },
  seed: { type: 'string' },
  backend: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** `wmrl train`'s arguments split into its own flags and the config keys they set. */
function trainFlags(argv: string[]) {
  const { overrides, rest } = configOverrides(argv, Object.keys(wmrlConfigSchema.shape), Object.keys(TRAIN_FLAGS));
  const { values } = parseFlags(rest, TRAIN_FLAGS);
  return { values, overrides };
}

/** The training config the flags resolve: presets, then config keys, then the shorthand flags. */
function trainConfig({ values, overrides }: ReturnType<typeof trainFlags>): WmrlConfig {
  const shorthand: Record<string, string> = {};
  if (values.mode) shorthand.mode = values.mode;
  if (values['no-debias']) shorthand.debias = 'false';
  if (values['no-denoise']) shorthand.denoise = 'false';
  if (values['no-refit']) shorthand.refit = 'false';
  if (values.seed) shorthand.seed = values.seed;
  if (values.backend) shorthand.backend = values.backend;
  if (values.outcome) shorthand['outcome.source'] = values.outcome;
  return resolveConfig(wmrlConfigSchema, { files: values.config ?? [], overrides: { ...overrides, ...shorthand } });
}

/**
 * The config `wmrl train argv` would run with, resolved without running it: the benchmark checks its
 * cached runs against it.
 */
export function resolveTrainConfig(argv: string[]): WmrlConfig {
  return trainConfig(trainFlags(argv));
}

export const command = {
  summary: 'post-train a policy with WMRL (imagination + anchors), or a baseline',
  async run(argv: string[]): Promise<number> {
    const parsed = trainFlags(argv);
    const { values } = parsed;
    if (values.help) {
      console.log(
        HELP +
          describeConfigSchema(wmrlConfigSchema)
            .map((l) => `  ${l}`)
            .join('\n'),
      );
      return 0;
    }
    if (!values.policy || !values.data?.length || !values.out)
      throw new UsageError(`--policy, --data and --out are required\n\n${HELP}`);
    const wmSeed = values['wm-seed'];
    if (wmSeed !== undefined && !/^\d+$/.test(wmSeed))
      throw new UsageError(`--wm-seed takes a whole number ≥ 0 (the world model's seed), got '${wmSeed}'`);
    const envFlags = envChoice(values);
    const config = trainConfig(parsed);
    const byDetector = config.outcome.source === 'detector';
    if (byDetector !== (values.detector !== undefined))
      throw new UsageError(
        byDetector
          ? '--outcome detector needs --detector DIR (a detector from wmrl success train)'
          : '--detector is used only with --outcome detector',
      );
    const onRobot = envFlags.env !== 'sim' || values.robots !== undefined || values.queue !== undefined;
    const spotChecksBy = spotCheckAnswerer(config.outcome, { onRobot });
    await useBackend(config.backend, [...POLICY_KERNELS, ...WORLD_MODEL_KERNELS]);
    // A folder given as --data and --starts (the benchmark's demonstrations) is read once.
    const read = episodeFolderReader();
    const data = await read(values.data);
    if (data.length === 0) throw new Error(`no episodes in ${values.data.join(', ')}`);
    const robot = values.robot ? loadRobotWithTasks(values.robot) : await datasetRobot(values.data);
    refuseOtherRobot('--data', data, robot.name);
    const starts = values.starts ? await read(values.starts) : undefined;
    if (starts) refuseOtherRobot('--starts', starts, robot.name);
    if (values.robots && values.queue)
      throw new UsageError('give --robots (robots driven from here) or --queue (remote workers), not both');
    const poolFile = values.robots ? readPoolFile(values.robots) : undefined;
    if (poolFile && poolFile.robots.length === 0)
      throw new UsageError(
        `${values.robots} lists no robots; add some with \`wmrl robot add --pool ${values.robots} …\``,
      );
    const operatorReset = values.reset ?? 'service';
    if (operatorReset !== 'service' && operatorReset !== 'operator')
      throw new UsageError(`--reset takes service or operator, not '${values.reset}'`);
    if (values.reset !== undefined && envFlags.env !== 'rosbridge')
      throw new UsageError(
        '--reset is for --env rosbridge (the simulator resets itself; pool robots: `wmrl robot add --reset`)',
      );
    // The operator desk: labels and resets in the viewer (`wmrl view --run`) and on this terminal when it is one.
    const needsDesk =
      config.outcome.source === 'operator' ||
      spotChecksBy === 'desk' ||
      operatorReset === 'operator' ||
      (poolFile?.robots.some((r) => r.reset === 'operator') ?? false);
    const terminal =
      needsDesk && process.stdin.isTTY
        ? new TerminalPrompt({ input: process.stdin, output: process.stderr })
        : undefined;
    if (needsDesk) mkdirSync(values.out, { recursive: true });
    const desk = needsDesk
      ? await OperatorDesk.open({ runDir: values.out, ...(terminal ? { terminal } : {}) })
      : undefined;
    if (desk)
      console.error(
        `  operator: answer in \`wmrl view --run ${values.out}\`${terminal ? ' or on this terminal' : ''} when asked`,
      );
    const env = await makeEnv(robot, {
      ...envFlags,
      ...(operatorReset === 'operator' ? { confirmReset: desk!.confirmReset } : {}),
    }).catch(async (err: unknown) => {
      await desk?.close();
      terminal?.close(); // stdin held open would keep the process alive
      throw err;
    });
    // The composition root: the anchor runner (in-process, robot pool or remote workers) and what it holds.
    // With detector outcomes the environment's runners store their record apart; the trainer reads anchors/.
    const anchorDir = byDetector ? envRecordDir(values.out) : runAnchorDir(values.out);
    const runId = basename(resolve(values.out)).replace(/[^\w.-]/g, '_');
    let queue: AnchorQueue | undefined;
    let robots: RobotPool | undefined;
    let episodes: Progress | undefined;
    let detector: SuccessDetector | undefined;
    try {
      let anchors: AnchorRunner = envAnchorRunner(env, anchorDir);
      // Loaded only when asked for: a plain run never needs the native SQLite addon or a Redis client.
      if (poolFile) {
        const { SqliteQueue } = await import('../scheduler/sqliteQueue.ts');
        mkdirSync(values.out, { recursive: true });
        queue = SqliteQueue.open(join(values.out, 'schedule.db'));
        robots = new RobotPool(poolRobots(poolFile.robots, robot, desk ? { confirmReset: desk.confirmReset } : {}));
        const onEvent = (e: SchedulerEvent) => {
          if (e.kind !== 'recovered')
            console.error(
              `  anchor ${e.id} ${e.kind === 'retry' ? 'will be retried' : 'FAILED'} ` +
                `(attempt ${e.attempts}): ${e.error}`,
            );
        };
        anchors = poolAnchorRunner({
          runId,
          queue,
          pool: robots,
          storeDir: anchorDir,
          robot,
          budget: poolFile.budget,
          maxAttempts: poolFile.maxAttempts,
          onEvent,
        });
      } else if (values.queue) {
        const { RedisQueue } = await import('../scheduler/redisQueue.ts');
        queue = await RedisQueue.open({
          url: values.queue,
          ...(values['queue-name'] ? { name: values['queue-name'] } : {}),
        });
        anchors = poolAnchorRunner({
          runId,
          queue,
          storeDir: anchorDir,
          robot,
          policySnapshots: join(values.out, 'anchor-policies'),
        });
      }
      if (byDetector) {
        detector = await loadDetector(detectorDir(values.detector!));
        anchors = await detectorAnchors({
          inner: anchors,
          detector,
          config,
          runDir: values.out,
          robot,
          resume: values.resume ?? false,
          askOperator: spotChecksBy === 'desk' ? desk!.ask : simulatedOperator,
        });
      }
      const report = await runTraining({
        config,
        // A pretrain or train output folder is as good as the checkpoint folder in it (as for run and eval).
        policyDir: policyFolder(values.policy),
        data,
        dataDirs: values.data,
        ...(starts ? { starts, startDirs: values.starts! } : {}),
        runDir: values.out,
        env,
        anchors,
        ...(desk ? { askOperator: desk.ask } : {}),
        resume: values.resume ?? false,
        worldModelConfig: {
          files: values['wm-config'] ?? [join(CONFIGS_DIR, 'wm', 'perception.yaml')],
          given: values['wm-config'] !== undefined,
          ...(wmSeed !== undefined ? { overrides: { seed: wmSeed } } : {}),
        },
        ...(values['world-model'] ? { worldModelDir: values['world-model'] } : {}),
        onProgress: (what) => console.error(`  ${what}`),
        onEpisode: (done, total) => {
          if (done === 1) episodes = new Progress('  real episodes', total);
          episodes!.update(done);
          if (done === total) episodes!.stop();
        },
        onStep: (m) =>
          console.error(
            `step ${m.step}/${config.steps}: imagined ${fmt(m.successImagined)} ` +
              `calibrated ${fmt(m.successCalibrated)} anchors ${fmt(m.successAnchors)}` +
              (m.ppi ? ` PPI ${fmt(m.ppi.estimate)} [${fmt(m.ppi.lower)}, ${fmt(m.ppi.upper)}]` : '') +
              (m.anchorRank?.auc != null ? ` rank AUC ${m.anchorRank.auc.toFixed(2)}` : '') +
              (m.imaginedWeight !== null ? ` λ ${m.imaginedWeight.toFixed(2)}` : '') +
              ` KL ${m.kl.toFixed(4)} robot ${m.robotSeconds.toFixed(0)} s`,
          ),
        onEval: (e) =>
          console.error(
            `eval at step ${e.step}: ${e.split} success ${e.successes}` +
              `/${e.episodes} (${(100 * e.successRate).toFixed(0)}%)`,
          ),
        onImaginationCheck: (c) =>
          console.error(
            `imagination check at step ${c.step}: rank ` +
              `AUC ${c.rank.auc === null ? 'n/a' : c.rank.auc.toFixed(2)} over ${c.rank.pairs} success/failure ` +
              `pairs (imagined ${fmt(c.imaginedScore)}, real ${fmt(c.realSuccess)})`,
          ),
      });
      const first = report.evaluations[0];
      const last = report.evaluations.at(-1);
      console.log(
        `trained ${report.steps} steps: held-out success ${first ? (100 * first.successRate).toFixed(0) : '?'}` +
          `% → ${last ? (100 * last.successRate).toFixed(0) : '?'}%, robot ` +
          `time ${report.robotSeconds.toFixed(0)} s (${report.realEpisodes} real ` +
          `episodes), compute ${report.computeSeconds.toFixed(0)} s`,
      );
      console.log(`policy: ${report.policyDir}\nmetrics: ${join(values.out, 'train.metrics.jsonl')}`);
      return 0;
    } catch (err) {
      if (err instanceof EpisodeAbortedError || err instanceof EpisodeRerunsExhaustedError)
        throw new Error(
          `${err.message}. The current step's episodes were not used; ` +
            `run again with --resume to continue from the last checkpoint`,
        );
      throw err;
    } finally {
      detector?.dispose();
      await robots?.close();
      await queue?.close();
      await env.close();
      await desk?.close();
      terminal?.close();
    }
  },
};

function fmt(v: number | null): string {
  return v === null ? '-' : v.toFixed(2);
}

/** Episodes of another robot than the run's, from `flag`'s folders, are a usage error. */
function refuseOtherRobot(flag: string, episodes: Episode[], robot: string): void {
  const other = episodes.find((e) => e.robot !== robot);
  if (other)
    throw new UsageError(
      `${flag} holds episodes of robot '${other.robot}' (episode ${other.id}); --robot is '${robot}'`,
    );
}
