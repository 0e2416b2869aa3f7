/**
 * Crash safety: a running schedule is SIGKILLed at many random (seeded) points and restarted;
 * at the end the ledger must match the stored episodes exactly once each.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Rng } from '../../src/core/rng.ts';
import { EpisodeStore } from '../../src/data/episodeStore.ts';
import { SqliteQueue } from '../../src/scheduler/sqliteQueue.ts';
import { CRASH_GROUPS, CRASH_ROLLOUTS, CRASH_STEPS } from './crashChild.ts';
import { makeRequests } from './requests.ts';

const dir = mkdtempSync(join(tmpdir(), 'wmrl-crash-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const child = join(import.meta.dirname, 'crashChild.ts');

/**
 * Runs the child; kills it `kill.delayMs` after its `kill.episodes`-th finished episode of this run
 * (undefined: lets it finish). Counting episodes, not milliseconds, puts the kills at different
 * points of the schedule on a slow machine too.
 */
function runChild(kill?: { episodes: number; delayMs: number }): Promise<'killed' | 'done'> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', 'tsx', child, dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let armed = false;
    p.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const finished = out.split('\n').filter((line) => line === 'episode').length;
      if (kill && !armed && finished >= kill.episodes) {
        armed = true;
        setTimeout(() => p.kill('SIGKILL'), kill.delayMs).unref();
      }
    });
    p.stderr.on('data', (d: Buffer) => (err += d.toString()));
    p.on('exit', (code, signal) => {
      if (signal === 'SIGKILL') resolve('killed');
      else if (code === 0 && out.includes('done')) resolve('done');
      else reject(new Error(`schedule child exited ${code}: ${err}`));
    });
  });
}

test(
  'crash safety: SIGKILL at 24 random points, restart, ' + 'the ledger matches the stored episodes exactly once',
  async (t) => {
    const rng = new Rng(2024);
    const total = CRASH_STEPS * CRASH_GROUPS * CRASH_ROLLOUTS;
    let kills = 0;
    const progress = new Set<number>();
    for (let k = 0; k < 24; k++) {
      // 1–4 episodes in, then up to 10 ms on: between an episode's end, its storing and its charge.
      if ((await runChild({ episodes: 1 + rng.int(4), delayMs: rng.uniform(0, 10) })) === 'killed') kills++;
      const q = SqliteQueue.open(join(dir, 'schedule.db'));
      const charged = (await q.spent()).episodes;
      await q.close();
      if (charged > 0 && charged < total) progress.add(charged);
    }
    t.diagnostic(`${kills} kills mid-schedule; ledger sizes after them: ${[...progress].join(', ')} of ${total}`);
    assert.ok(kills >= 20, `at least 20 runs were killed mid-schedule (got ${kills})`);
    assert.ok(
      progress.size >= 5,
      `kills landed at many points of the schedule (ledger sizes seen: ${[...progress].join(', ')})`,
    );
    assert.equal(await runChild(), 'done');

    const ids = [];
    for (let s = 1; s <= CRASH_STEPS; s++)
      ids.push(...makeRequests('crash', s, CRASH_GROUPS, CRASH_ROLLOUTS).map((r) => r.id));
    const store = await EpisodeStore.open(join(dir, 'anchors'));
    const seen = new Map<string, number>();
    let storedSeconds = 0;
    for await (const { episode } of store.records({ onIssue: () => {} })) {
      seen.set(episode.id, (seen.get(episode.id) ?? 0) + 1);
      storedSeconds += episode.steps / episode.controlHz;
    }
    assert.deepEqual([...seen.keys()].sort(), [...ids].sort(), 'every requested episode is stored');
    for (const [id, count] of seen) assert.equal(count, 1, `episode ${id} stored ${count} times`);
    const queue = SqliteQueue.open(join(dir, 'schedule.db'));
    try {
      assert.deepEqual(await queue.ledgerIds(), [...ids].sort(), 'the ledger charges each stored episode once');
      const spent = await queue.spent();
      assert.equal(spent.episodes, ids.length);
      assert.ok(Math.abs(spent.robotSeconds - storedSeconds) < 1e-9, 'robot seconds charged = robot seconds stored');
      const s = await queue.summary();
      assert.deepEqual(s.counts, { queued: 0, running: 0, done: ids.length, failed: 0 });
    } finally {
      await queue.close();
    }
  },
);
