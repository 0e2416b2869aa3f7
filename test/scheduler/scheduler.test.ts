/** The calibration scheduler over a pool: parallel robots, retries, health, budgets, windows. */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isAvailable, nextAvailable } from '../../src/scheduler/availability.ts';
import { affordable } from '../../src/scheduler/budget.ts';
import { CalibrationScheduler, checkLedger } from '../../src/scheduler/calibrationScheduler.ts';
import { robotConfigSchema } from '../../src/scheduler/robotConfig.ts';
import { RobotPool } from '../../src/scheduler/robotPool.ts';
import { SqliteQueue } from '../../src/scheduler/sqliteQueue.ts';
import { FakeEnv, runFakeEpisode, type FakeEnvOptions } from './fakeRobot.ts';
import { makeRequests } from './requests.ts';

const dir = mkdtempSync(join(tmpdir(), 'wmrl-sched-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

function setup(
  robots: { name: string; env?: FakeEnvOptions; resetSeconds?: number; backoffSeconds?: number }[],
  extra: { maxAttempts?: number } = {},
) {
  const folder = join(dir, `s${n++}`);
  const queue = SqliteQueue.open(join(folder, 'schedule.db'));
  const envs = new Map<string, FakeEnv>();
  const pool = new RobotPool(
    robots.map((r) => ({
      config: robotConfigSchema.parse({
        name: r.name,
        kind: 'sim',
        resetSeconds: r.resetSeconds ?? 0,
        backoffSeconds: r.backoffSeconds ?? 60,
      }),
      open: async () => {
        const env = new FakeEnv(r.env ?? { stepMs: 2 });
        envs.set(r.name, env);
        return env;
      },
    })),
  );
  const events: string[] = [];
  const scheduler = new CalibrationScheduler({
    queue,
    pool,
    storeDir: join(folder, 'anchors'),
    robot: 'test-arm',
    runEpisode: runFakeEpisode,
    maxAttempts: extra.maxAttempts ?? 3,
    pollMs: 20,
    onEvent: (e) => events.push(`${e.kind} ${e.id}${'robot' in e ? ' ' + e.robot : ''}`),
  });
  return { queue, pool, envs, scheduler, events, folder };
}

test('scheduler: episodes run in parallel across robots, each stored and charged once', async () => {
  const { queue, pool, envs, scheduler, folder } = setup([
    { name: 'a', env: { stepMs: 20 } },
    { name: 'b', env: { stepMs: 20 } },
    { name: 'c', env: { stepMs: 20 } },
  ]);
  try {
    const reqs = makeRequests('run', 1, 3, 2);
    const t0 = performance.now();
    const r = await scheduler.request(reqs);
    const wall = performance.now() - t0;
    assert.equal(r.episodes.size, 6);
    assert.deepEqual(r.failed, []);
    const busy = pool.slots.reduce((a, slot) => a + slot.busyMs, 0);
    assert.ok(
      wall < 0.75 * busy,
      `3 robots in parallel: ${wall.toFixed(0)} ms of wall time for ${busy} ms of episodes`,
    );
    for (const name of ['a', 'b', 'c']) assert.ok((envs.get(name)?.episodes ?? 0) >= 1, `robot ${name} ran episodes`);
    assert.deepEqual([...r.episodes.keys()].sort(), reqs.map((q) => q.id).sort());
    const check = await checkLedger(queue, await scheduler.storedEpisodes());
    assert.deepEqual(check, { charged: 6, stored: 6, unchargedStored: [], chargedMissing: [] });
    // Asking again runs nothing and charges nothing.
    const again = await scheduler.request(reqs);
    assert.equal(again.episodes.size, 6);
    assert.equal(
      [...envs.values()].reduce((s, e) => s + e.episodes, 0),
      6,
    );
    assert.equal((await queue.spent()).episodes, 6);
    const s = await queue.summary();
    assert.equal(
      Object.values(s.robots).reduce((k, u) => k + u.episodes, 0),
      6,
    );
  } finally {
    await pool.close();
    await queue.close();
  }
  // `wmrl schedule status` reads the same store.
  const bin = join(import.meta.dirname, '..', '..', 'bin', 'wmrl.js');
  const r = spawnSync(process.execPath, [bin, 'schedule', 'status', '--db', join(folder, 'schedule.db'), '--json'], {
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  const status = JSON.parse(r.stdout) as {
    counts: { done: number };
    total: { episodes: number };
    utilisation: Record<string, number | null>;
  };
  assert.equal(status.counts.done, 6);
  assert.equal(status.total.episodes, 6);
  assert.deepEqual(Object.keys(status.utilisation).sort(), ['a', 'b', 'c']);
  const text = spawnSync(process.execPath, [bin, 'schedule', 'status', '--db', join(folder, 'schedule.db')], {
    encoding: 'utf8',
  });
  assert.match(text.stdout, /queue: 0 queued, 0 running, 6 done, 0 failed/);
});

test(
  'scheduler: a robot that drops mid-episode is marked ' + 'unhealthy and its episode is retried on another robot',
  async () => {
    const { queue, pool, envs, scheduler, events } = setup([
      { name: 'flaky', env: { stepMs: 1, dropAtStep: 3 } },
      { name: 'steady', env: { stepMs: 5 } },
    ]);
    try {
      const reqs = makeRequests('run', 1, 1, 4);
      const r = await scheduler.request(reqs);
      assert.equal(r.episodes.size, 4, 'every episode done despite the drop');
      assert.deepEqual(r.failed, []);
      assert.ok(
        events.some((e) => e.startsWith('retry') && e.endsWith('flaky')),
        events.join('\n'),
      );
      const flaky = pool.slots.find((s) => s.name === 'flaky')!;
      assert.equal(flaky.health.healthy, false);
      assert.ok(flaky.health.retryAt > Date.now() + 30_000, 'backed off');
      assert.match(flaky.health.lastError ?? '', /dropped/);
      assert.equal(envs.get('flaky')!.episodes, 1, 'the unhealthy robot is not tried again during its back-off');
      const s = await queue.summary();
      assert.equal(s.robots.flaky?.health?.healthy, false, 'health is persisted for `wmrl schedule status`');
      assert.equal(s.robots.steady?.episodes, 4);
      assert.equal((await queue.spent()).episodes, 4);
      for (const id of r.episodes.keys()) assert.equal((await queue.get(id))?.robot, 'steady');
    } finally {
      await pool.close();
      await queue.close();
    }
  },
);

test(
  'scheduler: an episode that fails on every robot ' + 'is reported failed after maxAttempts, never dropped',
  async () => {
    const { queue, pool, scheduler, events } = setup(
      [
        { name: 'x', env: { dropAtStep: 1 }, backoffSeconds: 0.01 },
        { name: 'y', env: { dropAtStep: 1 }, backoffSeconds: 0.01 },
      ],
      { maxAttempts: 3 },
    );
    try {
      const reqs = makeRequests('run', 1, 1, 1);
      const r = await scheduler.request(reqs);
      assert.equal(r.episodes.size, 0);
      assert.equal(r.failed.length, 1);
      assert.equal(r.failed[0]!.state, 'failed');
      assert.equal(r.failed[0]!.attempts, 3);
      assert.deepEqual(r.failed[0]!.failedOn.sort(), ['x', 'y'], 'tried on both robots');
      assert.equal(events.filter((e) => e.startsWith('failed')).length, 1);
      assert.equal((await queue.summary()).counts.failed, 1);
      assert.equal((await queue.spent()).episodes, 0);
    } finally {
      await pool.close();
      await queue.close();
    }
  },
);

test('scheduler: the budget admits only what fits; the rest is refused, not queued', async () => {
  const { queue, pool, scheduler } = setup([{ name: 'a' }]);
  try {
    const reqs = makeRequests('run', 2, 2, 2); // maxRobotSeconds 2 each
    const r = await scheduler.request(reqs, { episodesPerStep: 10, robotSecondsPerStep: 5 });
    assert.equal(r.episodes.size, 2);
    assert.equal(r.refused.length, 2);
    assert.equal((await queue.summary()).counts.queued, 0);
    assert.equal(
      affordable(
        { episodesPerDay: 3 },
        { step: { episodes: 0, robotSeconds: 0 }, day: { episodes: 2, robotSeconds: 0 } },
        [1, 1, 1],
      ),
      1,
    );
  } finally {
    await pool.close();
    await queue.close();
  }
});

test('scheduler: reset time between episodes and availability windows', async () => {
  const { queue, pool, scheduler } = setup([{ name: 'a', env: { stepMs: 1 }, resetSeconds: 0.15 }]);
  try {
    const t0 = performance.now();
    await scheduler.request(makeRequests('run', 1, 1, 3));
    assert.ok(performance.now() - t0 >= 2 * 150, 'two resets of 150 ms between three episodes');
  } finally {
    await pool.close();
    await queue.close();
  }
  const day = Date.UTC(2026, 0, 5);
  const h = (x: number) => day + x * 3_600_000;
  assert.equal(isAvailable(['08:00-18:00'], h(9)), true);
  assert.equal(isAvailable(['08:00-18:00'], h(19)), false);
  assert.equal(nextAvailable(['08:00-18:00'], h(19)), h(24 + 8));
  assert.equal(isAvailable(['22:00-06:00'], h(23)), true);
  assert.equal(isAvailable(['22:00-06:00'], h(5)), true);
  assert.equal(nextAvailable(['22:00-06:00'], h(12)), h(22));
  assert.throws(() => robotConfigSchema.parse({ name: 'r', kind: 'rosbridge' }), /needs a url/);
  assert.throws(() => robotConfigSchema.parse({ name: 'r', kind: 'sim', windows: ['8-18'] }), /08:00-18:00/);
});
