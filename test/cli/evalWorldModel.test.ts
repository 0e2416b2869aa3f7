/**
 * `wmrl eval --world-model` at toy scale: a real simulator, a behaviour-cloned tiny policy and a
 * tiny world model over its perception. A real episode and its imagined twin share the start and
 * the exploration noise (the pairing PPI rests on); the command writes its estimates and intervals.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { selectBackend } from '../../src/backend/selectBackend.ts';
import { resolveConfig } from '../../src/core/config.ts';
import { loadRobot } from '../../src/core/robotDescription.ts';
import type { Episode } from '../../src/core/types.ts';
import { EpisodeStore } from '../../src/data/episodeStore.ts';
import { makeSimEnv } from '../../src/envs/makeEnv.ts';
import { runEpisode } from '../../src/envs/rollout.ts';
import { episodeStart } from '../../src/envs/startEpisode.ts';
import { POLICY_KERNELS, policyCamera } from '../../src/policy/policyConfig.ts';
import { PolicyController } from '../../src/policy/policyController.ts';
import type { NoiseSpec } from '../../src/policy/rolloutNoise.ts';
import type { VlaPolicy } from '../../src/policy/vlaPolicy.ts';
import { evaluationEpisodeNoise, imagineFromStarts } from '../../src/rl/estimates/evaluationImagination.ts';
import { planEpisodes } from '../../src/tasks/episodePlan.ts';
import { ArmKinematics } from '../../sim/armKinematics.ts';
import { EndEffectorFeatures } from '../../src/worldmodel/endEffectorFeatures.ts';
import { trainPerceptionWorldModel, worldModelEpisodes } from '../../src/worldmodel/perceptionWorldModel.ts';
import type { WorldModel } from '../../src/worldmodel/worldModel.ts';
import { WORLD_MODEL_KERNELS, worldModelConfigSchema } from '../../src/worldmodel/worldModelConfig.ts';
import { saveWorldModel } from '../../src/worldmodel/worldModelFiles.ts';
import { collectMixedEpisodes } from '../helpers/simEpisodes.ts';
import { trainToyPolicy } from '../helpers/toyPolicy.ts';

const dir = mkdtempSync(join(tmpdir(), 'wmrl-eval-wm-'));
const policyDir = join(dir, 'policy');
const modelDir = join(dir, 'worldmodel');
// Labelled episodes for the start head: the mixed collection (successes and failures), other seeds than eval's.
const labelledDir = join(dir, 'labelled');
const bin = join(import.meta.dirname, '..', '..', 'bin', 'wmrl.js');
let policy: VlaPolicy;
let model: WorldModel;
let endEffector: EndEffectorFeatures;

before(async () => {
  await selectBackend('wasm', { requiredKernels: [...POLICY_KERNELS, ...WORLD_MODEL_KERNELS], log: () => {} });
  const episodes = await collectMixedEpisodes({ families: ['reach'], perKind: 4, seed: 700 });
  policy = await trainToyPolicy(episodes, policyDir);
  const store = await EpisodeStore.create(labelledDir, { robot: 'vx300' });
  for (const e of episodes) await store.append(e);
  await store.close();
  endEffector = new EndEffectorFeatures('vx300', await ArmKinematics.create(loadRobot('vx300')));
  const wmConfig = resolveConfig(worldModelConfigSchema, {
    overrides: { kind: 'state', scoreHead: 'scene', members: '2', hidden: '[32]', 'train.epochs': '1', 'train.k': '2' },
  });
  model = await trainPerceptionWorldModel(worldModelEpisodes(policy, episodes, endEffector), wmConfig, {
    endEffector: true,
  });
  await saveWorldModel(model, modelDir);
});
after(() => {
  policy?.dispose();
  model?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

/** Imagined actions at step 0 of rollout b, one per member: [K][A]. */
function firstActions(out: ReturnType<typeof imagineFromStarts>, b: number): number[][] {
  const { members: K, rollouts: B, actionDim: A } = out;
  return Array.from({ length: K }, (_, k) => Array.from(out.actions.subarray((k * B + b) * A, (k * B + b + 1) * A)));
}

function assertClose(a: ArrayLike<number>, b: ArrayLike<number>, what: string): void {
  assert.equal(a.length, b.length, what);
  for (let i = 0; i < a.length; i++) assert.ok(Math.abs(a[i]! - b[i]!) < 1e-4, `${what}: ${a[i]} vs ${b[i]} at ${i}`);
}

