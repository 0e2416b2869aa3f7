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
