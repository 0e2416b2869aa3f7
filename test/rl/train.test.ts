/**
 * `wmrl train` end to end at toy scale: a real simulator, a behaviour-cloned policy, a world
 * model over its perception. Kill-and-resume (a real SIGKILL of the CLI) must give the same
 * policy as an uninterrupted run.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { selectBackend } from '../../src/backend/selectBackend.ts';
import { resolveConfig } from '../../src/core/config.ts';
import { ROBOTS_DIR } from '../../src/core/robotDescription.ts';
import { readManifest } from '../../src/data/datasetManifest.ts';
import { EpisodeStore } from '../../src/data/episodeStore.ts';
import { POLICY_KERNELS, policyConfigSchema } from '../../src/policy/policyConfig.ts';
import { pretrainPolicy } from '../../src/policy/pretrain.ts';
import { savePolicy, loadPolicy } from '../../src/policy/policyFiles.ts';
import { collectMixedEpisodes } from '../helpers/simEpisodes.ts';

const dir = mkdtempSync(join(tmpdir(), 'wmrl-train-'));
const data = join(dir, 'data');
const policyDir = join(dir, 'bc', 'policy');
/** The same episodes without privileged state, as a robot over rosbridge records them. */
const robotData = join(dir, 'robot-data');
/** How many of the data's episodes succeeded. */
let dataSuccesses = 0;
const bin = join(import.meta.dirname, '..', '..', 'bin', 'wmrl.js');

before(async () => {
  await selectBackend('wasm', { requiredKernels: POLICY_KERNELS, log: () => {} });
  const episodes = await collectMixedEpisodes({ families: ['reach'], perKind: 8, seed: 500 });
  dataSuccesses = episodes.filter((e) => e.success).length;
  const store = await EpisodeStore.create(data, { robot: 'vx300' });
  for (const e of episodes) await store.append(e);
  await store.close();
  // The same episodes as a robot over rosbridge records them: no privileged state (no goal).
  const robotStore = await EpisodeStore.create(robotData, { robot: 'vx300' });
  for (const e of episodes) await robotStore.append({ ...e, state: new Float32Array(0), stateDim: 0 });
  await robotStore.close();
  const config = resolveConfig(policyConfigSchema, {
    overrides: {
      features: '16',
      trunk: '[32]',
      'encoder.epochs': '1',
      'bc.epochs': '2',
      'bc.shiftAugment': 'false',
      'bc.maxNoise': '0.2',
    },
  });
  const { policy } = await pretrainPolicy(episodes, config);
  await savePolicy(policy, policyDir);
  policy.dispose();
  writeFileSync(join(dir, 'wm.yaml'), 'kind: state\nmembers: 2\nhidden: [32]\ntrain: { epochs: 1, k: 2 }\n');
  writeFileSync(
    join(dir, 'wm-scene.yaml'),
    'kind: state\nscoreHead: scene\nmembers: 2\nhidden: [32]\ntrain: { epochs: 1, k: 2 }\n',
  );
});
after(() =>
  process.env.WMRL_KEEP_TEST_DIR ? console.error(`kept ${dir}`) : rmSync(dir, { recursive: true, force: true }),
);

// A fixed λ: the toy's 2-rollout anchor groups are too little evidence for
// trust to weigh imagination in, and the resume must cover imagined samples.
const TOY = [
  '--imaginedWeight=0.5',
  '--steps=3',
  '--groups=2',
  '--rolloutsPerGroup=2',
  '--anchorFraction=0.5',
  '--horizon=4',
  '--eval.episodes=2',
  '--eval.every=3',
  '--eval.tasks=reach',
  '--worldModel.refitEvery=2',
  '--worldModel.refitEpochs=1',
  '--isotonic.minPairs=2',
  '--isotonic.refitEvery=2',
];
const WM = ['--wm-config', join(dir, 'wm.yaml')];

/** What a world-model checkpoint's manifest says of the model's state. */
interface SavedModel {
  extra: {
    dims: { state: number };
    perception?: {
      endEffector: boolean;
      goal?: string;
      localiser?: unknown;
      object?: string;
      objectLocaliser?: unknown;
    };
  };
}

/** One toy step of `train` that trains a world model into `model` with `flag`; fails the test if it fails. */
function trainOneStepInto(
  run: string,
  model: string,
  ...flags: string[]
): { r: ReturnType<typeof cli>; saved: SavedModel } {
  const r = cli([...runArgs(run), ...WM, ...TOY, '--steps=1', '--eval.every=5', ...flags, '--world-model', model]);
  assert.equal(r.status, 0, r.stderr);
  return { r, saved: JSON.parse(readFileSync(join(model, 'model.json'), 'utf8')) as SavedModel };
}

/** The arguments every run here shares: the policy, the data, its folder and the wasm backend. */
function runArgs(out: string): string[] {
  return ['--policy', policyDir, '--data', data, '--out', out, '--backend', 'wasm'];
}

