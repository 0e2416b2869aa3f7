/**
 * A small real `wmrl train` run folder for the viewer tests: simulator episodes in a dataset,
 * a tiny behaviour-cloned policy, and two WMRL steps (world model, anchors, metrics,
 * checkpoint) written by the project's own training loop. About 20 s on 2 cores.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { selectBackend } from '../../src/backend/selectBackend.ts';
import { resolveConfig } from '../../src/core/config.ts';
import { loadRobot } from '../../src/core/robotDescription.ts';
import { EpisodeStore } from '../../src/data/episodeStore.ts';
import { SimEnv } from '../../src/envs/simEnv.ts';
import { POLICY_KERNELS } from '../../src/policy/policyConfig.ts';
import { runAnchorDir, runTraining } from '../../src/rl/run/runTraining.ts';
import { envAnchorRunner } from '../../src/rl/run/anchorRunner.ts';
import { wmrlConfigSchema } from '../../src/rl/config/wmrlConfig.ts';
import { WORLD_MODEL_KERNELS } from '../../src/worldmodel/worldModelConfig.ts';
import { collectMixedEpisodes } from '../helpers/simEpisodes.ts';
import { trainToyPolicy } from '../helpers/toyPolicy.ts';

export interface FixtureRun {
  dataDir: string;
  runDir: string;
  /** Ids of the dataset's episodes, in storage order. */
  episodeIds: string[];
}

export async function makeFixtureRun(dir: string): Promise<FixtureRun> {
  await selectBackend('wasm', { requiredKernels: [...POLICY_KERNELS, ...WORLD_MODEL_KERNELS], log: () => {} });
  const dataDir = join(dir, 'data');
  const runDir = join(dir, 'run');
  const episodes = await collectMixedEpisodes({
    families: ['reach'],
    perKind: 3,
    seed: 700,
    cameras: ['scene', 'wrist'],
  });
  const store = await EpisodeStore.create(dataDir, { robot: 'vx300' });
  for (const e of episodes) await store.append(e);
  await store.close();
  const policyDir = join(dir, 'bc');
  (await trainToyPolicy(episodes, policyDir)).dispose();
  mkdirSync(dir, { recursive: true });
  const wmFile = join(dir, 'wm.yaml');
  writeFileSync(wmFile, 'kind: state\nmembers: 3\nhidden: [32]\ntrain: { epochs: 1, k: 2 }\n');
  const config = resolveConfig(wmrlConfigSchema, {
    overrides: {
      // Anchors every step (the viewer lists both steps' anchors), no warm-up.
      anchorEvery: '1',
      'worldModel.warmupEpisodes': '0',
      steps: '2',
      groups: '2',
      rolloutsPerGroup: '2',
      anchorFraction: '0.5',
      horizon: '4',
      'eval.episodes': '1',
      'eval.every': '2',
      'eval.tasks': 'reach',
      'worldModel.refitEvery': '2',
      'worldModel.refitEpochs': '1',
      'isotonic.minPairs': '2',
      'isotonic.refitEvery': '2',
      backend: 'wasm',
    },
  });
  const env = await SimEnv.create({ robot: loadRobot('vx300'), cameras: ['scene', 'wrist'] });
  try {
    await runTraining({
      config,
      policyDir,
      data: episodes,
      runDir,
      env,
      anchors: envAnchorRunner(env, runAnchorDir(runDir)),
      resume: false,
      worldModelConfig: { files: [wmFile] },
    });
  } finally {
    await env.close();
  }
  return { dataDir, runDir, episodeIds: episodes.map((e) => e.id) };
}
