/**
 * `wmrl train --robots`: anchor groups on a pool of two simulated robots, through the calibration
 * scheduler. SIGKILLed and resumed, it must give the same policy as a plain run on one env
 * (same episodes, same order), with every anchor episode stored and charged exactly once.
 * Also: active anchor selection runs and logs inclusion probabilities and a weighted PPI.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { selectBackend } from '../../src/backend/selectBackend.ts';
import { resolveConfig } from '../../src/core/config.ts';
import { EpisodeStore } from '../../src/data/episodeStore.ts';
import { POLICY_KERNELS, policyConfigSchema } from '../../src/policy/policyConfig.ts';
import { pretrainPolicy } from '../../src/policy/pretrain.ts';
import { loadPolicy, savePolicy } from '../../src/policy/policyFiles.ts';
import { SqliteQueue } from '../../src/scheduler/sqliteQueue.ts';
import { RedisQueue } from '../../src/scheduler/redisQueue.ts';
import { startRedis } from './redisServer.ts';
import { collectMixedEpisodes } from '../helpers/simEpisodes.ts';

const dir = mkdtempSync(join(tmpdir(), 'wmrl-trainpool-'));
const data = join(dir, 'data');
const policyDir = join(dir, 'bc', 'policy');
const bin = join(import.meta.dirname, '..', '..', 'bin', 'wmrl.js');
const TOY = ['--steps=3', '--groups=3', '--rolloutsPerGroup=2', '--anchorFraction=0.34', '--horizon=4', '--eval.episodes=2', '--eval.every=3', '--eval.tasks=reach', '--worldModel.refitEvery=2', '--worldModel.refitEpochs=1', '--isotonic.minPairs=2', '--isotonic.refitEvery=2'];

before(async () => {
  await selectBackend('wasm', { requiredKernels: POLICY_KERNELS, log: () => {} });
  const episodes = await collectMixedEpisodes({ families: ['reach'], perKind: 6, seed: 700 });
  const store = await EpisodeStore.create(data, { robot: 'vx300' });
  for (const e of episodes) await store.append(e);
  await store.close();
  const config = resolveConfig(policyConfigSchema, { overrides: { features: '16', trunk: '[32]', 'encoder.epochs': '1', 'bc.epochs': '1', 'bc.shiftAugment': 'false', 'bc.maxNoise': '0.2' } });
  const { policy } = await pretrainPolicy(episodes, config);
  await savePolicy(policy, policyDir);
  policy.dispose();
  writeFileSync(join(dir, 'wm.yaml'), 'kind: state\nmembers: 2\nhidden: [32]\ntrain: { epochs: 1, k: 2 }\n');
  const pool = join(dir, 'robots.json');
  for (const name of ['left', 'right']) assert.equal(spawnSync(process.execPath, [bin, 'robot', 'add', name, '--sim', '--speed', 'max', '--pool', pool]).status, 0);
});
after(() => rmSync(dir, { recursive: true, force: true }));

const args = (out: string, extra: string[] = []) => ['train', '--policy', policyDir, '--data', data, '--out', out, '--backend', 'wasm', '--wm-config', join(dir, 'wm.yaml'), ...TOY, ...extra];

function cli(a: string[]) {
  const r = spawnSync(process.execPath, [bin, ...a], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r;
}

async function weights(run: string): Promise<number[][]> {
  const p = await loadPolicy(join(run, 'policy'));
  try {
    return p.rlVariables().map((v) => Array.from(v.dataSync()));
  } finally {
    p.dispose();
  }
}

test('train --robots: killed and resumed on a pool, the same policy as one env; anchors stored and charged exactly once', async () => {
  const plain = join(dir, 'plain');
  cli(args(plain));
  const pooled = join(dir, 'pooled');
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args(pooled, ['--robots', join(dir, 'robots.json')])], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
      if (/step 2\/3/.test(err)) child.kill('SIGKILL');
    });
    child.on('exit', (code, signal) => (signal === 'SIGKILL' ? resolve() : reject(new Error(`not killed (exit ${code}): ${err}`))));
  });
  cli(args(pooled, ['--robots', join(dir, 'robots.json'), '--resume']));
  const a = await weights(plain);
  const b = await weights(pooled);
  a.forEach((w, i) => assert.deepEqual(b[i], w, `variable ${i} differs between the pooled and the plain run`));
  const report = JSON.parse(readFileSync(join(pooled, 'report.json'), 'utf8')) as { realEpisodes: number };
  assert.equal(report.realEpisodes, 3 * 1 * 2);
  const queue = SqliteQueue.open(join(pooled, 'schedule.db'));
  try {
    const ids = await queue.ledgerIds();
    assert.equal(ids.length, 6, 'each anchor episode charged once');
    const stored: string[] = [];
    for await (const e of (await EpisodeStore.open(join(pooled, 'anchors'))).episodes({ onIssue: () => {} })) stored.push(e.id);
    assert.deepEqual(stored.sort(), ids, 'the ledger matches the stored anchors, each once');
    const s = await queue.summary();
    assert.deepEqual(Object.keys(s.robots).sort(), ['left', 'right'], 'both robots ran anchors');
  } finally {
    await queue.close();
  }
});

test('train --activeAnchors: extra anchors by ensemble disagreement, inclusion probabilities and a weighted PPI in the metrics', () => {
  const out = join(dir, 'active');
  cli(args(out, ['--activeAnchors=1']));
  const steps = readFileSync(join(out, 'train.metrics.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>).filter((m) => m.kind === 'step');
  assert.equal(steps.length, 3);
  for (const m of steps) {
    const inclusion = m.anchorInclusion as number[];
    assert.equal(inclusion.length, m.anchorGroups);
    assert.ok(inclusion.every((p) => p >= 1 / 3 - 1e-9 && p <= 1), `inclusion ${inclusion}`);
    assert.ok((m.activeAnchorGroups as number) <= 1);
  }
  assert.ok(steps.some((m) => (m.activeAnchorGroups as number) === 1), 'active picks happened');
  assert.ok(steps.some((m) => m.ppi !== null), 'a PPI estimate was reported');
});

test('train --queue redis://: a remote `wmrl worker` runs the anchors; same policy as one env, each episode once', async () => {
  const redis = await startRedis();
  try {
    const worker = spawn(process.execPath, [bin, 'worker', '--queue', redis.url, '--robot', 'remote1', '--speed', 'max', '--backend', 'wasm', '--max-episodes', '6', '--idle-exit', '120'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    worker.stderr.on('data', (d: Buffer) => (log += d.toString()));
    const exited = new Promise<number | null>((resolve) => worker.on('exit', (code) => resolve(code)));
    const out = join(dir, 'remote');
    const r = await new Promise<{ code: number | null; err: string }>((resolve) => {
      const t = spawn(process.execPath, [bin, ...args(out, ['--queue', redis.url])], { stdio: ['ignore', 'ignore', 'pipe'] });
      let err = '';
      t.stderr.on('data', (d: Buffer) => (err += d.toString()));
      t.on('exit', (code) => resolve({ code, err }));
    });
    assert.equal(r.code, 0, r.err);
    assert.equal(await exited, 0, log);
    const a = await weights(join(dir, 'plain'));
    const b = await weights(out);
    a.forEach((w, i) => assert.deepEqual(b[i], w, `variable ${i} differs between the remote-worker and the plain run`));
    const queue = await RedisQueue.open({ url: redis.url });
    try {
      const s = await queue.summary();
      assert.equal(s.total.episodes, 6);
      assert.equal(s.robots.remote1?.episodes, 6);
      const stored: string[] = [];
      for await (const e of (await EpisodeStore.open(join(out, 'anchors'))).episodes()) stored.push(e.id);
      assert.deepEqual(stored.sort(), await queue.ledgerIds(), 'the trainer stored each episode the ledger charges, once');
    } finally {
      await queue.close();
    }
  } finally {
    await redis.stop();
  }
});
