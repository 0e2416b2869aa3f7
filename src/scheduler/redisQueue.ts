/**
 * The AnchorQueue on BullMQ (Redis), so robot workers on other machines take anchor episodes
 * from a trainer elsewhere. BullMQ holds the requests as jobs (job id = request id, so a second
 * enqueue of an id is ignored) and their lifecycle: waiting/delayed → queued, active (locked
 * by one worker's token) → running, completed → done, failed → failed. The ledger and robot
 * health live beside it in two Redis hashes; the ledger entry is written by one Lua script
 * that refuses an id already charged, before the job is marked completed. A worker that dies
 * after charging leaves an active job whose id is in the ledger: whoever claims it next
 * completes it without running it again.
 */
import { randomUUID } from 'node:crypto';
import { Queue, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
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

interface JobData {
  request: EpisodeRequest;
  attempts: number;
  failedOn: string[];
  error: string | null;
}

interface LedgerEntry {
  run: string;
  step: number;
  day: string;
  robot: string;
  enqueuedAt: number;
  episodeId: string;
  success: boolean;
  robotSeconds: number;
  startedAt: number;
  finishedAt: number;
  payload?: string;
}

// KEYS[1] ledger hash; ARGV id, entry. 1 when charged now, 0 when the id was already charged.
const CHARGE = `if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 1 then return 1 else return 0 end`;

export interface RedisQueueOptions {
  /** redis://host:port */
  url: string;
  /** Queue name (one per run or per fleet). */
  name?: string;
  /**
   * How long a claim holds its request before BullMQ's stalled check may
   * give it to another worker (ms). Default 15 min: longer than any episode.
   */
  lockMs?: number;
}

export class RedisQueue implements AnchorQueue {
  readonly #redis: Redis;
  readonly #queue: Queue<JobData>;
  readonly #worker: Worker<JobData>;
  readonly #keys: { ledger: string; robots: string };
  /** Claims held by this process: the BullMQ lock token of each running job. */
  readonly #claims = new Map<string, { job: Job<JobData>; token: string }>();
  /** Connections handed to BullMQ: it does not close connections it was given. */
  readonly #connections: Redis[];

  private constructor(
    redis: Redis,
    queue: Queue<JobData>,
    worker: Worker<JobData>,
    name: string,
    connections: Redis[],
  ) {
    this.#redis = redis;
    this.#connections = connections;
    this.#queue = queue;
    this.#worker = worker;
    this.#keys = { ledger: `wmrl:${name}:ledger`, robots: `wmrl:${name}:robots` };
  }

  static async open(o: RedisQueueOptions): Promise<RedisQueue> {
    const name = o.name ?? 'wmrl-anchors';
    if (!/^redis:\/\//.test(o.url)) throw new Error(`queue URL must look like redis://host:port, got '${o.url}'`);
    const connections: Redis[] = [];
    const connection = () => {
      const c = new Redis(o.url, { maxRetriesPerRequest: null });
      connections.push(c);
      return c;
    };
    // Probe once, failing fast: the working connections retry forever, as a long-lived queue should.
    const probe = new Redis(o.url, {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
      connectTimeout: 5000,
    });
    let cause: Error | undefined;
    probe.on('error', (err: Error) => (cause ??= err));
    try {
      await probe.connect();
      await probe.ping();
    } catch (err) {
      throw new Error(`cannot reach the Redis queue at ${o.url}: ${(cause ?? (err as Error)).message}`);
    } finally {
      probe.disconnect();
    }
    const redis = connection();
    const queue = new Queue<JobData>(name, { connection: connection() });
    // No processor: jobs are taken by hand (claim), one at a time, by whoever has a free robot.
    const worker = new Worker<JobData>(name, null, {
      connection: connection(),
      lockDuration: o.lockMs ?? 15 * 60_000,
      autorun: false,
    });
    // A worker that died holding a claim: once its lock expires, BullMQ's stalled check returns the job to the queue.
    await worker.startStalledCheckTimer();
    return new RedisQueue(redis, queue, worker, name, connections);
  }

  async enqueue(requests: EpisodeRequest[]): Promise<number> {
    let added = 0;
    for (const r of requests) {
      if (await this.#queue.getJob(r.id)) continue;
      await this.#queue.add(
        'episode',
        { request: r, attempts: 0, failedOn: [], error: null },
        { jobId: r.id, removeOnComplete: false, removeOnFail: false },
      );
      added++;
    }
    return added;
  }

  async claim(robot: string, options: ClaimOptions = {}): Promise<RequestRecord | null> {
    const poolSize = options.poolSize ?? Infinity;
    const skipped: { job: Job<JobData>; token: string }[] = [];
    try {
      for (;;) {
        const token = randomUUID();
        const job = (await this.#worker.getNextJob(token, { block: false })) as Job<JobData> | undefined;
        if (!job?.id) return null;
        if (await this.#redis.hexists(this.#keys.ledger, job.id)) {
          // Charged by a runner that died before marking it completed: finish it, never rerun it.
          await job.moveToCompleted(true, token, false);
          continue;
        }
        if (
          (options.ids && !options.ids.has(job.id)) ||
          (job.data.failedOn.includes(robot) && job.data.failedOn.length < poolSize)
        ) {
          skipped.push({ job, token });
          continue;
        }
        this.#claims.set(job.id, { job, token });
        return this.#record(job, 'running', robot, null);
      }
    } finally {
      for (const s of skipped) await s.job.moveToWait(s.token);
    }
  }

  async complete(id: string, robot: string, o: EpisodeOutcome): Promise<boolean> {
    const claim = this.#claims.get(id);
    const job = claim?.job ?? ((await this.#queue.getJob(id)) as Job<JobData> | undefined);
    if (!job) throw new Error(`no request '${id}' in the Redis queue`);
    const entry: LedgerEntry = {
      run: job.data.request.run,
      step: job.data.request.step,
      day: utcDay(o.finishedAt),
      robot,
      enqueuedAt: job.timestamp,
      episodeId: o.episodeId,
      success: o.success,
      robotSeconds: o.robotSeconds,
      startedAt: o.startedAt,
      finishedAt: o.finishedAt,
      ...(o.payload ? { payload: Buffer.from(o.payload).toString('base64') } : {}),
    };
    const charged = (await this.#redis.eval(CHARGE, 1, this.#keys.ledger, id, JSON.stringify(entry))) === 1;
    if (claim) {
      this.#claims.delete(id);
      await claim.job.moveToCompleted(true, claim.token, false);
    }
    return charged;
  }

  async fail(id: string, robot: string, error: string, maxAttempts: number): Promise<'queued' | 'failed'> {
    const claim = this.#claims.get(id);
    if (!claim) throw new Error(`request '${id}' is not running here; only its claimer can record a failure`);
    this.#claims.delete(id);
    const data: JobData = {
      ...claim.job.data,
      attempts: claim.job.data.attempts + 1,
      failedOn: [...new Set([...claim.job.data.failedOn, robot])],
      error,
    };
    await claim.job.updateData(data);
    if (data.attempts >= maxAttempts) {
      await claim.job.moveToFailed(new Error(error), claim.token, false);
      return 'failed';
    }
    await claim.job.moveToWait(claim.token);
    return 'queued';
  }

  async requeueFailed(id: string): Promise<boolean> {
    const job = (await this.#queue.getJob(id)) as Job<JobData> | undefined;
    if (!job || (await job.getState()) !== 'failed') return false;
    await job.updateData({ ...job.data, attempts: 0, failedOn: [], error: null });
    await job.retry('failed');
    return true;
  }

  async requeueRunning(): Promise<number> {
    const active = (await this.#queue.getActive()) as Job<JobData>[];
    for (const job of active) await job.moveToWait();
    this.#claims.clear();
    return active.length;
  }

  async get(id: string): Promise<RequestRecord | undefined> {
    const job = (await this.#queue.getJob(id)) as Job<JobData> | undefined;
    if (!job) return undefined;
    const raw = await this.#redis.hget(this.#keys.ledger, id);
    const entry = raw ? (JSON.parse(raw) as LedgerEntry) : null;
    const s = await job.getState();
    const state: RequestState =
      entry || s === 'completed' ? 'done' : s === 'failed' ? 'failed' : s === 'active' ? 'running' : 'queued';
    return this.#record(job, state, entry?.robot ?? null, entry);
  }

  async spent(filter: LedgerFilter = {}): Promise<LedgerTotals> {
    const totals = { episodes: 0, robotSeconds: 0 };
    for (const e of await this.#entries()) {
      if (
        (filter.day !== undefined && e.day !== filter.day) ||
        (filter.run !== undefined && e.run !== filter.run) ||
        (filter.step !== undefined && e.step !== filter.step)
      )
        continue;
      totals.episodes++;
      totals.robotSeconds += e.robotSeconds;
    }
    return totals;
  }

  async ledgerIds(): Promise<string[]> {
    return (await this.#redis.hkeys(this.#keys.ledger)).sort();
  }

  async setRobotHealth(robot: string, h: RobotHealth): Promise<void> {
    await this.#redis.hset(this.#keys.robots, robot, JSON.stringify(h));
  }

  async summary(): Promise<QueueSummary> {
    const c = await this.#queue.getJobCounts('waiting', 'delayed', 'prioritized', 'active', 'completed', 'failed');
    const counts: Record<RequestState, number> = {
      queued: (c.waiting ?? 0) + (c.delayed ?? 0) + (c.prioritized ?? 0),
      running: c.active ?? 0,
      done: c.completed ?? 0,
      failed: c.failed ?? 0,
    };
    const robots: Record<string, RobotUsage> = {};
    const entries = await this.#entries();
    let delay = 0;
    for (const e of entries) {
      robots[e.robot] ??= { episodes: 0, robotSeconds: 0, firstStart: null, lastEnd: null, health: null };
      const r = robots[e.robot]!;
      r.episodes++;
      r.robotSeconds += e.robotSeconds;
      r.firstStart = Math.min(r.firstStart ?? Infinity, e.startedAt);
      r.lastEnd = Math.max(r.lastEnd ?? -Infinity, e.finishedAt);
      delay += e.startedAt - e.enqueuedAt;
    }
    for (const [name, raw] of Object.entries(await this.#redis.hgetall(this.#keys.robots))) {
      robots[name] ??= { episodes: 0, robotSeconds: 0, firstStart: null, lastEnd: null, health: null };
      robots[name]!.health = JSON.parse(raw) as RobotHealth;
    }
    // A job charged whose completion was cut off still counts as done.
    counts.done = Math.max(counts.done, entries.length);
    return {
      counts,
      total: { episodes: entries.length, robotSeconds: entries.reduce((s, e) => s + e.robotSeconds, 0) },
      robots,
      meanQueueDelayMs: entries.length ? delay / entries.length : null,
    };
  }

  /** Removes every job, ledger entry and health record of this queue (tests, and `wmrl schedule reset`). */
  async obliterate(): Promise<void> {
    await this.#queue.obliterate({ force: true });
    await this.#redis.del(this.#keys.ledger, this.#keys.robots);
  }

  async close(): Promise<void> {
    await this.#worker.close(true);
    await this.#queue.close();
    for (const c of this.#connections) c.disconnect();
  }

  async #entries(): Promise<LedgerEntry[]> {
    return Object.values(await this.#redis.hgetall(this.#keys.ledger)).map((v) => JSON.parse(v) as LedgerEntry);
  }

  #record(job: Job<JobData>, state: RequestState, robot: string | null, entry: LedgerEntry | null): RequestRecord {
    return {
      request: job.data.request,
      state,
      attempts: job.data.attempts,
      failedOn: job.data.failedOn,
      robot,
      enqueuedAt: job.timestamp,
      error: job.data.error,
      outcome: entry
        ? {
            episodeId: entry.episodeId,
            success: entry.success,
            robotSeconds: entry.robotSeconds,
            startedAt: entry.startedAt,
            finishedAt: entry.finishedAt,
            ...(entry.payload ? { payload: new Uint8Array(Buffer.from(entry.payload, 'base64')) } : {}),
          }
        : null,
    };
  }
}