/** The metrics records of one kind ('step', 'eval', …) a run logged. */
function records(run: string, kind: string): Record<string, any>[] {
  return readFileSync(join(run, 'train.metrics.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, any>)
    .filter((m) => m.kind === kind);
}

function cli(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [bin, 'train', ...args], { encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

async function weights(run: string): Promise<Float32Array[]> {
  const p = await loadPolicy(join(run, 'policy'));
  try {
    return p.rlVariables().map((v) => v.dataSync() as Float32Array);
  } finally {
    p.dispose();
  }
}

test(
  'train: a killed run resumes exactly where it stopped (same policy as an uninterrupted ' +
    'run); a resume with another config is refused, one with more steps continues',
  async () => {
    const whole = join(dir, 'whole');
    const r = cli([...runArgs(whole), ...WM, ...TOY]);
    assert.equal(r.status, 0, r.stderr);
    const metrics = readFileSync(join(whole, 'train.metrics.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const steps = metrics.filter((m) => m.kind === 'step');
    assert.deepEqual(
      steps.map((m) => m.step),
      [1, 2, 3],
    );
    for (const key of [
      'successImagined',
      'successAnchors',
      'anchorRank',
      'imaginedWeight',
      'trustAuc',
      'ppi',
      'debiasMap',
      'anchorWeight',
      'ensembleVariance',
      'kl',
      'robotSeconds',
      'computeSeconds',
      'phaseCpuSeconds',
    ])
      assert.ok(key in steps[0]!, `metrics lack ${key}`);
    const cpu = steps[0]!.phaseCpuSeconds as Record<string, number>;
    assert.ok(Object.values(cpu).every((v) => v >= 0) && cpu.update! > 0, JSON.stringify(cpu));
    assert.ok((steps[2]!.robotSeconds as number) > 0);
    // Nothing held over from step to step (the checkpoint's optimizer save once left a scalar a step).
    assert.deepEqual(
      steps.map((m) => m.numTensors),
      steps.map(() => steps[0]!.numTensors),
      'tensors alive after each step',
    );
    assert.ok(
      steps.every((m) => m.imaginedWeight === 0.5 && m.trustAuc === null),
      'a fixed λ, no trust measured',
    );
    const evals = metrics.filter((m) => m.kind === 'eval');
    assert.equal(evals.length, 2, 'evaluations at the start and the end');
    for (const e of evals)
      assert.deepEqual(Object.keys(e.perFamily as object), ['reach'], 'only the families asked for are evaluated');

    // The same run, SIGKILLed once its second step is logged, then resumed.
    const killed = join(dir, 'killed');
    await new Promise<void>((resolve, reject) => {
      const child = spawn(process.execPath, [bin, 'train', ...runArgs(killed), ...WM, ...TOY], {
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let err = '';
      child.stderr.on('data', (d: Buffer) => {
        err += d.toString();
        if (/step 2\/3/.test(err)) child.kill('SIGKILL');
      });
      child.on('exit', (code, signal) =>
        signal === 'SIGKILL' ? resolve() : reject(new Error(`not killed (exit ${code}): ${err}`)),
      );
    });
    assert.ok(!existsSync(join(killed, 'policy')), 'the killed run did not finish');
    const again = cli([...runArgs(killed), ...WM, ...TOY]);
    assert.notEqual(again.status, 0, 'a second run into the same folder without --resume is refused');
    assert.match(again.stderr, /--resume/);
    const resumed = cli([...runArgs(killed), '--resume', ...WM, ...TOY]);
    assert.equal(resumed.status, 0, resumed.stderr);
    const a = await weights(whole);
    const b = await weights(killed);
    assert.equal(a.length, b.length);
    a.forEach((w, i) => assert.deepEqual(Array.from(b[i]!), Array.from(w), `variable ${i} differs after resume`));
    const resumedSteps = records(killed, 'step');
    assert.deepEqual(
      resumedSteps.map((m) => m.step),
      [1, 2, 3],
      'each step logged exactly once',
    );
    const report = JSON.parse(readFileSync(join(killed, 'report.json'), 'utf8')) as {
      robotSeconds: number;
      realEpisodes: number;
    };
    const wholeReport = JSON.parse(readFileSync(join(whole, 'report.json'), 'utf8')) as {
      robotSeconds: number;
      realEpisodes: number;
    };
    assert.equal(report.realEpisodes, wholeReport.realEpisodes, 'no anchor episode counted twice');
    assert.ok(Math.abs(report.robotSeconds - wholeReport.robotSeconds) < 1e-9);
    // --resume with another config: refused with the differing keys, the run untouched.
    const configBefore = readFileSync(join(killed, 'train.config.json'), 'utf8');
    const changed = cli([
      ...runArgs(killed),
      '--resume',
      ...WM,
      ...TOY,
      '--ppo.learningRate=0.003',
      '--isotonic.orderSlope=0',
    ]);
    assert.notEqual(changed.status, 0);
    assert.match(
      changed.stderr,
      new RegExp(
        /--resume with a config that differs from the run's .*/.source +
          /isotonic\.orderSlope \(run: 0\.001, now: 0\), ppo\.learningRate \(run: 0\.0001, now: 0\.003\)/.source,
      ),
    );
    assert.equal(
      readFileSync(join(killed, 'train.config.json'), 'utf8'),
      configBefore,
      'the recorded config is unchanged',
    );
    // A run recorded before a key existed resumes: the key takes its default, the behaviour it ran with.
    const recordedFile = join(killed, 'train.config.json');
    const recorded = JSON.parse(readFileSync(recordedFile, 'utf8')) as {
      config: { ppiWindow?: number; worldModel: { replayEpisodes?: number } };
    };
    delete recorded.config.ppiWindow;
    delete recorded.config.worldModel.replayEpisodes;
    writeFileSync(recordedFile, JSON.stringify(recorded));
    // More steps is what a resume may change: applied and recorded.
    const longer = cli([...runArgs(killed), '--resume', ...WM, ...TOY, '--steps=4']);
    assert.equal(longer.status, 0, longer.stderr);
    assert.equal(
      (JSON.parse(readFileSync(join(killed, 'train.config.json'), 'utf8')) as { config: { steps: number } }).config
        .steps,
      4,
    );
    const longerSteps = records(killed, 'step');
    assert.deepEqual(
      longerSteps.map((m) => m.step),
      [1, 2, 3, 4],
    );
    assert.ok(tf.memory().numTensors < 1000);
  },
);

test(
  'train --tasks: groups start from the selected tasks only; ' +
    'a task the data lacks, or an unknown one, is a clear error',
  async () => {
    const red = join(dir, 'red');
    const r = cli([...runArgs(red), '--mode', 'real', '--tasks=reach:red', ...TOY, '--steps=1', '--eval.every=5']);
    assert.equal(r.status, 0, r.stderr);
    const colours = new Set<string>();
    for await (const e of (await EpisodeStore.open(join(red, 'anchors'))).episodes())
      colours.add(`${e.task.family}:${e.task.color}`);
    assert.deepEqual([...colours], ['reach:red']);
    const lacking = cli([...runArgs(join(dir, 'pick')), '--mode', 'real', '--tasks=pick', ...TOY]);
    assert.notEqual(lacking.status, 0);
    assert.match(lacking.stderr, /no train-split episodes of tasks 'pick'/);
    const unknown = cli([...runArgs(join(dir, 'fly')), '--mode', 'real', '--tasks=fly', ...TOY]);
    assert.notEqual(unknown.status, 0);
    assert.match(unknown.stderr, /unknown task family 'fly'/);
  },
);

test('train --starts: group starts from those folders alone, recorded with the data; empty refused', async () => {
  const startsDir = join(dir, 'starts');
  const store = await EpisodeStore.create(startsDir, { robot: 'vx300' });
  const chosen = new Set<number>();
  for await (const e of (await EpisodeStore.open(data)).episodes())
    if (e.task.split === 'train' && chosen.size < 2 && !chosen.has(e.seed)) {
      chosen.add(e.seed);
      await store.append(e);
    }
  assert.equal(chosen.size, 2);
  const run = join(dir, 'starts-run');
  const r = cli([...runArgs(run), '--starts', startsDir, '--mode', 'real', ...TOY, '--steps=2', '--eval.every=5']);
  assert.equal(r.status, 0, r.stderr);
  const seeds: number[] = [];
  for await (const e of (await EpisodeStore.open(join(run, 'anchors'))).episodes()) seeds.push(e.seed);
  assert.ok(seeds.length >= 4, `${seeds.length} anchor episodes`);
  for (const seed of seeds) assert.ok(chosen.has(seed), `anchor seed ${seed} is one of the starts' ${[...chosen]}`);
  const config = JSON.parse(readFileSync(join(run, 'train.config.json'), 'utf8')) as {
    data: string[];
    starts: string[];
    datasets: { data: string[]; starts: string[] };
  };
  assert.deepEqual(config.data, [data]);
  assert.deepEqual(config.starts, [startsDir], 'the run records the folders its starts came from');
  const idOf = async (d: string) => (await readManifest(d))!.datasetId;
  assert.deepEqual(config.datasets, { data: [await idOf(data)], starts: [await idOf(startsDir)] }, 'and their ids');
  // A resume names the datasets by id: the starts' folder moved is the same dataset; another one is refused.
  const moved = join(dir, 'starts-moved');
  renameSync(startsDir, moved);
  const again = [...runArgs(run), '--mode', 'real', ...TOY, '--steps=2', '--eval.every=5', '--resume'];
  const same = cli([...again, '--starts', moved]);
  assert.equal(same.status, 0, same.stderr);
  const other = cli([...again, '--starts', data]);
  assert.notEqual(other.status, 0, 'a resume from other starts is refused');
  assert.match(other.stderr, /--resume with other datasets than the run's .*--starts \(run: [0-9a-f-]+; now: /);
  const emptyDir = join(dir, 'no-starts');
  await EpisodeStore.create(emptyDir, { robot: 'vx300' });
  const empty = cli([...runArgs(join(dir, 'empty-starts')), '--starts', emptyDir, '--mode', 'real', ...TOY]);
  assert.notEqual(empty.status, 0);
  assert.match(empty.stderr, /no-starts holds no complete episodes/);
});

test(
  'train --worldModel.warmupEpisodes: the starting policy runs first from distinct starts, ' +
    'charged, stored with the anchors; the imagination check is measurement only',
  async () => {
    const warm = join(dir, 'warm');
    const r = cli([
      ...runArgs(warm),
      ...WM,
      ...TOY,
      '--imaginedWeight=trust',
      '--steps=1',
      '--eval.every=5',
      '--worldModel.warmupEpisodes=3',
      '--worldModel.warmupRefitEpochs=4',
      '--score=progress',
      '--terminateAt=0.5',
      '--imaginationCheckGroups=2',
    ]);
    assert.equal(r.status, 0, r.stderr);
    const lines = readFileSync(join(warm, 'train.metrics.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, any>);
    const steps = lines.filter((m) => m.kind === 'step');
    // The imagination check: at the start and at the (final) evaluation, 2 groups × 2 rollouts imagined and executed.
    const checks = lines.filter((m) => m.kind === 'imagination-check');
    assert.deepEqual(
      checks.map((c) => c.step),
      [0, 1],
    );
    for (const c of checks) {
      assert.equal(c.groups, 2);
      assert.ok(
        c.realSuccess >= 0 && c.realSuccess <= 1 && c.imaginedScore >= 0 && c.imaginedScore <= 1,
        JSON.stringify(c),
      );
      assert.ok(c.rank.auc === null || (c.rank.auc >= 0 && c.rank.auc <= 1), JSON.stringify(c.rank));
    }
    assert.match(r.stderr, /imagination check at step 0: rank AUC/);
    assert.equal(steps.length, 1);
    assert.equal(steps[0]!.worldModelWarmupEpisodes, 3);
    assert.equal(steps[0]!.worldModelWarmupRefitEpochs, 4, 'the warm-up refit runs its own epochs');
    // Default imaginedWeight 'trust': one group of 2 paired rollouts against 16 prior pairs.
    assert.ok(
      steps[0]!.trustAuc >= 0.5 - 1 / 17 && steps[0]!.trustAuc <= 0.5 + 1 / 17,
      `trust AUC ${steps[0]!.trustAuc}`,
    );
    assert.equal(steps[0]!.imaginedWeight, Math.min(1, Math.max(0, 2 * steps[0]!.trustAuc - 1)));
    assert.equal(steps[0]!.realRollouts, 2, 'one anchor group of 2 rollouts besides the warm-up');
    const stored: { seed: number; steps: number; controlHz: number }[] = [];
    for await (const e of (await EpisodeStore.open(join(warm, 'anchors'))).episodes()) stored.push(e);
    assert.equal(stored.length, 5, '3 warm-up + 2 anchor episodes, all kept for refits');
    assert.equal(new Set(stored.slice(0, 3).map((e) => e.seed)).size, 3, 'warm-up episodes start from distinct starts');
    const charged = stored.reduce((s, e) => s + e.steps / e.controlHz, 0);
    assert.ok(
      Math.abs(steps[0]!.robotSeconds - charged) < 1e-6,
      `robot time ${steps[0]!.robotSeconds} charges every stored episode (${charged})`,
    );
    const warmupCharged = stored.slice(0, 3).reduce((s, e) => s + e.steps / e.controlHz, 0);
    assert.ok(Math.abs(steps[0]!.worldModelWarmupRobotSeconds - warmupCharged) < 1e-6, 'the warm-up robot time');
    const config = JSON.parse(readFileSync(join(warm, 'train.config.json'), 'utf8')) as {
      data: string[];
      config: { score: string; terminateAt: number };
    };
    assert.deepEqual(config.data, [data], 'the run records the data folders it read');
    assert.equal(config.config.score, 'progress');
    assert.equal(config.config.terminateAt, 0.5);
  },
);

test('train --worldModel.warmupStd: warm-up episodes explore at that noise; training goes on at its own', async () => {
  const firstActions = async (run: string) => {
    const out: number[][] = [];
    for await (const e of (await EpisodeStore.open(join(run, 'anchors'))).episodes())
      out.push([...e.actions.subarray(0, e.actionDim)]);
    return out;
  };
  const runs = [join(dir, 'warm-own-std'), join(dir, 'warm-wide-std')];
  for (const [k, run] of runs.entries()) {
    const wide = k === 1 ? ['--worldModel.warmupStd=0.8'] : [];
    const r = cli([
      ...runArgs(run),
      ...WM,
      ...TOY,
      '--steps=1',
      '--eval.every=5',
      '--worldModel.warmupEpisodes=3',
      ...wide,
    ]);
    assert.equal(r.status, 0, r.stderr);
  }
  const [own, wide] = [await firstActions(runs[0]!), await firstActions(runs[1]!)];
  assert.equal(own.length, 5, '3 warm-up + 2 anchor episodes');
  assert.equal(wide.length, 5);
  // The same seeds draw the same noise: the warm-up's first actions differ by the wider std alone (0.8 against 0.2).
  for (let i = 0; i < 3; i++) assert.notDeepEqual(wide[i], own[i], `warm-up episode ${i} explores wider`);
  // The step's anchors run after the warm-up with the policy's own std, restored: the same actions as without it.
  for (let i = 3; i < 5; i++) assert.deepEqual(wide[i], own[i], `anchor episode ${i - 3} at the policy's own std`);
});

test(
  'train --branch.fraction: from step 2 imagined groups also start from the ' +
    "anchors' real states; the PPI uses the start groups; wm rank reads the run",
  async () => {
    const run = join(dir, 'branch');
    const r = cli([
      ...runArgs(run),
      ...WM,
      ...TOY,
      '--steps=2',
      '--groups=4',
      '--anchorFraction=0.25',
      '--branch.fraction=0.34',
      '--eval.every=5',
    ]);
    assert.equal(r.status, 0, r.stderr);
    const steps = records(run, 'step');
    // 4 groups: 1 anchor, 3 imagined; step 1 has no anchor episode to branch from yet.
    assert.deepEqual(
      steps.map((s) => s.branchedGroups),
      [0, 1],
    );
    assert.deepEqual(
      steps.map((s) => s.imaginedRollouts),
      [6, 6],
    );
    assert.ok(
      steps[1]!.ppi && steps[1]!.ppi.lower <= steps[1]!.ppi.estimate && steps[1]!.ppi.estimate <= steps[1]!.ppi.upper,
      JSON.stringify(steps[1]!.ppi),
    );
    // The replay-ranking diagnostic on this run's anchors (2 steps × 1 group of 2).
    const rank = spawnSync(
      process.execPath,
      [
        bin,
        'wm',
        'rank',
        '--model',
        join(run, 'checkpoint', 'worldmodel'),
        '--policy',
        policyDir,
        '--data',
        join(run, 'anchors'),
        '--group-size',
        '2',
        '--horizon',
        '4',
        '--backend',
        'wasm',
        '--json',
      ],
      { encoding: 'utf8' },
    );
    assert.equal(rank.status, 0, rank.stderr);
    const out = JSON.parse(rank.stdout) as {
      groups: number;
      horizon: number;
      truth: { auc: number | null; pairs: number };
      replay: { auc: number | null };
      head: { auc: number | null };
      fingers?: { success: unknown; failure: unknown };
    };
    assert.equal(out.groups, 2);
    // The robot has fingers: their opening at H by outcome (a side with no episode of it is null).
    assert.ok(out.fingers && 'success' in out.fingers && 'failure' in out.fingers, JSON.stringify(out.fingers));
    assert.equal(out.horizon, 4);
    for (const k of ['truth', 'replay', 'head'] as const)
      assert.ok(out[k].auc === null || (out[k].auc >= 0 && out[k].auc <= 1), `${k}: ${JSON.stringify(out[k])}`);
    // A list of horizons: one row each, the table a user picks --horizon from.
    const rankArgs = [bin, 'wm', 'rank', '--model', join(run, 'checkpoint', 'worldmodel')];
    const sweep = spawnSync(
      process.execPath,
      [...rankArgs, '--policy', policyDir, '--data', join(run, 'anchors'), '--group-size', '2', '--horizon', '2,4'],
      { encoding: 'utf8' },
    );
    assert.equal(sweep.status, 0, sweep.stderr);
    assert.match(sweep.stdout, /^\s+2\s+\S+\s+\S+\s+\S+$/m, sweep.stdout);
    assert.match(sweep.stdout, /^\s+4\s+\S+\s+\S+\s+\S+$/m, sweep.stdout);
    assert.match(sweep.stdout, /first finger joint's opening at step H/, sweep.stdout);
    // Which policy input the model mispredicts, and how far that moves the policy's action.
    const inputRow = /^ {2}gripper velocity\s+\d+\.\d{3} \/ \d+\.\d{3} \(\d+%\)\s+\d+\.\d{3}$/m;
    assert.match(sweep.stdout, inputRow, sweep.stdout);
    const missing = spawnSync(process.execPath, [bin, 'wm', 'rank', '--model', join(run, 'checkpoint', 'worldmodel')], {
      encoding: 'utf8',
    });
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /--model, --policy, --data and --group-size are required/);
  },
);

test(
  'train --worldModel.endEffector (the default): the world model state carries the ' +
    'gripper position; wm rank infers it; a run without it refuses that model clearly',
  async () => {
    const run = join(dir, 'ee');
    const model = join(dir, 'ee-model');
    const { saved } = trainOneStepInto(run, model, '--worldModel.endEffector=true');
    assert.deepEqual(saved.extra.perception, { endEffector: true }, 'the checkpoint records its layout');
    const policy = await loadPolicy(policyDir);
    const base = policy.meta.proprioDim + policy.latentDim;
    policy.dispose();
    assert.equal(saved.extra.dims.state, base + 3, 'proprio, latent, then end-effector xyz');
    const steps = records(run, 'step');
    assert.equal(steps.length, 1);
    assert.ok(Number.isFinite(steps[0]!.kl) && steps[0]!.imaginedRollouts === 2, JSON.stringify(steps[0]));
    const rank = spawnSync(
      process.execPath,
      [
        bin,
        'wm',
        'rank',
        '--model',
        model,
        '--policy',
        policyDir,
        '--data',
        join(run, 'anchors'),
        '--group-size',
        '2',
        '--backend',
        'wasm',
        '--json',
      ],
      { encoding: 'utf8' },
    );
    assert.equal(rank.status, 0, rank.stderr);
    assert.equal((JSON.parse(rank.stdout) as { groups: number }).groups, 1);
    const without = cli([
      ...runArgs(join(dir, 'ee-without')),
      ...TOY,
      '--steps=1',
      '--world-model',
      model,
      '--worldModel.endEffector=false',
    ]);
    assert.notEqual(without.status, 0);
    assert.match(without.stderr, /trained with worldModel\.endEffector: true/);
    // Asked for a value head on a folder whose model learned task progress: refused, not silently used as it is.
    writeFileSync(join(dir, 'wm-outcome.yaml'), `extends: ${join(dir, 'wm.yaml')}\nprogressLabel: outcome\n`);
    const other = cli([
      ...runArgs(join(dir, 'ee-outcome')),
      '--wm-config',
      join(dir, 'wm-outcome.yaml'),
      ...TOY,
      '--steps=1',
      '--world-model',
      model,
    ]);
    assert.notEqual(other.status, 0);
    assert.match(other.stderr, /holds a world model with progressLabel "task" \(asked: "outcome"\): train one into /);
  },
);

test('train --wm-seed: runs of other seeds train the same world model, so a shared one is not one run’s', () => {
  const models = ['1', '2'].map((seed) => {
    const model = join(dir, `wm-seed-model-${seed}`);
    trainOneStepInto(join(dir, `wm-seed-${seed}`), model, '--seed', seed, '--wm-seed', '7');
    return model;
  });
  // The same weights, and the same manifest but for when each was written.
  const manifest = (m: string) => {
    const { createdAt, ...rest } = JSON.parse(readFileSync(join(m, 'model.json'), 'utf8')) as Record<string, unknown>;
    assert.equal(typeof createdAt, 'string');
    return rest as { config: { seed: number } };
  };
  assert.deepEqual(readdirSync(models[0]!).sort(), ['model.json', 'weights.bin']);
  assert.deepEqual(readdirSync(models[1]!).sort(), ['model.json', 'weights.bin']);
  const weightsOf = (m: string) => readFileSync(join(m, 'weights.bin'));
  assert.ok(weightsOf(models[0]!).equals(weightsOf(models[1]!)));
  assert.deepEqual(manifest(models[0]!), manifest(models[1]!));
  assert.equal(manifest(models[0]!).config.seed, 7);
  // Without it the run's seed trains the model: another model.
  const own = join(dir, 'wm-seed-model-own');
  trainOneStepInto(join(dir, 'wm-seed-own'), own, '--seed', '1');
  assert.ok(!weightsOf(own).equals(weightsOf(models[0]!)));
  const bad = cli([...runArgs(join(dir, 'wm-seed-bad')), '--wm-seed', 'one']);
  assert.notEqual(bad.status, 0);
  assert.match(bad.stderr, /--wm-seed takes a whole number ≥ 0 \(the world model's seed\), got 'one'/);
});

test(
  "train --worldModel.goal=localised: a localiser fitted on the data (a robot's: on its gripper's final " +
    'positions), the state ending with the goal relative to the gripper, both in the checkpoint; a run that ' +
    'leaves it out, or the end effector, is refused, and so is the privileged goal on a robot',
  async () => {
    const run = join(dir, 'goal');
    const model = join(dir, 'goal-model');
    const { r, saved } = trainOneStepInto(run, model, '--worldModel.goal=localised');
    assert.match(
      r.stderr + r.stdout,
      /goal localiser fitted \(goals: \d+ from the simulator's state\): reach \d+\.\d cm RMSE over \d+ episodes/,
    );
    const { localiser, ...layout } = saved.extra.perception!;
    assert.deepEqual(layout, { endEffector: true, goal: 'localised' });
    const fitted = (localiser as { families: Record<string, { episodes: number }> }).families;
    assert.deepEqual(Object.keys(fitted), ['reach'], 'the localiser is saved with the model');
    assert.equal(records(run, 'goal-localiser').length, 1, 'and its fit logged');
    // A robot's episodes record no goal: by default (goalFrom auto) the goals are where the successful
    // episodes' gripper ended, those alone.
    const gripper = join(dir, 'goal-gripper');
    const fromRobot = cli([
      ...runArgs(gripper).map((a) => (a === data ? robotData : a)),
      ...WM,
      ...TOY,
      '--steps=1',
      '--eval.every=5',
      '--worldModel.goal=localised',
    ]);
    assert.equal(fromRobot.status, 0, fromRobot.stderr);
    assert.match(fromRobot.stderr + fromRobot.stdout, /goals: \d+ from the gripper's final position\)/);
    const [fit] = records(gripper, 'goal-localiser');
    assert.deepEqual(fit!.goalsFrom, { state: 0, gripper: dataSuccesses });
    assert.equal(fit!.families.reach.episodes, dataSuccesses);
    const policy = await loadPolicy(policyDir);
    const base = policy.meta.proprioDim + policy.latentDim;
    policy.dispose();
    assert.equal(saved.extra.dims.state, base + 6, 'proprio, latent, end-effector xyz, then goal − end effector');
    assert.equal(records(run, 'step').length, 1);
    // The same model without the switch: refused, saying which switch to pass.
    const without = cli([...runArgs(join(dir, 'goal-without')), ...TOY, '--steps=1', '--world-model', model]);
    assert.notEqual(without.status, 0);
    assert.match(without.stderr, /has the localised goal in its state.*--worldModel\.goal=localised/);
    const noEffector = cli([
      ...runArgs(join(dir, 'goal-no-ee')),
      ...TOY,
      '--steps=1',
      '--worldModel.goal=localised',
      '--worldModel.endEffector=false',
    ]);
    assert.notEqual(noEffector.status, 0);
    assert.match(noEffector.stderr, /goal=localised appends the goal relative to the end effector: it needs/);
    // The simulator's true goal on a robot: refused before connecting, naming what to use instead.
    const onRobot = cli([
      ...runArgs(join(dir, 'goal-robot')),
      ...TOY,
      '--env',
      'rosbridge',
      '--url',
      'ws://127.0.0.1:9',
      '--worldModel.goal=privileged',
    ]);
    assert.equal(onRobot.status, 2, onRobot.stderr);
    assert.match(onRobot.stderr, /privileged reads the simulator's true goal.*use --worldModel\.goal=localised/);
  },
);

test(
  "train --worldModel.object: the state ends with the block relative to the gripper and its lift, the simulator's " +
    '(privileged) or localised from each step (the localiser fitted on the data, saved and logged), recorded in ' +
    'the checkpoint; a run that leaves it out is refused, and so is the privileged object on a robot',
  async () => {
    const model = join(dir, 'object-model');
    const { saved } = trainOneStepInto(join(dir, 'object'), model, '--worldModel.object=privileged');
    assert.deepEqual(saved.extra.perception, { endEffector: true, object: 'privileged' });
    const policy = await loadPolicy(policyDir);
    const base = policy.meta.proprioDim + policy.latentDim;
    policy.dispose();
    assert.equal(saved.extra.dims.state, base + 7, 'proprio, latent, end-effector xyz, block − gripper, lift');
    const without = cli([...runArgs(join(dir, 'object-without')), ...TOY, '--steps=1', '--world-model', model]);
    assert.notEqual(without.status, 0);
    assert.match(without.stderr, /has the privileged object in its state.*--worldModel\.object=privileged/);
    // Localised: fitted on the data's recorded object positions, saved with the model, its fit logged.
    const localisedModel = join(dir, 'object-localised-model');
    const run = join(dir, 'object-localised');
    const { r, saved: localised } = trainOneStepInto(run, localisedModel, '--worldModel.object=localised');
    assert.match(r.stderr + r.stdout, /object localiser fitted: reach \d+\.\d cm RMSE over \d+ episodes/);
    const { objectLocaliser, ...layout } = localised.extra.perception!;
    assert.deepEqual(layout, { endEffector: true, object: 'localised' });
    assert.deepEqual(Object.keys((objectLocaliser as { families: object }).families), ['reach']);
    assert.equal(records(run, 'object-localiser').length, 1);
    assert.equal(localised.extra.dims.state, base + 7);
    // wm rank on a model told the object: the fingers' closing steps by the block's distance, one row per distance.
    const rank = spawnSync(
      process.execPath,
      [
        ...[bin, 'wm', 'rank', '--model', localisedModel, '--policy', policyDir, '--data', join(run, 'anchors')],
        ...['--group-size', '2', '--horizon', '2', '--backend', 'wasm', '--json'],
      ],
      { encoding: 'utf8' },
    );
    assert.equal(rank.status, 0, rank.stderr);
    const { closing } = JSON.parse(rank.stdout) as { closing?: { from: number; steps: number }[] };
    assert.deepEqual(
      closing?.map((c) => c.from),
      [0, 0.02, 0.04, 0.08],
      rank.stdout,
    );
    const onRobot = cli([
      ...runArgs(join(dir, 'object-robot')),
      ...TOY,
      '--env',
      'rosbridge',
      '--url',
      'ws://127.0.0.1:9',
      '--worldModel.object=privileged',
    ]);
    assert.equal(onRobot.status, 2, onRobot.stderr);
    assert.match(onRobot.stderr, /object=privileged reads the simulator's object state, which a robot does not/);
  },
);

test(
  'train --worldModel.scoreRefitEvery: between full refits the scene score head ' +
    'alone is refitted on the data and the anchors (repeated anchorRepeat times)',
  async () => {
    const run = join(dir, 'score-refit');
    const r = cli([
      ...runArgs(run),
      '--wm-config',
      join(dir, 'wm-scene.yaml'),
      ...TOY,
      '--eval.every=5',
      '--worldModel.scoreRefitEvery=1',
      '--worldModel.anchorRepeat=3',
    ]);
    assert.equal(r.status, 0, r.stderr);
    const steps = records(run, 'step');
    // refitEvery 2: a full refit at step 2, the score head alone at steps 1 and 3.
    assert.deepEqual(
      steps.map((s) => s.worldModelRefit),
      ['score head', 'full', 'score head'],
    );
    const config = JSON.parse(readFileSync(join(run, 'train.config.json'), 'utf8')) as {
      config: { worldModel: Record<string, unknown> };
    };
    assert.equal(config.config.worldModel.anchorRepeat, 3);
    // A joint-head world model has no head to refit alone: refused before any work, saying why.
    const joint = join(dir, 'score-refit-joint');
    const j = cli([...runArgs(joint), ...WM, ...TOY, '--steps=2', '--eval.every=5', '--worldModel.scoreRefitEvery=1']);
    assert.notEqual(j.status, 0);
    assert.match(
      j.stderr,
      new RegExp(
        /worldModel\.scoreRefitEvery refits the scene score head alone, but the world-model config scores /.source +
          /with the joint head: use a world model with scoreHead: scene/.source,
      ),
    );
    assert.ok(!existsSync(join(joint, 'checkpoint')), 'nothing trained before the refusal');
  },
);

test('train --robot: a description other than the data robot is refused before any work', () => {
  const arm = join(dir, 'other_arm');
  cpSync(join(ROBOTS_DIR, 'vx300'), arm, { recursive: true });
  const yaml = join(arm, 'robot.yaml');
  writeFileSync(yaml, readFileSync(yaml, 'utf8').replace(/^name: vx300$/m, 'name: other_arm'));
  const out = join(dir, 'other-arm-run');
  const r = cli([...runArgs(out), ...TOY, '--robot', yaml]);
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /--data holds episodes of robot 'vx300' \(episode [^)]+\); --robot is 'other_arm'/);
  assert.ok(!existsSync(out), 'nothing written');
});

test('train --anchorEvery=2: anchors run on steps 1 and 3 only; step 2 imagines every group, no robot time', () => {
  const out = join(dir, 'anchor-every');
  const r = cli([...runArgs(out), ...WM, ...TOY, '--anchorEvery=2']);
  assert.equal(r.status, 0, r.stderr);
  const steps = records(out, 'step');
  assert.deepEqual(
    steps.map((m) => [m.anchorGroups, m.imaginedRollouts, m.anchorInclusionProbability]),
    [
      [1, 2, 0.5],
      [0, 4, 0],
      [1, 2, 0.5],
    ],
  );
  assert.ok(steps[0]!.robotSeconds > 0);
  assert.equal(steps[1]!.robotSeconds, steps[0]!.robotSeconds, 'no robot time on a step without anchors');
  assert.ok(steps[2]!.robotSeconds > steps[1]!.robotSeconds);
  assert.ok(steps.every((m) => Number.isFinite(m.kl)));
});

test('train --realEpisodeSteps=3: executed episodes end by step 3, charged so; evaluation runs on', async () => {
  const out = join(dir, 'episode-steps');
  const r = cli([...runArgs(out), ...WM, ...TOY, '--realEpisodeSteps=3']);
  assert.equal(r.status, 0, r.stderr);
  const lengths: number[] = [];
  for await (const e of (await EpisodeStore.open(join(out, 'anchors'))).episodes()) {
    assert.equal(e.status, 'complete');
    lengths.push(e.steps);
  }
  const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as { realEpisodes: number };
  assert.equal(lengths.length, report.realEpisodes);
  assert.ok(lengths.length >= 6, `${lengths.length} anchors: one group of 2 on each of 3 steps`);
  assert.ok(
    lengths.every((n) => n >= 1 && n <= 3),
    `anchor lengths ${lengths}`,
  );
  const charged = records(out, 'step').at(-1)!.robotSeconds as number;
  assert.ok(Math.abs(charged - lengths.reduce((s, n) => s + n, 0) / 10) < 1e-9, `charged ${charged} s`);
  // The held-out evaluation is not cut: reach takes more than 3 steps to succeed, and a failure runs 40.
  const evals = records(out, 'eval');
  assert.ok(evals.length > 0);
  for (const m of evals) assert.ok(m.robotSeconds > (3 * m.episodes) / 10, `evaluation ${m.robotSeconds} s`);
});

test('train --imagineFromStep=3: steps 1–2 learn from their anchors alone, which still fit the corrections', () => {
  const out = join(dir, 'imagine-from');
  const r = cli([...runArgs(out), ...WM, ...TOY, '--imagineFromStep=3']);
  assert.equal(r.status, 0, r.stderr);
  const steps = records(out, 'step');
  // TOY draws 2 groups of 2 rollouts, one an anchor; refits every 2 steps; the map needs 2 pairs.
  assert.deepEqual(
    steps.map((m) => [m.step, m.imaginedRollouts, m.imaginedWeight, m.realRollouts, m.worldModelRefit]),
    [
      [1, 0, null, 2, false],
      [2, 0, null, 2, 'full'],
      [3, 2, 0.5, 2, false],
    ],
  );
  // Without imagined samples in the update the anchors' advantages are not reweighed against them.
  assert.deepEqual(
    steps.slice(0, 2).map((m) => m.anchorWeight),
    [1, 1],
  );
  assert.ok(steps[2]!.kl > 0, 'imagined samples train from step 3');
  assert.deepEqual(
    steps.map((m) => m.calibrationPairs),
    [2, 4, 6],
    'the anchors are imagined too, so their pairs fit the correction from step 1',
  );
  const refused = cli([...runArgs(join(dir, 'imagine-from-real')), ...TOY, '--mode=real', '--imagineFromStep=3']);
  assert.notEqual(refused.status, 0);
  assert.match(refused.stderr, /imagineFromStep=3 delays imagination: it needs mode 'wmrl' \(mode 'real'\)/);
});

test('train --anchorUpdateFirst: each step updates on its anchors alone, then on every sample', () => {
  const args = [...WM, ...TOY, '--steps=2'];
  const plain = cli([...runArgs(join(dir, 'anchors-first-plain')), ...args]);
  assert.equal(plain.status, 0, plain.stderr);
  const out = join(dir, 'anchors-first');
  const r = cli([...runArgs(out), ...args, '--anchorUpdateFirst=true']);
  assert.equal(r.status, 0, r.stderr);
  const base = records(join(dir, 'anchors-first-plain'), 'step');
  const steps = records(out, 'step');
  assert.deepEqual(
    base.map((m) => m.anchorsAloneKl),
    [null, null],
  );
  // An anchor group whose rollouts all end alike has no advantage to learn from (the toy's groups
  // are 2 rollouts), so only some steps move: the last one here does.
  assert.ok(
    steps.every((m) => typeof m.anchorsAloneKl === 'number') && steps[1]!.anchorsAloneKl > 0,
    JSON.stringify(steps.map((m) => m.anchorsAloneKl)),
  );
  assert.notEqual(steps[1]!.kl, base[1]!.kl, 'the joint update starts from the moved policy');
  assert.deepEqual(
    steps.map((m) => [m.imaginedRollouts, m.realRollouts]),
    base.map((m) => [m.imaginedRollouts, m.realRollouts]),
    'the same groups are imagined and executed',
  );
  const refused = cli([...runArgs(join(dir, 'anchors-first-real')), ...TOY, '--mode=real', '--anchorUpdateFirst=true']);
  assert.notEqual(refused.status, 0);
  assert.match(refused.stderr, /anchorUpdateFirst .* needs mode 'wmrl' \(mode 'real'\)/);
});

test('train --imaginedKlLimit: past the limit nothing more is imagined or refitted, after a resume too', () => {
  const out = join(dir, 'kl-limit');
  // A limit any update passes: step 1 trains on imagined samples, then the anchors alone.
  const r = cli([...runArgs(out), ...WM, ...TOY, '--steps=2', '--imaginedKlLimit=1e-12']);
  assert.equal(r.status, 0, r.stderr);
  const longer = cli([...runArgs(out), '--resume', ...WM, ...TOY, '--steps=3', '--imaginedKlLimit=1e-12']);
  assert.equal(longer.status, 0, longer.stderr);
  const steps = records(out, 'step');
  assert.ok(steps[0]!.kl > 1e-12 && steps[0]!.imaginedWeight > 0, JSON.stringify(steps[0]));
  assert.deepEqual(
    steps.map((m) => [m.step, m.imaginedRollouts, m.imaginedWeight, m.imaginationStoppedAt, m.worldModelRefit]),
    [
      [1, 2, 0.5, 1, false],
      [2, 0, null, 1, false],
      [3, 0, null, 1, false],
    ],
  );
  assert.ok(
    steps.every((m) => m.realRollouts === 2 && m.kl > 0),
    'the anchors keep training',
  );
  assert.ok(
    steps.every((m) => m.imaginationKlBase === null),
    'without a restart the limit counts from the clone',
  );
  const state = JSON.parse(readFileSync(join(out, 'checkpoint', 'state.json'), 'utf8')) as {
    imaginationStoppedAt?: number;
    imaginationKlBase?: number;
  };
  assert.equal(state.imaginationStoppedAt, 1);
  assert.equal(state.imaginationKlBase, undefined);
});

test(
  'train --realGroupsAfterStop: after the stop every drawn group runs for real, updated in --minibatchesAfterStop ' +
    'minibatches at --learningRateAfterStop; without a limit, refused',
  () => {
    const out = join(dir, 'kl-limit-real');
    const after = [
      '--imaginedKlLimit=1e-12',
      '--realGroupsAfterStop=3',
      '--minibatchesAfterStop=1',
      '--learningRateAfterStop=2.5e-5',
    ];
    const r = cli([...runArgs(out), ...WM, ...TOY, '--steps=2', ...after]);
    assert.equal(r.status, 0, r.stderr);
    const steps = records(out, 'step');
    // Before the stop ppo.minibatches (4) an epoch, at least; after it one, over 2 epochs.
    assert.ok(steps[0]!.updates >= 8, `step 1: ${steps[0]!.updates} updates`);
    assert.equal(steps[1]!.updates, 2);
    // The step that stopped imagination updated at ppo.learningRate (1e-4), the next at the rate after the stop.
    assert.deepEqual(
      steps.map((m) => m.learningRate),
      [1e-4, 2.5e-5],
    );
    // TOY draws 2 groups of 2 rollouts, one an anchor; after the stop, 3 groups, all executed.
    assert.deepEqual(
      steps.map((m) => [m.step, m.imaginedRollouts, m.realRollouts, m.anchorGroups, m.imaginationStoppedAt]),
      [
        [1, 2, 2, 1, 1],
        [2, 0, 6, 3, 1],
      ],
    );
    const refused = cli([...runArgs(join(dir, 'real-after-no-limit')), ...WM, ...TOY, '--realGroupsAfterStop=3']);
    assert.notEqual(refused.status, 0);
    assert.match(refused.stderr, /realGroupsAfterStop=3 .*needs mode 'wmrl' and imaginedKlLimit/);
    const alone = cli([...runArgs(join(dir, 'minibatches-no-limit')), ...WM, ...TOY, '--minibatchesAfterStop=1']);
    assert.notEqual(alone.status, 0);
    assert.match(alone.stderr, /minibatchesAfterStop=1 .*needs mode 'wmrl' and imaginedKlLimit/);
    const rate = cli([...runArgs(join(dir, 'rate-no-limit')), ...WM, ...TOY, '--learningRateAfterStop=2.5e-5']);
    assert.notEqual(rate.status, 0);
    assert.match(rate.stderr, /learningRateAfterStop=0.000025 .*needs mode 'wmrl' and imaginedKlLimit/);
  },
);

test('train --imaginationRestartAfter: after its real steps imagination resumes, the model refitted on them', () => {
  const out = join(dir, 'kl-limit-restart');
  const args = ['--imaginedKlLimit=1e-12', '--realGroupsAfterStop=3', '--imaginationRestartAfter=1'];
  const r = cli([...runArgs(out), ...WM, ...TOY, '--steps=3', '--worldModel.refitEvery=1', ...args]);
  assert.equal(r.status, 0, r.stderr);
  const steps = records(out, 'step');
  // Step 1 imagines and stops; step 2 runs its 3 groups for real and refits; step 3 imagines again.
  assert.deepEqual(
    steps.map((m) => [m.step, m.imaginedRollouts > 0, m.realRollouts, m.worldModelRefit]),
    [
      [1, true, 2, 'full'],
      [2, false, 6, 'full'],
      [3, true, 2, 'full'],
    ],
  );
  // Its limit counts from step 2's KL, where the policy stood when imagination resumed: step 3 stops again
  // only if its update went further from the clone than that.
  assert.equal(steps[1]!.imaginationKlBase, steps[1]!.kl);
  const further = steps[2]!.kl > steps[1]!.kl + 1e-12;
  assert.equal(steps[2]!.imaginationStoppedAt, further ? 3 : null);
  assert.equal(steps[2]!.imaginationKlBase, further ? steps[2]!.kl : steps[1]!.kl);
  const refused = cli([...runArgs(join(dir, 'restart-no-limit')), ...WM, ...TOY, '--imaginationRestartAfter=2']);
  assert.notEqual(refused.status, 0);
  assert.match(refused.stderr, /imaginationRestartAfter=2 .*needs mode 'wmrl' and imaginedKlLimit/);
});

test('train --debiasMap=contextual: anchor pairs fit the contextual correction, which the checkpoint keeps', () => {
  const out = join(dir, 'contextual');
  const r = cli([
    ...[...runArgs(out), ...WM, ...TOY],
    ...['--debiasMap=contextual', '--contextual.minPairs=2', '--contextual.ridge=0.1'],
  ]);
  assert.equal(r.status, 0, r.stderr);
  const state = JSON.parse(readFileSync(join(out, 'checkpoint', 'state.json'), 'utf8')) as {
    contextual: { scores: number[]; weights: number[]; width: number };
  };
  // 3 steps × 1 anchor group × 2 rollouts; features: the task context and the mean action.
  assert.equal(state.contextual.scores.length, 6);
  assert.ok(state.contextual.width > 3, `width ${state.contextual.width}`);
  assert.equal(
    state.contextual.weights.length,
    state.contextual.width + 2,
    'fitted: a weight per feature, r̂, intercept',
  );
  const steps = records(out, 'step');
  assert.ok(steps.every((m) => Number.isFinite(m.kl) && m.successCalibrated >= 0 && m.successCalibrated <= 1));
  assert.deepEqual(steps.at(-1)!.contextual, { pairs: 6, weights: state.contextual.weights }, 'logged per step');
});

test(
  'train --outcome detector: anchor outcomes from the success detector, recorded on the stored ' +
    "episodes; spot checks answered by the simulated operator; the environment's record kept apart",
  async () => {
    assert.equal(cli([...runArgs(join(dir, 'no-detector')), '--outcome', 'detector']).status, 2);
    const detector = join(dir, 'detector');
    const fit = spawnSync(
      process.execPath,
      [bin, 'success', 'train', '--data', data, '--out', detector, '--backend', 'wasm', '--train.epochs=2'],
      { encoding: 'utf8' },
    );
    assert.equal(fit.status, 0, fit.stderr);
    const out = join(dir, 'by-detector');
    const r = cli([
      ...[...runArgs(out), ...WM, ...TOY],
      ...['--outcome', 'detector', '--detector', detector, '--outcome.spotChecks=0.5'],
    ]);
    assert.equal(r.status, 0, r.stderr);
    const read = async (store: string) => {
      const episodes = [];
      for await (const e of (await EpisodeStore.open(join(out, store))).episodes()) episodes.push(e);
      return episodes;
    };
    const seen = await read('anchors');
    const env = new Map((await read('anchors-env')).map((e) => [e.id, e]));
    // 3 steps × 1 anchor group × 2 rollouts.
    assert.equal(seen.length, 6);
    assert.equal(env.size, 6);
    for (const e of seen) {
      const truth = env.get(e.id)!;
      assert.ok(truth && truth.outcome === undefined, "the environment's record has its own outcome");
      assert.ok(e.outcome && e.outcome.score >= 0 && e.outcome.score <= 1, 'the detector score is recorded');
      assert.equal(e.state.length, 0, 'no privileged state for the trainer');
      if (e.outcome.source === 'operator') assert.equal(e.success, truth.success, "the operator's answer");
      else assert.equal(e.success, e.outcome.corrected >= e.outcome.threshold, "the detector's decision");
    }
    assert.ok(
      seen.some((e) => e.outcome?.source === 'operator'),
      'some episodes were spot-checked',
    );
    const reports = readFileSync(join(out, 'detector.metrics.jsonl'), 'utf8').trim().split('\n');
    assert.equal(reports.length, 3, 'one report per anchor request');
  },
);

test(
  'train --ppiCheckEpisodes: each evaluation checks the PPI interval against real episodes of the same ' +
    'policy, with the recency-weighted window it used; the check is measurement and changes no update',
  async () => {
    const args = (out: string, check: string[]) => [...runArgs(out), ...WM, ...TOY, '--eval.every=1', ...check];
    const checked = join(dir, 'ppi-check');
    const plain = join(dir, 'ppi-plain');
    const r = cli(args(checked, ['--ppiCheckEpisodes=6']));
    assert.equal(r.status, 0, r.stderr);
    assert.equal(cli(args(plain, [])).status, 0);
    const checks = records(checked, 'ppi-check');
    assert.deepEqual(
      checks.map((c) => c.step),
      [1, 2, 3],
      'one check after each evaluation',
    );
    for (const c of checks) {
      assert.ok(c.lower <= c.estimate && c.estimate <= c.upper, `interval [${c.lower}, ${c.upper}] ∌ ${c.estimate}`);
      assert.equal(c.episodes, 6);
      assert.ok(Number.isInteger(c.truth * 6), `truth ${c.truth}: a share of 6 episodes`);
      assert.equal(c.covered, c.lower <= c.truth && c.truth <= c.upper);
      const { imagined, predicted, outcomes, weights, freshGroups } = c.samples;
      assert.equal(imagined.length, 2, 'one mean per imagined group (--groups=2)');
      // The window holds one anchor group per step so far; the check adds 2 fresh groups at weight 1.
      // Half-life 2 steps: the step's own group weighs 1, the one a step older 2^-½, two older ½.
      const ages = Array.from({ length: c.step }, (_, i) => c.step - 1 - i);
      assert.equal(freshGroups, 2);
      assert.deepEqual(
        weights.map((w: number) => w.toFixed(4)),
        [...ages.map((a) => (0.5 ** (a / 2)).toFixed(4)), '1.0000', '1.0000'],
      );
      assert.equal(predicted.length, weights.length);
      assert.equal(outcomes.length, weights.length);
      assert.ok(
        outcomes.every((o: number) => [0, 0.5, 1].includes(o)),
        'mean outcomes of 2-rollout groups',
      );
    }
    // Not training: the same policy, counters and robot time as the run without checks.
    assert.deepEqual(await weights(checked), await weights(plain));
    // Everything the checkpoint keeps but the episodes' ids (UUIDs) and the wall-clock compute.
    const state = (run: string) => {
      const { anchorEpisodeIds, computeSeconds, ...rest } = JSON.parse(
        readFileSync(join(run, 'checkpoint', 'state.json'), 'utf8'),
      );
      assert.equal(anchorEpisodeIds.length, 6, '3 steps × 1 anchor group × 2 rollouts stored');
      assert.ok(computeSeconds > 0);
      return rest;
    };
    assert.deepEqual(state(checked), state(plain));
    const report = (run: string) => JSON.parse(readFileSync(join(run, 'report.json'), 'utf8'));
    assert.equal(report(checked).robotSeconds, report(plain).robotSeconds);
    assert.equal(report(checked).realEpisodes, report(plain).realEpisodes);
  },
);

test('train --imaginationTrainsGripper=false: imagined rows leave the gripper (the last dim) untrained', async () => {
  // wm-only: every row of the step is imagined. The log-stds start at ppo.std's; with the gripper left out of
  // the imagined log-probabilities and no KL term (whose gradient at the clone's std is 0 only up to rounding,
  // which Adam's normalised step would make a step of its own) its log-std gets no gradient at all.
  const runOne = async (name: string, ...flags: string[]) => {
    const run = join(dir, name);
    const r = cli([...runArgs(run), ...WM, ...TOY, '--mode=wm-only', '--steps=1', '--eval.every=5', ...flags]);
    assert.equal(r.status, 0, r.stderr);
    // The policy's log-stds: the last of its RL variables.
    return Array.from((await weights(run)).at(-1)!);
  };
  const start = Math.fround(Math.log(0.1));
  const held = await runOne('gripper-held', '--ppo.std=0.1', '--ppo.klCoef=0', '--imaginationTrainsGripper=false');
  const trained = await runOne('gripper-trained', '--ppo.std=0.1', '--ppo.klCoef=0');
  assert.equal(held.at(-1), start, `the gripper's log-std moved: ${held}`);
  assert.ok(
    held.slice(0, -1).some((v) => v !== start),
    `the arm's log-stds did not move: ${held}`,
  );
  assert.notEqual(trained.at(-1), start, `without the switch the gripper's log-std stays: ${trained}`);
});
