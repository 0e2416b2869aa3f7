/**
 * The AnchorQueue behavioural suite (queueBehaviour.ts) against the embedded queue (SQLite).
 * The distributed one (BullMQ on a real redis-server) runs the same suite in the fleet tests:
 * test/fleet/redisQueue.test.ts, `npm run test:fleet`.
 */
import { after, describe } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteQueue } from '../../src/scheduler/sqliteQueue.ts';
import { behaviour } from './queueBehaviour.ts';

const dir = mkdtempSync(join(tmpdir(), 'wmrl-queue-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('SqliteQueue', () => {
  let n = 0;
  behaviour({
    name: 'sqlite',
    async open() {
      const file = join(dir, `q${n++}.db`);
      return { queue: SqliteQueue.open(file), reopen: async () => SqliteQueue.open(file) };
    },
  });
});
