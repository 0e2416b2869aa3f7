/**
 * `--outcome operator` through the whole training loop: a small real run (simulator anchors, a tiny
 * behaviour-cloned policy and world model) whose anchor labels come from a scripted operator that
 * answers through the run folder, as the viewer does. Step 1's labels all count; in step 2 one
 * rollout is skipped and its group is left out (its imagined twin too); a resumed run reads the
 * counted anchors' outcomes back from labels.jsonl.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { selectBackend } from '../../src/backend/selectBackend.ts';
import { resolveConfig } from '../../src/core/config.ts';
import { loadRobot } from '../../src/core/robotDescription.ts';
import { SimEnv } from '../../src/envs/simEnv.ts';
import { LABELS_FILE, LabelStore } from '../../src/operator/labelStore.ts';
import { OperatorDesk } from '../../src/operator/operatorDesk.ts';
import { readPending } from '../../src/operator/pendingItems.ts';
import { POLICY_KERNELS } from '../../src/policy/policyConfig.ts';
import { envAnchorRunner } from '../../src/rl/run/anchorRunner.ts';
import { runAnchorDir, runTraining } from '../../src/rl/run/runTraining.ts';
import { wmrlConfigSchema } from '../../src/rl/config/wmrlConfig.ts';
import { WORLD_MODEL_KERNELS } from '../../src/worldmodel/worldModelConfig.ts';
import { collectMixedEpisodes } from '../helpers/simEpisodes.ts';
import { trainToyPolicy } from '../helpers/toyPolicy.ts';

/** Answers every listed label through labels.jsonl: success, failure in turn, or skip where `skip` says. */
function scriptedOperator(runDir: string, skip: (n: number) => boolean): { stop(): void; answered: string[] } {
  const answered: string[] = [];
  let stopped = false;
  void (async () => {
    const labels = await LabelStore.open(runDir);
    while (!stopped) {
      for (const item of await readPending(runDir)) {
        if (item.kind !== 'label' || answered.includes(item.id)) continue;
        const n = answered.push(item.id) - 1;
        const verdict = skip(n) ? 'skip' : n % 2 === 0 ? 'success' : 'failure';
        await labels.add({ episode: item.id, verdict, by: 'script', at: new Date().toISOString() });
      }
      await new Promise((r) => setTimeout(r, 30));
    }
  })();
  return { stop: () => (stopped = true), answered };
}

test('outcome operator: labels are the outcomes, a skip drops its group, resume reads them back', async () => {
  await selectBackend('wasm', { requiredKernels: [...POLICY_KERNELS, ...WORLD_MODEL_KERNELS], log: () => {} });
  const dir = mkdtempSync(join(tmpdir(), 'wmrl-operator-train-'));
  const runDir = join(dir, 'run');
  const episodes = await collectMixedEpisodes({ families: ['reach'], perKind: 3, seed: 900 });
  const policyDir = join(dir, 'bc');
  (await trainToyPolicy(episodes, policyDir)).dispose();
  const wmFile = join(dir, 'wm.yaml');
  writeFileSync(wmFile, 'kind: state\nmembers: 2\nhidden: [16]\ntrain: { epochs: 1, k: 2 }\n');
  const config = (steps: number) =>
    resolveConfig(wmrlConfigSchema, {
      overrides: {
        steps: String(steps),
        groups: '3',
        rolloutsPerGroup: '2',
        anchorFraction: '0.67',
        horizon: '3',
        'eval.episodes': '1',
        'eval.every': '5',
        'eval.tasks': 'reach',
        'worldModel.refitEvery': '5',
        // Anchors every step (each step's labels are checked), no warm-up.
        anchorEvery: '1',
        'worldModel.warmupEpisodes': '0',
        'outcome.source': 'operator',
        backend: 'wasm',
      },
    });
  const env = await SimEnv.create({ robot: loadRobot('vx300') });
  const run = async (steps: number, resume: boolean, skip: (n: number) => boolean) => {
    const desk = await OperatorDesk.open({ runDir, pollMs: 30 });
    const operator = scriptedOperator(runDir, skip);
    const lines: Record<string, unknown>[] = [];
    try {
      await runTraining({
        config: config(steps),
        policyDir,
        data: episodes,
        runDir,
        env,
        anchors: envAnchorRunner(env, runAnchorDir(runDir)),
        askOperator: desk.ask,
        resume,
        worldModelConfig: { files: [wmFile] },
        onStep: (m) => lines.push(m as unknown as Record<string, unknown>),
      });
    } finally {
      operator.stop();
      await desk.close();
    }
    return { lines, answered: operator.answered };
  };
  try {
    // Step 1: two anchor groups of two rollouts, all four labelled.
    const first = await run(1, false, () => false);
    assert.equal(first.answered.length, 4);
    assert.deepEqual([first.lines[0]!.realRollouts, first.lines[0]!.unlabelledAnchors], [4, 0]);
    assert.equal(first.lines[0]!.successAnchors, 0.5, 'the outcomes are the labels (success, failure in turn)');
    // Step 2 (a resume: the counted anchors' outcomes come back from labels.jsonl): the first answer is a skip.
    const second = await run(2, true, (n) => n === 0);
    const step2 = second.lines[0]!;
    assert.equal(step2.step, 2);
    assert.deepEqual([step2.realRollouts, step2.anchorGroups, step2.unlabelledAnchors], [2, 1, 1]);
    const state = JSON.parse(readFileSync(join(runDir, 'checkpoint', 'state.json'), 'utf8')) as {
      anchorEpisodeIds: string[];
      realEpisodes: number;
    };
    assert.equal(state.anchorEpisodeIds.length, 6, 'step 1: 4 counted, step 2: the labelled group only');
    assert.equal(state.realEpisodes, 8, 'every executed episode is charged');
    const skipped = second.answered[0]!;
    assert.ok(!state.anchorEpisodeIds.includes(skipped), 'the skipped episode never counts');
    const labels = readFileSync(join(runDir, LABELS_FILE), 'utf8').trim().split('\n');
    assert.equal(labels.length, 8, 'each executed episode labelled once');
  } finally {
    await env.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
