/**
 * What the `wmrl train --robots / --queue` tests share: a data folder of mixed sim episodes, a
 * tiny BC policy, a world-model config, a pool of two simulated robots, and the toy training
 * arguments. Used by test/scheduler/trainPool.test.ts and test/fleet/trainPoolRemote.test.ts.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { selectBackend } from '../../src/backend/selectBackend.ts';
import { resolveConfig } from '../../src/core/config.ts';
import { EpisodeStore } from '../../src/data/episodeStore.ts';
import { POLICY_KERNELS, policyConfigSchema } from '../../src/policy/policyConfig.ts';
import { pretrainPolicy } from '../../src/policy/pretrain.ts';
import { loadPolicy, savePolicy } from '../../src/policy/policyFiles.ts';
import { collectMixedEpisodes } from '../helpers/simEpisodes.ts';

export const bin = join(import.meta.dirname, '..', '..', 'bin', 'wmrl.js');
// A toy run: anchors every step, no warm-up.
const TOY = [
  '--anchorEvery=1',
  '--worldModel.warmupEpisodes=0',
  '--steps=3',
  '--groups=3',
  '--rolloutsPerGroup=2',
  '--anchorFraction=0.34',
  '--horizon=4',
  '--eval.episodes=2',
  '--eval.every=3',
  '--eval.tasks=reach',
  '--worldModel.refitEvery=2',
  '--worldModel.refitEpochs=1',
  '--isotonic.minPairs=2',
  '--isotonic.refitEvery=2',
];

export interface TrainPoolFixture {
  dir: string;
  /** `wmrl train` arguments writing to `out`, with `extra` appended. */
  args(out: string, extra?: string[]): string[];
  remove(): void;
}

export async function makeTrainPoolFixture(prefix: string): Promise<TrainPoolFixture> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const data = join(dir, 'data');
  const policyDir = join(dir, 'bc', 'policy');
  await selectBackend('wasm', { requiredKernels: POLICY_KERNELS, log: () => {} });
  const episodes = await collectMixedEpisodes({ families: ['reach'], perKind: 6, seed: 700 });
  const store = await EpisodeStore.create(data, { robot: 'vx300' });
  for (const e of episodes) await store.append(e);
  await store.close();
  const config = resolveConfig(policyConfigSchema, {
    overrides: {
      features: '16',
      trunk: '[32]',
      'encoder.epochs': '1',
      'bc.epochs': '1',
      'bc.shiftAugment': 'false',
      'bc.maxNoise': '0.2',
    },
  });
  const { policy } = await pretrainPolicy(episodes, config);
  await savePolicy(policy, policyDir);
  policy.dispose();
  writeFileSync(join(dir, 'wm.yaml'), 'kind: state\nmembers: 2\nhidden: [32]\ntrain: { epochs: 1, k: 2 }\n');
  const pool = join(dir, 'robots.json');
  for (const name of ['left', 'right'])
    assert.equal(
      spawnSync(process.execPath, [bin, 'robot', 'add', name, '--sim', '--speed', 'max', '--pool', pool]).status,
      0,
    );
  return {
    dir,
    args: (out, extra = []) => [
      'train',
      '--policy',
      policyDir,
      '--data',
      data,
      '--out',
      out,
      '--backend',
      'wasm',
      '--wm-config',
      join(dir, 'wm.yaml'),
      ...TOY,
      ...extra,
    ],
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Run the CLI to completion; it must exit 0. */
export function cli(a: string[]) {
  const r = spawnSync(process.execPath, [bin, ...a], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r;
}

/** The RL-trained variables of a run's policy. */
export async function weights(run: string): Promise<number[][]> {
  const p = await loadPolicy(join(run, 'policy'));
  try {
    return p.rlVariables().map((v) => Array.from(v.dataSync()));
  } finally {
    p.dispose();
  }
}
