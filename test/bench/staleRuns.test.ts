import { test } from 'node:test';
import assert from 'node:assert/strict';
import { changedData, changedKeys, continuesRun, describeChanges } from '../../bench/staleRuns.ts';
import { resolveTrainConfig } from '../../src/cli/train.ts';
import { resolveConfig } from '../../src/core/config.ts';
import { keysUnread } from '../../src/rl/config/method.ts';
import { type WmrlConfig, wmrlConfigSchema } from '../../src/rl/config/wmrlConfig.ts';

const defaults = resolveConfig(wmrlConfigSchema, {});
/** What `wmrl train` resolves from these arguments (the benchmark's way). */
const resolved = (...args: string[]): WmrlConfig =>
  resolveTrainConfig(['--config', 'configs/train/quickstart.yaml', '--seed', '3', ...args]);
/** A run's stored config: JSON, as train.config.json holds it. */
const stored = (c: WmrlConfig): Record<string, unknown> => JSON.parse(JSON.stringify(c));

test('a cached WMRL run made with anchors every step is stale once its arm resolves anchors every other step', () => {
  const before = stored(resolved('--anchorEvery=1'));
  const changes = changedKeys(before, resolved());
  assert.deepEqual(changes, [{ key: 'anchorEvery', was: 1, now: 2 }]);
  assert.equal(describeChanges(changes), 'anchorEvery: 1 → 2');
  assert.deepEqual(changedKeys(stored(resolved()), resolved()), []);
  // A nested key is named by its path; the seed is part of the config too.
  assert.deepEqual(
    changedKeys(before, resolved('--anchorEvery=1', '--worldModel.refitSteps=40', '--seed', '4')).map((c) => c.key),
    ['worldModel.refitSteps', 'seed'],
  );
});

test('real-only GRPO is not stale for keys it never reads (its preset extends the quickstart), only its own', () => {
  const real = ['--config', 'configs/train/real-only.yaml'];
  const before = stored(resolved(...real, '--anchorEvery=1', '--worldModel.keyframes=false', '--horizon=8'));
  assert.deepEqual(changedKeys(before, resolved(...real)), []);
  assert.deepEqual(
    changedKeys(before, resolved(...real, '--ppo.std=0.2')).map((c) => c.key),
    ['ppo.std'],
  );
  // wm-only imagines (the world model's keys count) but never corrects (the anchors' schedule does not).
  const wmOnly = stored(resolved('--mode', 'wm-only', '--anchorEvery=1'));
  assert.deepEqual(changedKeys(wmOnly, resolved('--mode', 'wm-only')), []);
  assert.deepEqual(
    changedKeys(wmOnly, resolved('--mode', 'wm-only', '--horizon=8')).map((c) => c.key),
    ['horizon'],
  );
});

test('a key added after a run counts only where it differs from its default; measurements turned off do not', () => {
  const now = resolved();
  const old = stored(now);
  delete old.uncertaintyPenalty; // the run predates the key: it ran as the default, 0
  delete (old.worldModel as Record<string, unknown>).endEffector; // default true, as now
  assert.deepEqual(changedKeys(old, now), []);
  assert.deepEqual(changedKeys(old, resolved('--uncertaintyPenalty=1')), [
    { key: 'uncertaintyPenalty', was: 0, now: 1 },
  ]);
  // A run that checked PPI against real episodes answers an arm that does not; the other way round it does not.
  const checked = stored(resolved('--ppiCheckEpisodes=60'));
  assert.deepEqual(changedKeys(checked, now), []);
  assert.deepEqual(changedKeys(stored(now), resolved('--ppiCheckEpisodes=60')), [
    { key: 'ppiCheckEpisodes', was: 0, now: 60 },
  ]);
});

test('a key removed from the schema counts only where the run recorded other than what the code now behaves as', () => {
  const now = resolved();
  const old = stored(now);
  // The experiment switches a run made before their removal recorded at their defaults: it behaved as today's does.
  const asToday = {
    ...old,
    debiasMap: 'isotonic',
    contextual: { ridge: 1, minPairs: 64, window: 2000 },
    branch: { fraction: 0, recentEpisodes: 64, beforeClose: false },
    imagineFromStep: 1,
    worldModel: { ...(old.worldModel as object), anchorRepeat: 1, warmupStd: 0 },
  };
  assert.deepEqual(changedKeys(asToday, now), []);
  // Set otherwise, the run is stale: it ran code that is gone.
  assert.deepEqual(
    changedKeys({ ...asToday, debiasMap: 'contextual', branch: { fraction: 1 } }, now).map((c) => c.key),
    ['debiasMap', 'branch.fraction'],
  );
  assert.deepEqual(changedKeys({ ...old, imaginedKlLimit: 0.1 }, now), [
    { key: 'imaginedKlLimit', was: 0.1, now: undefined },
  ]);
  assert.deepEqual(changedKeys({ ...old, retiredKey: 3 }, now), [{ key: 'retiredKey', was: 3, now: undefined }]);
});

test('every key a mode leaves unread is a key of the training config', () => {
  const paths = new Set<string>();
  const walk = (o: Record<string, unknown>, prefix: string) => {
    for (const [k, v] of Object.entries(o)) {
      paths.add(prefix + k);
      if (v && typeof v === 'object' && !Array.isArray(v)) walk(v as Record<string, unknown>, `${prefix}${k}.`);
    }
  };
  walk(defaults as unknown as Record<string, unknown>, '');
  for (const mode of ['real', 'wm-only'] as const)
    for (const key of keysUnread(mode)) assert.ok(paths.has(key), `${mode}: ${key}`);
  assert.deepEqual(keysUnread('wmrl'), []);
});

test('a run that read other data folders is stale; one that recorded none (made before the record) is not told', () => {
  const now = ['cache/demos', 'cache/demos-noise'];
  // Real-only read the noisy experts too once: its group starts were drawn from them.
  assert.deepEqual(changedData('data', ['cache/demos', 'cache/demos-noise', 'cache/mixed'], now), {
    key: 'data',
    was: ['cache/demos', 'cache/demos-noise', 'cache/mixed'],
    now: ['cache/demos', 'cache/demos-noise'],
  });
  assert.equal(changedData('data', ['cache/demos', 'cache/demos-noise'], now), undefined);
  assert.equal(changedData('data', undefined, now), undefined);
  // Group starts: a run that drew them from the noisy experts too is stale where every arm now draws the clone's.
  assert.deepEqual(changedData('starts', ['cache/demos', 'cache/mixed'], ['cache/demos']), {
    key: 'starts',
    was: ['cache/demos', 'cache/mixed'],
    now: ['cache/demos'],
  });
});

test('a run that differs only by fewer steps is continued; fewer, or steps with anything else, is not', () => {
  const short = stored(resolved('--steps=28'));
  assert.equal(continuesRun(changedKeys(short, resolved('--steps=56'))), true);
  assert.equal(continuesRun(changedKeys(stored(resolved('--steps=56')), resolved('--steps=28'))), false);
  assert.equal(continuesRun(changedKeys(short, resolved('--steps=56', '--anchorEvery=1'))), false);
  assert.equal(continuesRun(changedKeys(short, resolved('--steps=28'))), false, 'nothing changed: reused as it is');
});
