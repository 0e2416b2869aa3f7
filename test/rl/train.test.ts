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
import { KEYFRAME_DIM } from '../../src/worldmodel/keyframes.ts';

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
});
after(() =>
  process.env.WMRL_KEEP_TEST_DIR ? console.error(`kept ${dir}`) : rmSync(dir, { recursive: true, force: true }),
);

// A toy run: λ 0.5 (the resume must cover imagined samples weighed other than 1), anchors every step, no warm-up (the
// anchors each test counts are the steps'; the warm-up has a test of its own).
const TOY = [
  '--imaginedWeight=0.5',
  '--anchorEvery=1',
  '--worldModel.warmupEpisodes=0',
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
      keyframes?: unknown;
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
      steps.every((m) => m.imaginedWeight === 0.5),
      'λ as configured',
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
      '--steps=1',
      '--eval.every=5',
      '--worldModel.warmupEpisodes=3',
      '--score=progress',
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
      config: { score: string; worldModel: { warmupEpisodes: number } };
    };
    assert.deepEqual(config.data, [data], 'the run records the data folders it read');
    assert.equal(config.config.score, 'progress');
    assert.equal(config.config.worldModel.warmupEpisodes, 3);
  },
);

test(
  'train --worldModel.endEffector (the default): the world model state carries the ' +
    'gripper position; wm rank infers it; a run without it refuses that model clearly',
  async () => {
    const run = join(dir, 'ee');
    const model = join(dir, 'ee-model');
    // The gripper alone (no keyframes, scored by the progress head).
    const gripperOnly = ['--worldModel.keyframes=false', '--score=progress'];
    const { saved } = trainOneStepInto(run, model, '--worldModel.endEffector=true', ...gripperOnly);
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
      ...gripperOnly,
      '--steps=1',
      '--world-model',
      model,
      '--worldModel.endEffector=false',
    ]);
    assert.notEqual(without.status, 0);
    assert.match(without.stderr, /trained with worldModel\.endEffector: true/);
    // Asked for another world model (3 members) on a folder whose model has 2: refused, not silently used as it is.
    writeFileSync(join(dir, 'wm-3.yaml'), `extends: ${join(dir, 'wm.yaml')}\nmembers: 3\n`);
    const other = cli([
      ...runArgs(join(dir, 'ee-members')),
      '--wm-config',
      join(dir, 'wm-3.yaml'),
      ...TOY,
      ...gripperOnly,
      '--steps=1',
      '--world-model',
      model,
    ]);
    assert.notEqual(other.status, 0);
    assert.match(other.stderr, /holds a world model with members 2 \(asked: 3\): train one into /);
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
  "train with keyframes (the default): a localiser fitted on the data's successful episodes (their gripper at their " +
    "events: a robot's recordings are enough), the state ending with the keyframes, both in the checkpoint; a run " +
    'that leaves them out, or the end effector, is refused, and so is a key since removed',
  async () => {
    const run = join(dir, 'keyframes');
    const model = join(dir, 'keyframes-model');
    const { r, saved } = trainOneStepInto(run, model);
    assert.match(
      r.stderr + r.stdout,
      /keyframes fitted \(RMSE over successful episodes\) .*end: reach \d+\.\d cm over \d+/,
    );
    const { keyframes, ...layout } = saved.extra.perception!;
    assert.deepEqual(layout, { endEffector: true });
    const events = (keyframes as { events: Record<string, { families: Record<string, { episodes: number }> }> }).events;
    assert.equal(events.end!.families.reach!.episodes, dataSuccesses, 'every successful episode shows its end');
    const [fit] = records(run, 'keyframe-localiser');
    assert.equal(fit!.events.end.reach.episodes, dataSuccesses, 'and its fit logged');
    const policy = await loadPolicy(policyDir);
    const base = policy.meta.proprioDim + policy.latentDim;
    policy.dispose();
    assert.equal(saved.extra.dims.state, base + 3 + KEYFRAME_DIM, 'proprio, latent, end-effector xyz, keyframes');
    assert.equal(records(run, 'step').length, 1);
    // A robot's episodes (no privileged state) give the same keyframes: joints, actions and outcomes are enough.
    const robot = join(dir, 'keyframes-robot');
    const fromRobot = cli([...runArgs(robot).map((a) => (a === data ? robotData : a)), ...WM, ...TOY, '--steps=1']);
    assert.equal(fromRobot.status, 0, fromRobot.stderr);
    assert.deepEqual(records(robot, 'keyframe-localiser')[0]!.events, fit!.events);
    // The same model without them: refused, saying which switch to pass.
    const without = cli([
      ...runArgs(join(dir, 'keyframes-without')),
      ...TOY,
      ...['--steps=1', '--worldModel.keyframes=false', '--score=progress', '--world-model', model],
    ]);
    assert.notEqual(without.status, 0);
    assert.match(without.stderr, /has the keyframes in its state.*--worldModel\.keyframes=true/);
    const noEffector = cli([...runArgs(join(dir, 'keyframes-no-ee')), ...TOY, '--worldModel.endEffector=false']);
    assert.notEqual(noEffector.status, 0);
    assert.match(noEffector.stderr, /worldModel\.keyframes appends the keyframes relative to the end effector/);
    const noKeyframes = cli([...runArgs(join(dir, 'keyframes-none')), ...TOY, '--worldModel.keyframes=false']);
    assert.notEqual(noKeyframes.status, 0);
    assert.match(noKeyframes.stderr, /score=keyframes .*needs worldModel\.keyframes/);
    // wm rank on it: the keyframe score's rank agreement, real and replayed.
    const rank = spawnSync(
      process.execPath,
      [
        ...[bin, 'wm', 'rank', '--model', model, '--policy', policyDir, '--data', join(run, 'anchors')],
        ...['--group-size', '2', '--horizon', '2', '--backend', 'wasm', '--json'],
      ],
      { encoding: 'utf8' },
    );
    assert.equal(rank.status, 0, rank.stderr);
    assert.ok((JSON.parse(rank.stdout) as { keyframes?: object }).keyframes, rank.stdout);
    // A key since removed (the goal the keyframes replace) is refused.
    const removed = cli([...runArgs(join(dir, 'goal-removed')), ...TOY, '--worldModel.goal=localised']);
    assert.equal(removed.status, 1, removed.stderr);
    assert.match(removed.stderr, /goal/);
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