test(
  'pairing: the imagined twin of a real episode starts from its first observation and takes its ' +
    'first action, with the same noise (keyed by the scene seed, in any batch order) or the mean',
  async () => {
    const env = await makeSimEnv(loadRobot('vx300'), { cameras: [policyCamera(policy.config, 'scene')] });
    try {
      const plan = planEpisodes([{ family: 'reach' }], 'train', 3, 4242);
      const noise: NoiseSpec = { seed: 5, correlation: 0 };
      const run = async (controller: PolicyController) => {
        const out: Episode[] = [];
        for (const p of plan) out.push(await runEpisode(env, controller, { ...p, initialStatus: () => env.status() }));
        return out;
      };
      const sampled = await run(
        new PolicyController(policy, { deterministic: false, episodeNoise: evaluationEpisodeNoise(noise, policy) }),
      );
      const A = sampled[0]!.actionDim;
      const reversed = [...sampled].reverse().map(episodeStart);
      const twins = imagineFromStarts(policy, model, reversed, 1, { noise, imagine: { rule: 'max' }, endEffector });
      reversed.forEach((start, b) => {
        const real = sampled.find((e) => e.seed === start.seed)!;
        for (const action of firstActions(twins, b))
          assertClose(action, real.actions.subarray(0, A), `seed ${start.seed}, same noise`);
      });
      // The same start: the imagined state at step 0 is the model-layout state of the real first observation.
      const layout = worldModelEpisodes(policy, [{ ...sampled[2]!, steps: 0 }], endEffector)[0]!;
      const D = twins.stateDim;
      assertClose(
        twins.states.subarray(0, D).subarray(2 * layout.qposDim),
        layout.state.subarray(0, layout.stateDim),
        'start',
      );
      // Other noise: other actions.
      const other = imagineFromStarts(policy, model, reversed, 1, {
        noise: { seed: 6, correlation: 0 },
        imagine: { rule: 'max' },
        endEffector,
      });
      const real0 = sampled.find((e) => e.seed === reversed[0]!.seed)!;
      const gap = firstActions(other, 0)[0]!.reduce((m, v, i) => Math.max(m, Math.abs(v - real0.actions[i]!)), 0);
      assert.ok(gap > 1e-3, `another noise seed gives another first action (gap ${gap})`);
      // Mean actions: the twin takes the real episode's mean action.
      const mean = await run(new PolicyController(policy, { deterministic: true }));
      const meanTwins = imagineFromStarts(policy, model, mean.map(episodeStart), 1, {
        noise: null,
        imagine: { rule: 'max' },
        endEffector,
      });
      mean.forEach((e, b) =>
        assertClose(firstActions(meanTwins, b)[1]!, e.actions.subarray(0, A), `mean, seed ${e.seed}`),
      );
    } finally {
      await env.close();
    }
  },
);

