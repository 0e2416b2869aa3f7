/**
 * `wmrl train --robots`: anchor groups on a pool of two simulated robots, through the calibration
 * scheduler. SIGKILLed and resumed, it must give the same policy as a plain run on one env
 * (same episodes, same order), with every anchor episode stored and charged exactly once.
 * Also: active anchor selection runs and logs inclusion probabilities and a weighted PPI.
 * (`--queue redis://` with a remote worker is in the fleet tests: test/fleet/trainPoolRemote.test.ts.)
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readRunLog } from '../../src/core/runLog.ts';
import { EpisodeStore } from '../../src/data/episodeStore.ts';
import { SqliteQueue } from '../../src/scheduler/sqliteQueue.ts';
import { bin, cli, makeTrainPoolFixture, weights, type TrainPoolFixture } from './trainPoolFixture.ts';

let fx: TrainPoolFixture;
let dir: string;
const args = (out: string, extra: string[] = []) => fx.args(out, extra);

before(async () => {
  fx = await makeTrainPoolFixture('wmrl-trainpool-');
  dir = fx.dir;
});
after(() => fx?.remove());

test(
  'train --robots: killed and resumed on a pool, the same ' +
    'policy as one env; anchors stored and charged exactly once',
  async () => {
    const plain = join(dir, 'plain');
    cli(args(plain));
    const pooled = join(dir, 'pooled');
    await new Promise<void>((resolve, reject) => {
      const child = spawn(process.execPath, [bin, ...args(pooled, ['--robots', join(dir, 'robots.json')])], {
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let err = '';
      child.stderr.on('data', (d: Buffer) => {
        err += d.toString();
        if (/step 2\/3/.test(err)) child.kill('SIGKILL');
      });
      child.on('exit', (code, signal) =>
        signal === 'SIGKILL' ? resolve() : reject(new Error(`not killed (exit ${code}): ${err}`)),
      );
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
      for await (const e of (await EpisodeStore.open(join(pooled, 'anchors'))).episodes({ onIssue: () => {} }))
        stored.push(e.id);
      assert.deepEqual(stored.sort(), ids, 'the ledger matches the stored anchors, each once');
      const s = await queue.summary();
      assert.deepEqual(Object.keys(s.robots).sort(), ['left', 'right'], 'both robots ran anchors');
    } finally {
      await queue.close();
    }
  },
);

test(
  'train --activeAnchors: extra anchors by ensemble disagreement, ' +
    'inclusion probabilities and a weighted PPI in the metrics',
  () => {
    const out = join(dir, 'active');
    cli(args(out, ['--activeAnchors=1']));
    const steps = readRunLog(join(out, 'train.metrics.jsonl')).filter((m) => m.kind === 'step');
    assert.equal(steps.length, 3);
    for (const m of steps) {
      const inclusion = m.anchorInclusion as number[];
      assert.equal(inclusion.length, m.anchorGroups);
      assert.ok(
        inclusion.every((p) => p >= 1 / 3 - 1e-9 && p <= 1),
        `inclusion ${inclusion}`,
      );
      assert.ok((m.activeAnchorGroups as number) <= 1);
    }
    assert.ok(
      steps.some((m) => (m.activeAnchorGroups as number) === 1),
      'active picks happened',
    );
    assert.ok(
      steps.some((m) => m.ppi !== null),
      'a PPI estimate was reported',
    );
  },
);

test('train --robots --realEpisodeSteps=3: the pool runs each anchor 3 steps at most, reserving that', async () => {
  const out = join(dir, 'cut');
  cli(args(out, ['--robots', join(dir, 'robots.json'), '--realEpisodeSteps=3']));
  const queue = SqliteQueue.open(join(out, 'schedule.db'));
  try {
    const ids = await queue.ledgerIds();
    assert.equal(ids.length, 6);
    for (const id of ids) {
      const { request } = (await queue.get(id))!;
      assert.equal(request.maxSteps, 3, id);
      assert.ok(Math.abs(request.maxRobotSeconds - 0.3) < 1e-9, `${id} reserves ${request.maxRobotSeconds} s`);
    }
  } finally {
    await queue.close();
  }
  const steps: number[] = [];
  for await (const e of (await EpisodeStore.open(join(out, 'anchors'))).episodes()) steps.push(e.steps);
  assert.equal(steps.length, 6);
  assert.ok(
    steps.every((n) => n >= 1 && n <= 3),
    `anchor lengths ${steps}`,
  );
});
