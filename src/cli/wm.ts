/**
 * `wmrl wm train|eval|rank`: fit an ensemble world model on a dataset; evaluate
 * it on held-out episodes; check how it ranks recorded groups of real rollouts.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { describeConfigSchema, resolveConfig } from '../core/config.ts';
import { RunLog } from '../core/runLog.ts';
import type { Episode } from '../core/types.ts';
import { WorldModel } from '../worldmodel/worldModel.ts';
import { WORLD_MODEL_KERNELS, worldModelConfigSchema } from '../worldmodel/worldModelConfig.ts';
import { loadWorldModel, saveWorldModel } from '../worldmodel/worldModelFiles.ts';
import type { WorldModelEvaluation } from '../worldmodel/evaluateModel.ts';
import { inputSensitivity, type InputSensitivity } from '../eval/inputSensitivity.ts';
import { type FingerQuantiles, type ReplayRanking, replayRanking } from '../eval/replayRanking.ts';
import { worldModelEpisodes } from '../worldmodel/perceptionWorldModel.ts';
import { featuresOfModel } from '../rl/corrections/worldModelFeatures.ts';
import { loadPolicy } from '../policy/policyFiles.ts';
import { POLICY_KERNELS } from '../policy/policyConfig.ts';
import { intFlag, parseFlags, UsageError } from './args.ts';
import { configOverrides, datasetRobot, readEpisodes, useBackend } from './common.ts';
import { Progress } from './progress.ts';

const TRAIN_HELP =
  `usage: wmrl wm train --data DIR --out DIR [--config FILE]... ` +
  `[--kind state|video] [--backend B] [--key.path=value]...

  --data DIR      dataset folder (repeat for several)
  --out DIR       output folder: model/ (checkpoint), resolved config, metrics JSONL, eval.json
  --config FILE   YAML preset(s) overlaid in order, e.g. configs/wm/state.yaml
  --kind K        shorthand for --kind=K over the presets
  --backend B     auto | tensorflow-gpu | tensorflow | wasm | cpu (shorthand for --backend=B)

config keys (set with --key.path=value):
`;

export const command = {
  summary: 'train (wm train), evaluate (wm eval) or check the ranking (wm rank) of an ensemble world model',
  async run(argv: string[]): Promise<number> {
    const [sub, ...rest] = argv;
    if (sub === 'train') return train(rest);
    if (sub === 'eval') return evaluate(rest);
    if (sub === 'rank') return rank(rest);
    console.log(`usage: wmrl wm train|eval|rank [options]   (wmrl wm train --help)`);
    return sub === undefined || sub === '--help' ? 0 : 2;
  },
};

async function train(argv: string[]): Promise<number> {
  const flags = ['data', 'out', 'config', 'kind', 'backend', 'seed', 'help'];
  const { overrides, rest } = configOverrides(argv, Object.keys(worldModelConfigSchema.shape), flags);
  const { values } = parseFlags(rest, {
    data: { type: 'string', multiple: true },
    out: { type: 'string' },
    config: { type: 'string', multiple: true },
    kind: { type: 'string' },
    backend: { type: 'string' },
    seed: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    console.log(
      TRAIN_HELP +
        describeConfigSchema(worldModelConfigSchema)
          .map((l) => `  ${l}`)
          .join('\n'),
    );
    return 0;
  }
  if (!values.data?.length || !values.out) throw new UsageError(`--data and --out are required\n\n${TRAIN_HELP}`);
  const shorthand: Record<string, string> = {};
  if (values.kind) shorthand.kind = values.kind;
  if (values.backend) shorthand.backend = values.backend;
  if (values.seed) shorthand.seed = values.seed;
  const config = resolveConfig(worldModelConfigSchema, {
    files: values.config ?? [],
    overrides: { ...shorthand, ...overrides },
  });
  const modelDir = join(values.out, 'model');
  if (existsSync(modelDir) && !existsSync(join(modelDir, 'model.json')))
    throw new Error(`${modelDir} exists and is not a world-model checkpoint; refusing to overwrite it`);
  const backend = await useBackend(config.backend, WORLD_MODEL_KERNELS);
  const episodes = await readEpisodes(values.data);
  const log = new RunLog(values.out, 'wm-train', { command: 'wm train', data: values.data, backend, config });
  console.error(
    `training a ${config.kind} world model (K=${config.members}) on ${episodes.length} episodes, backend ${backend}`,
  );
  let progress: Progress | undefined;
  let stage = '';
  const stop = new AbortController();
  const onSigint = () => stop.abort();
  process.once('SIGINT', onSigint);
  try {
    const { model, report } = await WorldModel.train(episodes, config, {
      signal: stop.signal,
      onStage: (s) => (stage = s),
      onStep: (step, steps, epoch) => {
        if (step === 1) {
          progress?.stop();
          progress = new Progress(`${stage} epoch ${epoch + 1}`, steps);
        }
        progress!.update(step);
      },
      onEpoch: (s, m) => {
        progress?.stop();
        progress = undefined;
        log.log({ stage: s, ...m });
        const v = (m.validation as Record<string, number> | undefined) ?? {
          reconstruction: m.validationLoss as number,
        };
        console.error(
          `${s} epoch ${(m.epoch as number) + 1}: ` +
            `train ${(m.trainLoss as number).toFixed(4)} validation ${Object.entries(v)
              .map(([k, x]) => `${k} ${x.toFixed(4)}`)
              .join(' ')}`,
        );
      },
    });
    try {
      await saveWorldModel(model, modelDir);
      const held = episodes.filter((e) => model.meta.validationEpisodeIds.includes(e.id));
      const evaluation = model.evaluate(held.length > 0 ? held : episodes);
      log.log({ stage: 'eval', ...evaluation });
      writeFileSync(
        join(values.out, 'eval.json'),
        JSON.stringify(
          { report: { ...report, dynamics: { ...report.dynamics, history: undefined } }, evaluation },
          null,
          2,
        ) + '\n',
      );
      console.log(
        `world model saved to ${modelDir} (${report.dynamics.epochs} epochs, ` +
          `best ${report.dynamics.bestEpoch + 1}, ${report.seconds.toFixed(0)} s); ` +
          `tensors in memory: ${tf.memory().numTensors}`,
      );
      printEvaluation(evaluation, 'validation episodes');
      return stop.signal.aborted ? 130 : 0;
    } finally {
      model.dispose();
    }
  } finally {
    process.off('SIGINT', onSigint);
    progress?.stop();
  }
}

async function evaluate(argv: string[]): Promise<number> {
  const { values } = parseFlags(argv, {
    model: { type: 'string' },
    data: { type: 'string', multiple: true },
    horizon: { type: 'string' },
    all: { type: 'boolean' },
    backend: { type: 'string' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  const usage =
    'usage: wmrl wm eval --model DIR --data DIR [--horizon H] [--all] [--backend B] ' +
    '[--json]\n\nEvaluates on the episodes the model held out for validation when ' +
    '--data is its training data; on every episode otherwise (or with --all).';
  if (values.help) {
    console.log(usage);
    return 0;
  }
  if (!values.model || !values.data?.length) throw new UsageError(usage);
  await useBackend(values.backend ?? 'auto', WORLD_MODEL_KERNELS);
  const dir = existsSync(join(values.model, 'model', 'model.json')) ? join(values.model, 'model') : values.model;
  const model = await loadWorldModel(dir);
  try {
    const episodes = await readEpisodes(values.data);
    const held = values.all ? [] : episodes.filter((e) => model.meta.validationEpisodeIds.includes(e.id));
    const which = held.length > 0 ? held : episodes;
    const evaluation = model.evaluate(which, intFlag(values.horizon, 'horizon', model.config.eval.horizon, 1));
    if (values.json) console.log(JSON.stringify(evaluation, null, 2));
    else printEvaluation(evaluation, held.length > 0 ? 'held-out validation episodes' : 'all given episodes');
    return 0;
  } finally {
    model.dispose();
  }
}

const RANK_HELP =
  `usage: wmrl wm rank --model DIR --policy DIR --data ` +
  `DIR --group-size M [--horizon H[,H…]] [--backend B] [--json]

How well the perception world model of \`wmrl train\` (--model: its --world-model folder, or a
run's checkpoint/worldmodel) ranks recorded groups of real rollouts that share a start (--data:
a run's anchors/ folder; consecutive runs of M episodes are one group, so give it a run without
worldModel.warmupEpisodes), without the environment.
Within-group AUC against success of: the true progress at step H (the best an H-step progress
score can do), the model's progress after H steps replayed open loop with the recorded actions,
and its progress head one step from the real state. 0.5: no information; below: backwards.
--policy is the policy whose perception the model imagines in (the run's starting policy).
--horizon takes a list (8,16,24,32): one row per horizon, to choose the training's --horizon,
the one whose replay and head rank best (past a horizon the task's episodes end by, the model
imagines states no episode showed it); with --json, an array of one result per horizon.
Then, one step from each recorded state with the recorded action: the model's error per policy
input against the real values' spread, and how far that input's error alone moves the policy's
mean action (an input the model cannot predict that the policy leans on breaks closed-loop
imagination; in --json: inputSensitivity). For a robot with fingers, the first finger joint's opening at
step H, real and replayed, of the successes and of the failures: where the real ones part (fingers closed on
the object or on nothing) and the replayed ones do not, the model cannot tell a grasp from a miss.`;

async function rank(argv: string[]): Promise<number> {
  const { values } = parseFlags(argv, {
    model: { type: 'string' },
    policy: { type: 'string' },
    data: { type: 'string', multiple: true },
    'group-size': { type: 'string' },
    horizon: { type: 'string' },
    backend: { type: 'string' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    console.log(RANK_HELP);
    return 0;
  }
  if (!values.model || !values.policy || !values.data?.length || !values['group-size'])
    throw new UsageError(`--model, --policy, --data and --group-size are required\n\n${RANK_HELP}`);
  const groupSize = intFlag(values['group-size'], 'group-size', 8, 2);
  const horizons = (values.horizon ?? '8').split(',').map((h) => intFlag(h.trim(), 'horizon', 8, 1));
  await useBackend(values.backend ?? 'auto', [...new Set([...WORLD_MODEL_KERNELS, ...POLICY_KERNELS])]);
  const model = await loadWorldModel(values.model);
  const policy = await loadPolicy(values.policy);
  try {
    const recorded = await readEpisodes(values.data);
    if (recorded.length === 0) throw new Error(`no episodes in ${values.data.join(', ')}`);
    const endEffector = await featuresOfModel(model, policy, await datasetRobot(values.data));
    let episodes: Episode[];
    try {
      episodes = worldModelEpisodes(policy, recorded, endEffector);
    } finally {
      endEffector?.close();
    }
    const keyframes = Boolean(model.meta.perception?.keyframes);
    // The fingers' opening, where the robot has a finger joint after the arm's.
    const finger =
      endEffector && recorded.every((e) => e.qposDim > endEffector.fingerJoint) ? endEffector.fingerJoint : undefined;
    const ranked = horizons.map((h) => replayRanking(model, episodes, groupSize, h, { keyframes, finger }));
    const inputs = inputSensitivity(model, policy, episodes, Math.max(...horizons));
    const rows = ranked.map((r) => ({ ...r, inputSensitivity: inputs }));
    if (values.json) console.log(JSON.stringify(rows.length === 1 ? rows[0] : rows, null, 2));
    else {
      const f = (a: { auc: number | null }) => (a.auc === null ? '  n/a' : a.auc.toFixed(3));
      const r = rows[0]!;
      console.log(
        `within-group AUC against success, ${r.groups} groups of ${groupSize} ` +
          `(${r.truth.pairs} success/failure pairs; n/a: no group with both outcomes):`,
      );
      console.log(
        '  horizon  true progress at H  model replayed open loop H steps  model head one step from real' +
          (keyframes ? '  keyframes: real  replayed' : ''),
      );
      for (const x of rows)
        console.log(
          `  ${String(x.horizon).padStart(7)}  ${f(x.truth).padStart(18)}  ${f(x.replay).padStart(32)}  ` +
            `${f(x.head).padStart(30)}` +
            (x.keyframes ? `  ${f(x.keyframes.real).padStart(15)}  ${f(x.keyframes.replay).padStart(8)}` : ''),
        );
      if (keyframes)
        console.log(
          "  keyframes: the gripper's closeness to the demonstrations' keyframes at its own events, real and " +
            'replayed (wmrl train --score=keyframes)',
        );
      if (finger !== undefined) printFingers(rows);
      printInputSensitivity(inputs);
    }
    return 0;
  } finally {
    model.dispose();
    policy.dispose();
  }
}

function printFingers(rows: ReplayRanking[]): void {
  const q = (x: [number, number, number]) => x.map((v) => v.toFixed(2)).join('/');
  const cell = (f: FingerQuantiles | null | undefined, side: 'real' | 'replay') => (f ? q(f[side]) : 'none');
  console.log("\nthe first finger joint's opening at step H (10%/50%/90% quantiles), real and replayed open loop:");
  console.log(
    `  ${'horizon'.padStart(7)}  ${'successes: real'.padStart(16)}  ${'replayed'.padStart(14)}  ` +
      `${'failures: real'.padStart(16)}  ${'replayed'.padStart(14)}`,
  );
  const pair = (f: FingerQuantiles | null | undefined) =>
    `${cell(f, 'real').padStart(16)}  ${cell(f, 'replay').padStart(14)}`;
  for (const r of rows)
    console.log(`  ${String(r.horizon).padStart(7)}  ${pair(r.fingers?.success)}  ${pair(r.fingers?.failure)}`);
  console.log(
    '  Where the real openings of successes and failures part (fingers closed on the object or on nothing) and the\n' +
      '  replayed ones do not, the model cannot tell a grasp from a miss: imagination ranks the approach only.',
  );
}

function printInputSensitivity(r: InputSensitivity): void {
  console.log(
    `\none step from ${r.steps} real states with the recorded action: the model's error per policy input, ` +
      "and how far that input's error alone moves the policy's mean action:",
  );
  console.log(`  ${'input'.padEnd(22)}  ${'error / spread (of the real)'.padEnd(30)}  mean action moved by`);
  for (const x of r.inputs) {
    const share = x.spread > 0 ? `${Math.round((100 * x.error) / x.spread)}%` : 'n/a';
    const error = `${x.error.toFixed(3)} / ${x.spread.toFixed(3)} (${share})`;
    console.log(`  ${x.input.padEnd(22)}  ${error.padEnd(30)}  ${x.actionChange.toFixed(3)}`);
  }
  console.log(`  ${'all of them'.padEnd(22)}  ${''.padEnd(30)}  ${r.actionChangeAll.toFixed(3)}`);
  console.log(
    '  An input the model predicts no better than its spread (near 100%) that moves the action as much as the\n' +
      '  exploration noise (ppo.std, 0.1 in the quickstart) makes imagined rollouts part from the real ones in\n' +
      '  closed loop. For the gripper velocity, clone the policy with --gripperVelocity=false (docs/worldmodel.md).',
  );
}

function printEvaluation(e: WorldModelEvaluation, what: string): void {
  const f = (x: number, d = 4) => (Number.isFinite(x) ? x.toFixed(d) : 'n/a');
  console.log(`evaluation on ${e.episodes} ${what} (${e.starts} start states, horizon ${e.horizon}):`);
  console.log(
    `  one-step: state MSE ${f(e.oneStep.stateMse)} (normalised), joints ` +
      `RMSE ${f(e.oneStep.jointRmse)} rad, target object RMSE ${f(e.oneStep.objectRmse)} m`,
  );
  console.log(
    `  ${e.horizon}-step: state MSE ${f(e.hStep.stateMse)}, joints ` +
      `RMSE ${f(e.hStep.jointRmse)} rad, target object RMSE ${f(e.hStep.objectRmse)} m`,
  );
  console.log(
    `  success within ${e.horizon} steps: AUROC ${f(e.success.auroc, 3)}, ` +
      `ECE ${f(e.success.ece, 3)} (${e.success.positives} positives of ${e.success.count})`,
  );
  console.log(`  ensemble variance vs error, Spearman: ${f(e.varianceErrorSpearman, 3)}`);
}
