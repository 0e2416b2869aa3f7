/**
 * The detector anchor runner around a runner that returns recorded episodes: which outcome each
 * episode gets (detector, operator, 'skip'), what the trainer's copy hides, what is stored where.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { selectBackend } from '../../src/backend/selectBackend.ts';
import { resolveConfig } from '../../src/core/config.ts';
import type { Episode } from '../../src/core/types.ts';
import { EpisodeStore } from '../../src/data/episodeStore.ts';
import { POLICY_KERNELS } from '../../src/policy/policyConfig.ts';
import type { AnchorRequest, AnchorRunner } from '../../src/rl/anchorRunner.ts';
import { detectorConfigSchema } from '../../src/success/detectorConfig.ts';
import { detectorAnchorRunner, type AskOperator } from '../../src/success/detectorAnchorRunner.ts';
import { SpotCheckCorrection } from '../../src/success/spotCheckCorrection.ts';
import { SuccessDetector } from '../../src/success/successDetector.ts';
import { makeTestEpisode } from '../helpers/episodes.ts';

const dir = mkdtempSync(join(tmpdir(), 'wmrl-detector-runner-'));
let detector: SuccessDetector;

before(async () => {
  await selectBackend('wasm', { requiredKernels: POLICY_KERNELS, log: () => {} });
  const config = resolveConfig(detectorConfigSchema, { overrides: { imageSize: '4', hidden: '8' } });
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
  o: { fraction: number; threshold: number; ask?: AskOperator; store: string; reports?: unknown[] },
) {
  const correction = new SpotCheckCorrection(
    { window: 100, minChecks: 100, tolerance: 0.1 },
    { threshold: o.threshold, heldOutErrorRate: 0 },
  );
  return detectorAnchorRunner({
    inner: innerOf(episodes),
    detector,
    correction,
    spotCheckFraction: o.fraction,
    askOperator: o.ask ?? (async (e) => ({ success: e.success })),
    seed: 0,
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
