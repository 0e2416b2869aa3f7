/**
 * Post-training learns on manipulation too: pick up one instruction's block. A short run from a
 * mediocre behaviour-cloned policy (60 demonstrations, 25 epochs) raises the real, deterministic
 * success rate on the same 30 evaluation episodes above its start. The run is the one preset of every family
 * (configs/train/quickstart.yaml: imagined rollouts scored against the demonstrations' keyframes) at test scale:
 * 8 warm-up episodes, then 4 steps of 4 groups, 2 of them anchors on every other step.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { selectBackend } from '../../src/backend/selectBackend.ts';
import { resolveConfig } from '../../src/core/config.ts';
import { loadRobot } from '../../src/core/robotDescription.ts';
import type { Episode } from '../../src/core/types.ts';
import { SimEnv } from '../../src/envs/simEnv.ts';
import { POLICY_KERNELS, policyConfigSchema } from '../../src/policy/policyConfig.ts';
import { savePolicy } from '../../src/policy/policyFiles.ts';
import { pretrainPolicy } from '../../src/policy/pretrain.ts';
import { runAnchorDir, runTraining } from '../../src/rl/run/runTraining.ts';
import { envAnchorRunner } from '../../src/rl/run/anchorRunner.ts';
import { wmrlConfigSchema } from '../../src/rl/config/wmrlConfig.ts';
import { collectExpertEpisodes } from '../helpers/simEpisodes.ts';

const TASK = 'pick:red:block';
const robot = loadRobot('vx300');
const dir = mkdtempSync(join(tmpdir(), 'wmrl-learn-pick-'));
const policyDir = join(dir, 'bc');
let demos: Episode[] = [];
let noisy: Episode[] = [];

before(async () => {
  await selectBackend('wasm', { requiredKernels: POLICY_KERNELS, log: () => {} });
  demos = await collectExpertEpisodes(TASK, 60, 0.1, 5000);
  noisy = await collectExpertEpisodes(TASK, 10, 0.8, 7000);
  // Few demonstrations and epochs on purpose: a clone that picks about half the time leaves RL room to show
  // (40 demonstrations picked none, 120 with 30 epochs 29 of 30).
  const config = resolveConfig(policyConfigSchema, {
    overrides: { 'bc.epochs': '25', 'bc.patience': '100', 'bc.batchSize': '32' },
  });
  const { policy } = await pretrainPolicy(demos, config);
  await savePolicy(policy, policyDir);
  policy.dispose();
});
after(() => rmSync(dir, { recursive: true, force: true }));

test('train on pick (the one preset): a short run raises deterministic success above the BC start', async (t) => {
  const steps = 4;
  const config = resolveConfig(wmrlConfigSchema, {
    files: ['configs/train/quickstart.yaml'],
    overrides: {
      steps: String(steps),
      'worldModel.warmupEpisodes': '8',
      groups: '4',
      anchorFraction: '0.5',
      'eval.episodes': '30',
      'eval.every': String(steps),
      'eval.split': 'train',
      'eval.tasks': TASK,
      tasks: 'pick',
      backend: 'wasm',
    },
  });
  const sim = await SimEnv.create({ robot });
  const metrics: { imaginedWeight: number | null }[] = [];
  try {
    const report = await runTraining({
      config,
      policyDir,
      data: [...demos, ...noisy],
      runDir: join(dir, 'wmrl'),
      env: sim,
      anchors: envAnchorRunner(sim, runAnchorDir(join(dir, 'wmrl'))),
      resume: false,
      worldModelConfig: { files: [], overrides: { members: '3', hidden: '[64]', 'train.epochs': '4' } },
      onStep: (m) => metrics.push(m),
    });
    const start = report.evaluations[0]!;
    const end = report.evaluations.at(-1)!;
    const lambda = metrics.map((m) => m.imaginedWeight ?? 0);
    t.diagnostic(
      `pick: success on ${end.episodes} episodes ${start.successRate} → ${end.successRate}, ` +
        `${report.realEpisodes} real episodes, ${report.robotSeconds.toFixed(0)} robot-s, ` +
        `λ per step ${lambda.map((l) => l.toFixed(2))}`,
    );
    assert.ok(
      start.successRate > 0.2 && start.successRate < 0.8,
      `the BC start should be mediocre, got ${start.successRate}`,
    );
    assert.ok(
      end.successRate > start.successRate,
      `success ${start.successRate} → ${end.successRate}: no gain over BC`,
    );
  } finally {
    await sim.close();
  }
});
