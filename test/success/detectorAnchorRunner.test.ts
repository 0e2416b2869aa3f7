/**
 * The detector anchor runner around a runner that returns recorded episodes: which outcome each
 * episode gets (detector, operator, 'skip'), what the trainer's copy hides, what is stored where.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { selectBackend } from '../../src/backend/selectBackend.ts';
import { resolveConfig } from '../../src/core/config.ts';
import type { Episode } from '../../src/core/types.ts';
import { EpisodeStore } from '../../src/data/episodeStore.ts';
import { POLICY_KERNELS } from '../../src/policy/policyConfig.ts';
import type { AnchorRequest, AnchorRunner } from '../../src/rl/run/anchorRunner.ts';
import { detectorConfigSchema } from '../../src/success/detectorConfig.ts';
import type { AskOperator } from '../../src/operator/askOperator.ts';
import { detectorAnchorRunner } from '../../src/success/detectorAnchorRunner.ts';
import { SpotCheckCorrection } from '../../src/success/spotCheckCorrection.ts';
import { SuccessDetector } from '../../src/success/successDetector.ts';
import { makeTestEpisode } from '../helpers/episodes.ts';

const dir = mkdtempSync(join(tmpdir(), 'wmrl-detector-runner-'));
let detector: SuccessDetector;

before(async () => {
  await selectBackend('wasm', { requiredKernels: POLICY_KERNELS, log: () => {} });
  // An untrained detector names its camera (training sets the robot's first).
  const config = {
    ...resolveConfig(detectorConfigSchema, { overrides: { imageSize: '4', hidden: '8' } }),
    cameras: ['scene'],
  };
  detector = new SuccessDetector(config, {
    vocab: ['<pad>', '<unk>', 'reach', 'red', 'the', 'block'],
    qposDim: 7,
    qpos: { mean: new Array(7).fill(0), std: new Array(7).fill(1) },
    threshold: 0.5,
    families: ['reach'],
    trainedOn: [],
    heldOut: null,
  });
});
after(() => {
  detector.dispose();
  rmSync(dir, { recursive: true, force: true });
});

const recorded = (family: 'reach' | 'pick' = 'reach') =>
  Array.from({ length: 6 }, (_, i) => makeTestEpisode({ seed: 10 + i, family, success: i % 2 === 0 }));
const innerOf = (episodes: Episode[]): AnchorRunner => ({ run: async () => episodes });
const request = { step: 3, groups: [], rollouts: 6, noise: { seed: 1, correlation: 0 } } as unknown as AnchorRequest;

function runner(
  episodes: Episode[],
  o: {
    fraction: number;
    threshold: number;
    ask?: AskOperator;
    store: string;
    reports?: unknown[];
    labelTimeout?: number;
    onTimeout?: 'skip' | 'stop';
    correction?: SpotCheckCorrection;
    stored?: Set<string>;
  },
) {
  const correction =
    o.correction ??
    new SpotCheckCorrection(
      { window: 100, minChecks: 100, tolerance: 0.1 },
      { threshold: o.threshold, heldOutErrorRate: 0 },
    );
  return detectorAnchorRunner({
    inner: innerOf(episodes),
    detector,
    correction,
    spotCheckFraction: o.fraction,
    askOperator: o.ask ?? (async (e) => ({ success: e.success })),
    labels: { labelTimeout: o.labelTimeout ?? 0, onTimeout: o.onTimeout ?? 'skip' },
    seed: 0,
    ...(o.stored ? { stored: o.stored } : {}),
    storeDir: join(dir, o.store),
    store: { robot: 'test-arm' },
    onReport: (r) => o.reports?.push(r),
  });
}

test("without spot checks every outcome is the detector's decision, recorded as such, the truth hidden", async () => {
  const raw = recorded();
  const truth = raw.map((e) => e.success);
  const reports: unknown[] = [];
  // Threshold 1: no probability reaches it, so every decision is a failure whatever the truth.
  const out = await runner(raw, { fraction: 0, threshold: 1, store: 'none', reports }).run(request);
  assert.deepEqual(
    out.map((e) => e.success),
    raw.map(() => false),
  );
  for (const [i, e] of out.entries()) {
    assert.equal(e.outcome?.source, 'detector');
    assert.ok(e.outcome!.score > 0 && e.outcome!.score < 1);
    assert.equal(e.state.length, 0, 'the privileged state is dropped');
    assert.deepEqual([...e.successes], new Array(e.steps + 1).fill(0));
    assert.notDeepEqual([...e.progress], [...raw[i]!.progress], "the simulator's progress is replaced");
  }
  assert.deepEqual(
    raw.map((e) => e.success),
    truth,
    "the environment's record is left as it was",
  );
  const stored: Episode[] = [];
  for await (const e of (await EpisodeStore.open(join(dir, 'none'))).episodes()) stored.push(e);
  assert.deepEqual(
    stored.map((e) => [e.id, e.success, e.outcome?.source]),
    out.map((e) => [e.id, e.success, 'detector']),
  );
  assert.equal(reports.length, 1);
});

test("spot-checked episodes take the operator's label; a 'skip' leaves the detector's", async () => {
  const raw = recorded();
  const asked: string[] = [];
  const ask: AskOperator = async (e) => {
    asked.push(e.id);
    return e.id === raw[1]!.id ? 'skip' : { success: e.success };
  };
  const out = await runner(raw, { fraction: 1, threshold: 1, ask, store: 'all' }).run(request);
  assert.equal(asked.length, raw.length, 'fraction 1 sends every episode to the operator');
  for (const [i, e] of out.entries()) {
    if (i === 1) {
      assert.equal(e.outcome?.source, 'detector');
      assert.equal(e.success, false);
    } else {
      assert.equal(e.outcome?.source, 'operator');
      assert.equal(e.success, raw[i]!.success);
      assert.equal(e.successes[e.steps], raw[i]!.success ? 1 : 0);
    }
  }
});

test('the spot checks are a seeded random share: the same step picks the same episodes', async () => {
  const picks = async (store: string) => {
    const asked: string[] = [];
    await runner(recorded(), {
      fraction: 0.5,
      threshold: 0.5,
      ask: async (e) => (asked.push(e.id), { success: e.success }),
      store,
    }).run(request);
    return asked;
  };
  const first = await picks('a');
  assert.deepEqual(await picks('b'), first);
  assert.ok(first.length > 0 && first.length < 6, `picked ${first.length} of 6`);
});

test('episodes of a family the detector was not trained on are refused, naming it', async () => {
  await assert.rejects(
    runner(recorded('pick'), { fraction: 0, threshold: 0.5, store: 'pick' }).run(request),
    /trained on reach episodes, not pick/,
  );
});

test('a spot check asks with its reason, blind to the detector score; unanswered at the timeout: none', async () => {
  const raw = recorded();
  const asked: { id: string; reason: string; keys: string[] }[] = [];
  // The operator answers the first spot check and never the others.
  const ask: AskOperator = (e, context) => {
    asked.push({ id: e.id, reason: context.reason, keys: Object.keys(context) });
    if (asked.length === 1) return Promise.resolve({ success: e.success });
    return new Promise((_, reject) => context.signal!.addEventListener('abort', () => reject(context.signal!.reason)));
  };
  const reports: { spotChecks: number }[] = [];
  const started = Date.now();
  const out = await runner(raw, { fraction: 1, threshold: 1, ask, store: 'timeout', labelTimeout: 0.2, reports }).run(
    request,
  );
  assert.ok(Date.now() - started < 5000, 'the request waited for the timeout, not for ever');
  assert.equal(asked.length, raw.length, 'all asked at once');
  for (const a of asked) {
    assert.equal(a.reason, 'spot-check');
    assert.deepEqual(a.keys.sort(), ['reason', 'signal', 'step'], 'no detector score in the question');
  }
  const first = out.find((e) => e.id === asked[0]!.id)!;
  assert.equal(first.outcome?.source, 'operator');
  assert.equal(out.filter((e) => e.outcome?.source === 'detector').length, raw.length - 1, 'the rest: the detector');
  assert.equal(reports[0]!.spotChecks, 1);
});

test('onTimeout stop: an unanswered spot check stops the request, names the episodes, and stores nothing', async () => {
  const raw = recorded();
  let answered = 0;
  const ask: AskOperator = (e, context) => {
    if (answered++ === 0) return Promise.resolve({ success: e.success });
    return new Promise((_, reject) => context.signal!.addEventListener('abort', () => reject(context.signal!.reason)));
  };
  const run = runner(raw, { fraction: 1, threshold: 1, ask, store: 'stop', labelTimeout: 0.2, onTimeout: 'stop' });
  await assert.rejects(run.run(request), (err: Error) => {
    assert.equal(err.name, 'LabelTimeoutError');
    assert.match(err.message, /no operator label within 0\.2 s for \d+ spot check\(s\) of the success detector/);
    assert.match(err.message, /wmrl train --resume/);
    return true;
  });
  assert.ok(!existsSync(join(dir, 'stop')), 'a stopped request stores no relabelled episode');
});

test('episodes the anchor store holds (a resumed pool step) come back as stored, never asked again', async () => {
  const raw = recorded();
  const correction = () =>
    new SpotCheckCorrection({ window: 100, minChecks: 1, tolerance: 0.1 }, { threshold: 0.5, heldOutErrorRate: 0 });
  const first = await runner(raw, { fraction: 1, threshold: 0.5, store: 'again', correction: correction() }).run(
    request,
  );
  // The restarted run: the correction rebuilt from the store (as `wmrl train --resume` does), the same episodes.
  const rebuilt = correction();
  for (const e of first) rebuilt.add({ score: e.outcome!.score, success: e.success, episode: e.id });
  const asked: string[] = [];
  const again = await runner(raw, {
    fraction: 1,
    threshold: 0.5,
    store: 'again',
    correction: rebuilt,
    stored: new Set(first.map((e) => e.id)),
    ask: async (e) => (asked.push(e.id), { success: !e.success }),
  }).run(request);
  assert.deepEqual(asked, [], 'nothing asked twice');
  assert.deepEqual(
    again.map((e) => [e.id, e.success, e.outcome?.source]),
    first.map((e) => [e.id, e.success, 'operator']),
  );
  assert.equal(rebuilt.checks.length, raw.length, 'each spot check counted once');
  const stored: string[] = [];
  for await (const e of (await EpisodeStore.open(join(dir, 'again'))).episodes()) stored.push(e.id);
  assert.equal(stored.length, raw.length, 'stored once');
});
