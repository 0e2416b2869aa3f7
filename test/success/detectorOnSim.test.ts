/**
 * The detector's training and evaluation on simulator episodes with the success flag withheld:
 * `wmrl success train` on expert, noisy-expert and random reach episodes, `wmrl success eval` on
 * other episodes from other seeds, the figures printed. The detector's inputs are frames, joint
 * positions and the instruction only: scrambling an episode's success flags, progress and
 * privileged state changes none of its scores.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { selectBackend } from '../../src/backend/selectBackend.ts';
import type { Episode } from '../../src/core/types.ts';
import { EpisodeStore } from '../../src/data/episodeStore.ts';
import { main } from '../../src/cli/main.ts';
import { POLICY_KERNELS } from '../../src/policy/policyConfig.ts';
import { loadDetector } from '../../src/success/detectorFiles.ts';
import type { DetectorFigures } from '../../src/success/detectorMetrics.ts';
import { collectMixedEpisodes } from '../helpers/simEpisodes.ts';

const dir = mkdtempSync(join(tmpdir(), 'wmrl-detector-sim-'));
let heldOut: Episode[] = [];

async function storeOf(name: string, episodes: Episode[]): Promise<string> {
  const store = await EpisodeStore.create(join(dir, name), { robot: 'vx300' });
  for (const e of episodes) await store.append(e);
  await store.close();
  return join(dir, name);
}

async function cli(argv: string[]): Promise<{ code: number; out: string }> {
  const lines: string[] = [];
  const log = console.log;
  console.log = (...xs: unknown[]) => lines.push(xs.join(' '));
  try {
    return { code: await main(argv), out: lines.join('\n') };
  } finally {
    console.log = log;
  }
}

before(async () => {
  await selectBackend('wasm', { requiredKernels: POLICY_KERNELS, log: () => {} });
  await storeOf('train', await collectMixedEpisodes({ families: ['reach'], perKind: 14, seed: 700 }));
  heldOut = await collectMixedEpisodes({ families: ['reach'], perKind: 8, seed: 4700 });
  await storeOf('held-out', heldOut);
});
after(() => rmSync(dir, { recursive: true, force: true }));

test('wmrl success train and eval on simulator episodes: held-out AUROC, calibration, confusion', async () => {
  const out = join(dir, 'detector');
  const trained = await cli([
    'success',
    'train',
    '--data',
    join(dir, 'train'),
    '--out',
    out,
    '--backend',
    'wasm',
    '--train.epochs=25',
    '--train.patience=0',
    '--train.validationFraction=0.25',
  ]);
  console.error(trained.out);
  assert.equal(trained.code, 0);
  assert.match(trained.out, /held-out episodes: \d+ episodes/);
  const json = join(dir, 'figures.json');
  const evaluated = await cli([
    'success',
    'eval',
    '--detector',
    out,
    '--data',
    join(dir, 'held-out'),
    '--json',
    json,
    '--backend',
    'wasm',
  ]);
  console.error(evaluated.out);
  assert.equal(evaluated.code, 0);
  assert.match(evaluated.out, /AUROC \d\.\d{3} {2}Brier/);
  assert.match(evaluated.out, /confusion at/);
  assert.match(evaluated.out, /calibration \(predicted → observed, episodes\)/);
  const figures = JSON.parse(readFileSync(json, 'utf8')) as DetectorFigures;
  assert.equal(figures.episodes, heldOut.length);
  assert.ok(figures.successes > 0 && figures.successes < figures.episodes, 'both outcomes are held out');
  // Toy scale (42 training episodes, seconds of training): well above chance, not the benchmark's figure.
  assert.ok(figures.auroc! >= 0.75, `held-out AUROC ${figures.auroc}`);

  const detector = await loadDetector(join(out, 'detector'));
  try {
    const scrambled = heldOut.map((e) => ({
      ...e,
      success: !e.success,
      successes: e.successes.map((s) => 1 - s),
      progress: e.progress.map((p) => 1 - p),
      state: e.state.map(() => 0),
    }));
    assert.deepEqual(
      [...detector.scoreEpisodes(scrambled)],
      [...detector.scoreEpisodes(heldOut)],
      'success flags, progress and privileged state never reach the detector',
    );
  } finally {
    detector.dispose();
  }
});
