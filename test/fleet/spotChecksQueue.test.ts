/**
 * `wmrl train --queue redis:// --outcome detector`: the anchors run on a remote `wmrl worker`, come
 * back through the queue, and their spot checks wait at this run's operator desk (the trainer's
 * process), answered here through the viewer's data layer. Without redis-server it fails, saying
 * how to install it.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LABELS_FILE } from '../../src/operator/labelStore.ts';
import { viewerOperator } from '../helpers/viewerOperator.ts';
import { bin, cli, makeTrainPoolFixture, type TrainPoolFixture } from '../scheduler/trainPoolFixture.ts';
import { requireRedisServer, startRedis } from './redisServer.ts';

let fx: TrainPoolFixture;
let detector: string;

before(async () => {
  requireRedisServer();
  fx = await makeTrainPoolFixture('wmrl-spot-queue-');
  detector = join(fx.dir, 'detector');
  cli(['success', 'train', '--data', join(fx.dir, 'data'), '--out', detector, '--backend', 'wasm', '--train.epochs=1']);
});
after(() => fx?.remove());

function exit(args: string[]): Promise<{ code: number | null; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const limit = setTimeout(() => child.kill('SIGKILL'), 240_000);
    child.on('exit', (code) => {
      clearTimeout(limit);
      resolve({ code, err });
    });
  });
}

test('train --queue, --outcome detector: remote anchors, spot checks answered at the desk', async () => {
  const redis = await startRedis();
  const out = join(fx.dir, 'remote-detector');
  const operator = viewerOperator(out);
  try {
    const worker = exit([
      ...['worker', '--queue', redis.url, '--robot-name', 'remote1', '--speed', 'max', '--backend', 'wasm'],
      ...['--max-episodes', '6', '--idle-exit', '120'],
    ]);
    const detectorFlags = ['--outcome', 'detector', '--detector', detector, '--outcome.spotChecks=1'];
    const r = await exit(fx.args(out, [...detectorFlags, '--queue', redis.url]));
    assert.equal(r.code, 0, r.err);
    const w = await worker;
    assert.equal(w.code, 0, w.err);
  } finally {
    await operator.stop();
    await redis.stop();
  }
  // 3 steps × 1 anchor group × 2 rollouts, each a spot check listed with its frames and answered once.
  assert.equal(operator.shown.length, 6);
  assert.ok(operator.shown.every((s) => s.listed && s.item.reason === 'spot-check'));
  const labels = readFileSync(join(out, LABELS_FILE), 'utf8').trim().split('\n');
  assert.equal(labels.length, 6);
  const reports = readFileSync(join(out, 'detector.metrics.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { kind: string; spotChecks?: number })
    .filter((x) => x.kind === 'anchors');
  assert.deepEqual(
    reports.map((x) => x.spotChecks),
    [2, 2, 2],
  );
});
