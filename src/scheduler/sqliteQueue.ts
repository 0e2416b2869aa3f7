/**
 * The embedded AnchorQueue: one SQLite file (better-sqlite3), WAL journal with
 * synchronous=FULL so every committed transaction survives a SIGKILL or power loss. The result,
 * the ledger entry and the `done` state of a request are one transaction; the ledger's primary
 * key is the request id, so an episode can never be charged twice.
 */
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type {
  AnchorQueue,
  ClaimOptions,
  LedgerFilter,
  LedgerTotals,
  QueueSummary,
  RobotHealth,
  RobotUsage,
} from './anchorQueue.ts';
import { utcDay } from './anchorQueue.ts';
import type { EpisodeOutcome, EpisodeRequest, RequestRecord, RequestState } from './episodeRequest.ts';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS requests (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  run TEXT NOT NULL,
  step INTEGER NOT NULL,
  body TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('queued', 'running', 'done', 'failed')),
  attempts INTEGER NOT NULL DEFAULT 0,
  failed_on TEXT NOT NULL DEFAULT '[]',
  robot TEXT,
  enqueued_at INTEGER NOT NULL,
  error TEXT
);
CREATE INDEX IF NOT EXISTS requests_state ON requests (state, seq);
CREATE TABLE IF NOT EXISTS ledger (
  id TEXT PRIMARY KEY REFERENCES requests (id),
  run TEXT NOT NULL,
  step INTEGER NOT NULL,
  day TEXT NOT NULL,
  robot TEXT NOT NULL,
  episode_id TEXT NOT NULL,
  success INTEGER NOT NULL,
  robot_seconds REAL NOT NULL,
  started_at INTEGER NOT NULL,
  finished_at INTEGER NOT NULL,
  payload BLOB
);
CREATE TABLE IF NOT EXISTS robots (
  name TEXT PRIMARY KEY,
  healthy INTEGER NOT NULL,
  retry_at INTEGER NOT NULL,
  failures INTEGER NOT NULL,
  last_error TEXT
);
`;

interface RequestRow {
  id: string;
  body: string;
  state: RequestState;
  attempts: number;
  failed_on: string;
  robot: string | null;
  enqueued_at: number;
  error: string | null;
}

interface LedgerRow {
  robot: string;
  episode_id: string;
  success: number;
  robot_seconds: number;
  started_at: number;
  finished_at: number;
  payload: Buffer | null;
}

export class SqliteQueue implements AnchorQueue {
  readonly #db: Database.Database;

  private constructor(db: Database.Database) {
    this.#db = db;
  }

  /** Opens (creating when absent) the queue in `file`. */
  static open(file: string): SqliteQueue {
    mkdirSync(dirname(file), { recursive: true });
    const db = new Database(file);
    try {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = FULL');
      db.pragma('busy_timeout = 5000');
      db.exec(SCHEMA);
    } catch (err) {
      db.close();
      throw new Error(`cannot open the schedule store ${file}: ${(err as Error).message}`);
    }
    return new SqliteQueue(db);
  }

  async enqueue(requests: EpisodeRequest[]): Promise<number> {
    const insert = this.#db.prepare(
      'INSERT OR IGNORE INTO requests (id, run, step, body, state, enqueued_at) VALUES (?, ?, ?, ?, ?, ?)',
    );
    const now = Date.now();
    return this.#db.transaction(() =>
      requests.reduce((n, r) => n + insert.run(r.id, r.run, r.step, JSON.stringify(r), 'queued', now).changes, 0),
    )();
  }

  async claim(robot: string, options: ClaimOptions = {}): Promise<RequestRecord | null> {
    const poolSize = options.poolSize ?? Infinity;
    const only = options.ids ?? null;
    return this.#db.transaction(() => {
      const rows = this.#db.prepare("SELECT * FROM requests WHERE state = 'queued' ORDER BY seq").all() as RequestRow[];
      for (const row of rows) {
        if (only && !only.has(row.id)) continue;
        const failedOn = JSON.parse(row.failed_on) as string[];
        if (failedOn.includes(robot) && failedOn.length < poolSize) continue;
        this.#db.prepare("UPDATE requests SET state = 'running', robot = ? WHERE id = ?").run(robot, row.id);
        return recordOf({ ...row, state: 'running', robot }, null);
      }
      return null;
    })();
  }

  async complete(id: string, robot: string, o: EpisodeOutcome): Promise<boolean> {
    return this.#db.transaction(() => {
      const row = this.#db.prepare('SELECT * FROM requests WHERE id = ?').get(id) as RequestRow | undefined;
      if (!row) throw new Error(`no request '${id}' in the schedule store`);
      if (row.state === 'done') return false;
      const r = JSON.parse(row.body) as EpisodeRequest;
      this.#db
        .prepare(
          'INSERT INTO ledger (id, run, step, day, robot, episode_id, success, robot_seconds, ' +
            'started_at, finished_at, payload) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
        )
        .run(
          id,
          r.run,
          r.step,
          utcDay(o.finishedAt),
          robot,
          o.episodeId,
          o.success ? 1 : 0,
          o.robotSeconds,
          o.startedAt,
          o.finishedAt,
          o.payload ? Buffer.from(o.payload) : null,
        );
      this.#db.prepare("UPDATE requests SET state = 'done', robot = ?, error = NULL WHERE id = ?").run(robot, id);
      return true;
    })();
  }

  async fail(id: string, robot: string, error: string, maxAttempts: number): Promise<'queued' | 'failed'> {
    return this.#db.transaction(() => {
      const row = this.#db.prepare('SELECT * FROM requests WHERE id = ?').get(id) as RequestRow | undefined;
      if (!row) throw new Error(`no request '${id}' in the schedule store`);
      if (row.state === 'done') throw new Error(`request '${id}' is already done; a failure cannot be recorded for it`);
      const attempts = row.attempts + 1;
      const failedOn = [...new Set([...(JSON.parse(row.failed_on) as string[]), robot])];
      const state = attempts >= maxAttempts ? 'failed' : 'queued';
      this.#db
        .prepare('UPDATE requests SET state = ?, attempts = ?, failed_on = ?, robot = ?, error = ? WHERE id = ?')
        .run(state, attempts, JSON.stringify(failedOn), robot, error, id);
      return state;
    })();
  }

  async requeueFailed(id: string): Promise<boolean> {
    return (
      this.#db
        .prepare(
          "UPDATE requests SET state = 'queued', attempts = 0, failed_on = '[]', " +
            "robot = NULL, error = NULL WHERE id = ? AND state = 'failed'",
        )
        .run(id).changes === 1
    );
  }

  async requeueRunning(): Promise<number> {
    return this.#db.prepare("UPDATE requests SET state = 'queued', robot = NULL WHERE state = 'running'").run().changes;
  }

  async get(id: string): Promise<RequestRecord | undefined> {
    const row = this.#db.prepare('SELECT * FROM requests WHERE id = ?').get(id) as RequestRow | undefined;
    if (!row) return undefined;
    const ledger = this.#db.prepare('SELECT * FROM ledger WHERE id = ?').get(id) as LedgerRow | undefined;
    return recordOf(row, ledger ?? null);
  }

  async spent(filter: LedgerFilter = {}): Promise<LedgerTotals> {
    const where: string[] = [];
    const args: (string | number)[] = [];
    if (filter.day !== undefined) where.push('day = ?'), args.push(filter.day);
    if (filter.run !== undefined) where.push('run = ?'), args.push(filter.run);
    if (filter.step !== undefined) where.push('step = ?'), args.push(filter.step);
    const row = this.#db
      .prepare(
        `SELECT COUNT(*) AS n, COALESCE(SUM(robot_seconds), 0) AS s FROM ` +
          `ledger ${where.length ? 'WHERE ' + where.join(' AND ') : ''}`,
      )
      .get(...args) as { n: number; s: number };
    return { episodes: row.n, robotSeconds: row.s };
  }

  async ledgerIds(): Promise<string[]> {
    return (this.#db.prepare('SELECT id FROM ledger ORDER BY id').all() as { id: string }[]).map((r) => r.id);
  }

  async setRobotHealth(robot: string, h: RobotHealth): Promise<void> {
    this.#db
      .prepare('INSERT OR REPLACE INTO robots (name, healthy, retry_at, failures, last_error) VALUES (?, ?, ?, ?, ?)')
      .run(robot, h.healthy ? 1 : 0, h.retryAt, h.failures, h.lastError);
  }

  async summary(): Promise<QueueSummary> {
    const counts: Record<RequestState, number> = { queued: 0, running: 0, done: 0, failed: 0 };
    for (const r of this.#db.prepare('SELECT state, COUNT(*) AS n FROM requests GROUP BY state').all() as {
      state: RequestState;
      n: number;
    }[])
      counts[r.state] = r.n;
    const robots: Record<string, RobotUsage> = {};
    const usage = this.#db
      .prepare(
        'SELECT robot, COUNT(*) AS n, SUM(robot_seconds) AS s, ' +
          'MIN(started_at) AS a, MAX(finished_at) AS b FROM ledger GROUP BY robot',
      )
      .all() as { robot: string; n: number; s: number; a: number; b: number }[];
    for (const u of usage)
      robots[u.robot] = { episodes: u.n, robotSeconds: u.s, firstStart: u.a, lastEnd: u.b, health: null };
    for (const h of this.#db.prepare('SELECT * FROM robots').all() as {
      name: string;
      healthy: number;
      retry_at: number;
      failures: number;
      last_error: string | null;
    }[]) {
      robots[h.name] ??= { episodes: 0, robotSeconds: 0, firstStart: null, lastEnd: null, health: null };
      robots[h.name]!.health = {
        healthy: h.healthy === 1,
        retryAt: h.retry_at,
        failures: h.failures,
        lastError: h.last_error,
      };
    }
    const delay = this.#db
      .prepare('SELECT AVG(l.started_at - r.enqueued_at) AS d FROM ledger l JOIN requests r ON r.id = l.id')
      .get() as { d: number | null };
    return { counts, total: await this.spent(), robots, meanQueueDelayMs: delay.d };
  }

  async close(): Promise<void> {
    if (this.#db.open) this.#db.close();
  }
}

function recordOf(row: RequestRow, ledger: LedgerRow | null): RequestRecord {
  return {
    request: JSON.parse(row.body) as EpisodeRequest,
    state: row.state,
    attempts: row.attempts,
    failedOn: JSON.parse(row.failed_on) as string[],
    robot: row.robot,
    enqueuedAt: row.enqueued_at,
    error: row.error,
    outcome: ledger
      ? {
          episodeId: ledger.episode_id,
          success: ledger.success === 1,
          robotSeconds: ledger.robot_seconds,
          startedAt: ledger.started_at,
          finishedAt: ledger.finished_at,
          ...(ledger.payload ? { payload: new Uint8Array(ledger.payload) } : {}),
        }
      : null,
  };
}