test('eval --world-model: PPI and PPI++ beside real-only per family, written as ppi.json and predictions.jsonl', () => {
  const out = join(dir, 'eval');
  const args = ['eval', '--policy', policyDir, '--world-model', modelDir, '--task', 'reach', '--split', 'train'];
  const r = spawnSync(
    process.execPath,
    [bin, ...args, '--real', '3', '--imagined', '4', '--stochastic', '--out', out, '--backend', 'wasm', '--json'],
    { encoding: 'utf8' },
  );
  assert.equal(r.status, 0, r.stderr);
  const printed = JSON.parse(r.stdout) as { success: { family: string }[]; ppi: unknown[] };
  assert.deepEqual(
    printed.success.map((s) => s.family),
    ['reach', 'all'],
  );
  const saved = JSON.parse(readFileSync(join(out, 'ppi.json'), 'utf8')) as {
    settings: { ppi: { real: number; imagined: number; score: string; noise: NoiseSpec | null } };
    rows: {
      family: string;
      real: { episodes: number; rate: number; low: number; high: number };
      imagined: number;
      ppi: { estimate: number; lower: number; upper: number };
      tuned: { estimate: number; lower: number; upper: number; lambda: number };
    }[];
  };
  assert.deepEqual(saved.rows, printed.ppi);
  assert.equal(saved.settings.ppi.real, 3);
  assert.equal(saved.settings.ppi.imagined, 4);
  assert.equal(saved.settings.ppi.score, 'max');
  assert.deepEqual(saved.settings.ppi.noise, { seed: 900_000, correlation: 0 });
  for (const row of saved.rows) {
    assert.equal(row.real.episodes, 3);
    assert.equal(row.imagined, 4);
    for (const e of [row.ppi, row.tuned])
      assert.ok(
        e.lower >= 0 && e.lower <= e.estimate && e.estimate <= e.upper && e.upper <= 1,
        `${row.family}: ${JSON.stringify(e)}`,
      );
    assert.ok(row.tuned.lambda >= 0 && row.tuned.lambda <= 1);
  }
  const lines = readFileSync(join(out, 'predictions.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { paired: boolean; outcome: number | null; predicted: number; seed: number });
  assert.equal(lines.length, 7);
  assert.deepEqual(
    lines.map((l) => l.paired),
    [true, true, true, false, false, false, false],
  );
  assert.ok(lines.every((l) => l.predicted >= 0 && l.predicted <= 1 && (l.outcome === null) === !l.paired));
  assert.equal(new Set(lines.map((l) => l.seed)).size, 7, 'further starts never repeat a real start');
  // The resolved config and the JSONL log, like every command's; the further starts are not stored as episodes.
  const runs = readdirSync(join(out, 'runs'));
  const config = JSON.parse(readFileSync(join(out, 'runs', runs.find((f) => f.endsWith('.config.json'))!), 'utf8'));
  assert.equal(config.ppi.worldModel, modelDir);
  const metrics = readFileSync(join(out, 'runs', runs.find((f) => f.endsWith('.metrics.jsonl'))!), 'utf8');
  assert.equal(metrics.match(/"kind":"prediction"/g)?.length, 7);
  const info = spawnSync(process.execPath, [bin, 'info', out, '--json'], { encoding: 'utf8' });
  assert.equal(JSON.parse(info.stdout).episodes, 3);
  // The PPI flags need a world model.
  const stray = spawnSync(process.execPath, [bin, 'eval', '--policy', policyDir, '--real', '3'], { encoding: 'utf8' });
  assert.equal(stray.status, 2);
  assert.match(stray.stderr, /--real goes with --world-model or --start-head/);
});

test(
  'eval --start-head: the prediction from labelled episodes of similar starts; refused where the labelled ' +
    'data holds an episode the evaluation runs, lacks a family, or comes with a world model',
  () => {
    const run = (...args: string[]) =>
      spawnSync(process.execPath, [bin, 'eval', '--policy', policyDir, '--backend', 'wasm', ...args], {
        encoding: 'utf8',
      });
    const out = join(dir, 'eval-head');
    const common = ['--task', 'reach', '--split', 'train', '--real', '3', '--imagined', '4'];
    const r = run(...common, '--start-head', labelledDir, '--out', out, '--json');
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /predicting 7 starts with start heads on 12 labelled episodes/);
    const saved = JSON.parse(readFileSync(join(out, 'ppi.json'), 'utf8'));
    assert.equal(saved.settings.ppi.predictor, 'start-head');
    assert.deepEqual(saved.settings.ppi.startHead, [labelledDir]);
    assert.deepEqual(saved.rows, JSON.parse(r.stdout).ppi);
    const lines = readFileSync(join(out, 'predictions.jsonl'), 'utf8').trim().split('\n');
    assert.equal(lines.length, 7);
    for (const l of lines.map((x) => JSON.parse(x) as { predicted: number }))
      assert.ok(l.predicted >= 0 && l.predicted <= 1, `prediction ${l.predicted}`);
    // The evaluation just run, as labelled data for the same seeds: its own episodes.
    const own = run(...common, '--start-head', out, '--out', join(dir, 'eval-own'));
    assert.equal(own.status, 2);
    assert.match(own.stderr, /holds an episode this evaluation runs \(seed 900000, /);
    const pick = run('--task', 'pick', '--split', 'train', '--real', '2', '--start-head', labelledDir);
    assert.equal(pick.status, 2);
    assert.match(pick.stderr, /holds no pick episodes to predict with/);
    const both = run(...common, '--start-head', labelledDir, '--world-model', modelDir);
    assert.equal(both.status, 2);
    assert.match(both.stderr, /give --world-model or --start-head/);
    const scored = run(...common, '--start-head', labelledDir, '--score', 'final');
    assert.equal(scored.status, 2);
    assert.match(scored.stderr, /--score: how to imagine, which --start-head does not do/);
  },
);
