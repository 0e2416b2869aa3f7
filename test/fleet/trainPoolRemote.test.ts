/**
 * `wmrl train --queue redis://`: the anchors go through the distributed queue (BullMQ on a real
 * redis-server started here) to a remote `wmrl worker`; the policy must be the same as a plain
 * run on one env, with each anchor episode stored and charged once. Without redis-server it
 * fails, saying how to install it.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { EpisodeStore } from '../../src/data/episodeStore.ts';
import { RedisQueue } from '../../src/scheduler/redisQueue.ts';
import { bin, cli, makeTrainPoolFixture, weights, type TrainPoolFixture } from '../scheduler/trainPoolFixture.ts';
import { requireRedisServer, startRedis } from './redisServer.ts';

let fx: TrainPoolFixture;
let dir: string;
const args = (out: string, extra: string[] = []) => fx.args(out, extra);

before(async () => {
  requireRedisServer(); // before the minute of set-up below
  fx = await makeTrainPoolFixture('wmrl-trainpool-remote-');
  dir = fx.dir;
  // The reference: the same training as a plain run on one env (trainPool.test.ts makes its own).
  cli(args(join(dir, 'plain')));
});
after(() => fx?.remove());

test(
  'train --queue redis://: a remote `wmrl worker` runs ' + 'the anchors; same policy as one env, each episode once',
  async () => {
    const redis = await startRedis();
    try {
      const worker = spawn(
        process.execPath,
        [
          bin,
          'worker',
          '--queue',
          redis.url,
          '--robot-name',
          'remote1',
          '--speed',
          'max',
          '--backend',
          'wasm',
          '--max-episodes',
          '6',
          '--idle-exit',
          '120',
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let log = '';
      worker.stderr.on('data', (d: Buffer) => (log += d.toString()));
      const exited = new Promise<number | null>((resolve) => worker.on('exit', (code) => resolve(code)));
      const out = join(dir, 'remote');
      const r = await new Promise<{ code: number | null; err: string }>((resolve) => {
        const t = spawn(process.execPath, [bin, ...args(out, ['--queue', redis.url])], {
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        let err = '';
        t.stderr.on('data', (d: Buffer) => (err += d.toString()));
        t.on('exit', (code) => resolve({ code, err }));
      });
      assert.equal(r.code, 0, r.err);
      assert.equal(await exited, 0, log);
      const a = await weights(join(dir, 'plain'));
      const b = await weights(out);
      a.forEach((w, i) =>
        assert.deepEqual(b[i], w, `variable ${i} differs between the remote-worker and the plain run`),
      );
      const queue = await RedisQueue.open({ url: redis.url });
      try {
        const s = await queue.summary();
        assert.equal(s.total.episodes, 6);
        assert.equal(s.robots.remote1?.episodes, 6);
        const stored: string[] = [];
        for await (const e of (await EpisodeStore.open(join(out, 'anchors'))).episodes()) stored.push(e.id);
        assert.deepEqual(
          stored.sort(),
          await queue.ledgerIds(),
          'the trainer stored each episode the ledger charges, once',
        );
      } finally {
        await queue.close();
      }
    } finally {
      await redis.stop();
    }
  },
);
