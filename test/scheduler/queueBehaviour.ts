/**
 * The AnchorQueue behavioural suite, shared by the embedded queue's tests (SQLite, in
 * test/scheduler/queue.test.ts) and the distributed one's (BullMQ on redis-server, in
 * test/fleet/redisQueue.test.ts): both must keep the same invariants.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AnchorQueue } from '../../src/scheduler/anchorQueue.ts';
import { makeRequests } from './requests.ts';

const outcome = (id: string, robotSeconds = 1.5) => ({
  episodeId: id,
  success: true,
  robotSeconds,
  startedAt: Date.now(),
  finishedAt: Date.now() + 10,
});

export interface Backend {
  name: string;
  /** A fresh queue; `reopen` gives another handle on the same store (a restarted process). */
  open(): Promise<{ queue: AnchorQueue; reopen: () => Promise<AnchorQueue> }>;
}

export function behaviour(backend: Backend): void {
  test(`${backend.name}: enqueue is idempotent by id and claims come oldest first`, async () => {
    const { queue } = await backend.open();
    try {
      const reqs = makeRequests('run-a', 1, 2, 2);
      assert.equal(await queue.enqueue(reqs), 4);
      assert.equal(await queue.enqueue(reqs), 0, 'a second enqueue of the same ids adds nothing');
      const first = await queue.claim('r1');
      assert.equal(first?.request.id, reqs[0]!.id);
      assert.equal(first?.state, 'running');
      assert.equal((await queue.get(reqs[0]!.id))?.state, 'running');
      assert.deepEqual((await queue.summary()).counts, { queued: 3, running: 1, done: 0, failed: 0 });
      const only = await queue.claim('r2', { ids: new Set([reqs[3]!.id]) });
      assert.equal(only?.request.id, reqs[3]!.id, 'a claim limited to some ids skips the others');
      assert.equal(await queue.claim('r2', { ids: new Set(['nope']) }), null);
      assert.equal((await queue.claim('r2'))?.request.id, reqs[1]!.id, 'skipped requests stay queued, in order');
    } finally {
      await queue.close();
    }
  });

  test(`${backend.name}: complete charges the ledger exactly once`, async () => {
    const { queue } = await backend.open();
    try {
      const [a, b] = makeRequests('run-b', 3, 1, 2);
      await queue.enqueue([a!, b!]);
      const c = await queue.claim('r1');
      assert.equal(await queue.complete(c!.request.id, 'r1', outcome(c!.request.id, 2)), true);
      assert.equal(
        await queue.complete(c!.request.id, 'r1', outcome(c!.request.id, 2)),
        false,
        'a second completion is refused',
      );
      assert.deepEqual(await queue.spent(), { episodes: 1, robotSeconds: 2 });
      assert.deepEqual(await queue.spent({ run: 'run-b', step: 3 }), { episodes: 1, robotSeconds: 2 });
      assert.deepEqual(await queue.spent({ step: 4 }), { episodes: 0, robotSeconds: 0 });
      const rec = await queue.get(a!.id);
      assert.equal(rec?.state, 'done');
      assert.equal(rec?.outcome?.episodeId, a!.id);
      assert.deepEqual(await queue.ledgerIds(), [a!.id]);
      const s = await queue.summary();
      assert.equal(s.robots.r1?.episodes, 1);
      assert.equal(s.total.episodes, 1);
      assert.ok(s.meanQueueDelayMs !== null);
    } finally {
      await queue.close();
    }
  });

  test(`${backend.name}: a failed attempt moves to another robot, then fails for good after maxAttempts`, async () => {
    const { queue } = await backend.open();
    try {
      const [a] = makeRequests('run-c', 1, 1, 1);
      await queue.enqueue([a!]);
      await queue.claim('r1');
      assert.equal(await queue.fail(a!.id, 'r1', 'connection dropped', 3), 'queued');
      assert.equal(
        await queue.claim('r1', { poolSize: 2 }),
        null,
        'the robot it failed on waits while another robot has not tried it',
      );
      const again = await queue.claim('r2', { poolSize: 2 });
      assert.equal(again?.request.id, a!.id);
      assert.equal(again?.attempts, 1);
      assert.deepEqual(again?.failedOn, ['r1']);
      assert.equal(await queue.fail(a!.id, 'r2', 'reset timed out', 3), 'queued');
      const third = await queue.claim('r1', { poolSize: 2 });
      assert.equal(third?.request.id, a!.id, 'every robot has failed it: any may retry');
      assert.equal(await queue.fail(a!.id, 'r1', 'dropped again', 3), 'failed');
      const rec = await queue.get(a!.id);
      assert.equal(rec?.state, 'failed');
      assert.equal(rec?.attempts, 3);
      assert.equal(rec?.error, 'dropped again');
      assert.equal(await queue.claim('r2'), null);
      assert.deepEqual(await queue.spent(), { episodes: 0, robotSeconds: 0 }, 'failures are never charged');
      assert.equal((await queue.summary()).counts.failed, 1);
      // Asked for again once the robots are fixed: a fresh set of attempts.
      assert.equal(await queue.requeueFailed(a!.id), true);
      assert.equal(await queue.requeueFailed(a!.id), false, 'only a failed request can be requeued');
      const retried = await queue.claim('r1', { poolSize: 2 });
      assert.equal(retried?.request.id, a!.id);
      assert.equal(retried?.attempts, 0);
    } finally {
      await queue.close();
    }
  });

  test(`${backend.name}: nothing is lost across a restart; running requests return to the queue`, async () => {
    const { queue, reopen } = await backend.open();
    const reqs = makeRequests('run-d', 1, 1, 3);
    await queue.enqueue(reqs);
    const c = await queue.claim('r1');
    await queue.complete(c!.request.id, 'r1', outcome(c!.request.id));
    await queue.claim('r1'); // left running by a "crashed" process
    await queue.close();
    const q2 = await reopen();
    try {
      assert.equal(await q2.enqueue(reqs), 0, 'the restarted trainer asks again: nothing new');
      assert.equal(await q2.requeueRunning(), 1);
      const s = await q2.summary();
      assert.deepEqual(s.counts, { queued: 2, running: 0, done: 1, failed: 0 });
      const ids = [(await q2.claim('r2'))?.request.id, (await q2.claim('r2'))?.request.id].sort();
      assert.deepEqual(ids, [reqs[1]!.id, reqs[2]!.id]);
      assert.equal(await q2.claim('r2'), null);
      assert.deepEqual(await q2.spent(), { episodes: 1, robotSeconds: 1.5 });
    } finally {
      await q2.close();
    }
  });

  test(`${backend.name}: robot health is kept and reported`, async () => {
    const { queue } = await backend.open();
    try {
      await queue.setRobotHealth('r9', { healthy: false, retryAt: 123, failures: 2, lastError: 'connection dropped' });
      assert.deepEqual((await queue.summary()).robots.r9?.health, {
        healthy: false,
        retryAt: 123,
        failures: 2,
        lastError: 'connection dropped',
      });
    } finally {
      await queue.close();
    }
  });
}
