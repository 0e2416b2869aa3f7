/**
 * The calibration scheduler (docs/design.md): `request(anchor episodes)` runs them in parallel
 * across a robot pool, within the budget, durably, exactly once.
 *
 * Exactly-once, step by step. An episode is stored under its request's stable id:
 *  1. claim the request in the queue (state running, robot noted);
 *  2. run it on the robot;
 *  3. append the episode to the episode store (a closed, fsynced chunk);
 *  4. one queue transaction: outcome + ledger entry + state done.
 * A kill between 3 and 4 leaves an episode stored but not charged: the next `request` finds it in
 * the store and charges it (4) without running it again. A kill before 3 leaves nothing stored:
 * the request goes back to the queue and runs (once) later. The ledger's key is the request id,
 * so nothing is charged twice, and `checkLedger` compares the ledger with the store.
 *
 * Failures: any error while running (EpisodeAbortedError when a robot drops mid-episode) marks
 * the robot unhealthy with a back-off, and the request is retried on another robot, up to
 * `maxAttempts`; then it is reported in `failed` (and kept in the queue as failed), never dropped.
 * An aborted attempt's partial episode is kept in the store, marked aborted (never served).
 */
import type { Episode } from '../core/types.ts';
import { decodeEpisode } from '../data/episodeCodec.ts';
import { EpisodeStore } from '../data/episodeStore.ts';
import { EpisodeAbortedError, type Env } from '../envs/env.ts';
import type { AnchorQueue } from './anchorQueue.ts';
import { utcDay } from './anchorQueue.ts';
import { affordable, type Budget } from './budget.ts';
import type { EpisodeRequest, RequestRecord } from './episodeRequest.ts';
import type { RobotPool, RobotSlot } from './robotPool.ts';
import { episodeRobotSeconds } from '../data/robotTime.ts';

export interface SchedulerOptions {
  queue: AnchorQueue;
  /**
   * Robots this process drives. Absent: remote workers (`wmrl worker`)
   * run the requests, and the episodes come back through the queue.
   */
  pool?: RobotPool;
  /** Episode store folder of the anchor episodes (created on the first append). */
  storeDir: string;
  /** Robot description name the store holds. */
  robot: string;
  /** Where that description lives when it is not this package's robots/<robot> (recorded in the store). */
  robotPath?: string;
  /** Runs one request on a robot's env: the caller's policy and controller (needed with a pool). */
  runEpisode?: (env: Env, request: EpisodeRequest) => Promise<Episode>;
  budget?: Budget;
  /** Attempts per episode before it is reported failed (default 3). */
  maxAttempts?: number;
  /**
   * This process alone runs the queue's requests (embedded store): requests left running
   * by a killed process return to the queue on the first `request`. Default true.
   */
  ownsQueue?: boolean;
  /** Longest wait between two looks at the robots, ms (default 200). */
  pollMs?: number;
  onEpisode?: (done: number, total: number) => void;
  /** Failures and retries, as they happen. */
  onEvent?: (event: SchedulerEvent) => void;
}

export type SchedulerEvent =
  | { kind: 'retry'; id: string; robot: string; error: string; attempts: number }
  | { kind: 'failed'; id: string; robot: string; error: string; attempts: number }
  | { kind: 'recovered'; id: string };

export interface ScheduleResult {
  /** The episodes done, by request id (including ones done before a restart). */
  episodes: Map<string, Episode>;
  /** Requests that failed on every attempt. */
  failed: RequestRecord[];
  /** Requests the budget did not allow (never queued). */
  refused: EpisodeRequest[];
}

export class CalibrationScheduler {
  readonly #o: SchedulerOptions;
  #recovered = false;
  /** Ids in the anchor store (null until first read). */
  #storedIds: Set<string> | null = null;
  /** One writer at a time appends to the episode store. */
  #appending: Promise<void> = Promise.resolve();

  constructor(options: SchedulerOptions) {
    this.#o = options;
  }

  async request(requests: EpisodeRequest[], budget: Budget = this.#o.budget ?? {}): Promise<ScheduleResult> {
    const { queue } = this.#o;
    const stored = await this.#storedAmong(requests);
    const episodes = new Map<string, Episode>();
    const failed: RequestRecord[] = [];
    const pending: EpisodeRequest[] = [];
    /** Done by remote workers, not yet stored here (the trainer was killed in between). */
    const doneRemotely: string[] = [];
    for (const r of requests) {
      const rec = await queue.get(r.id);
      const episode = stored.get(r.id);
      if (episode && rec?.state !== 'done' && this.#o.pool) {
        // Stored by a process killed before it charged the ledger: charge it now, never rerun it.
        if (!rec) await queue.enqueue([r]);
        const at = Date.parse(episode.createdAt);
        const robotSeconds = episodeRobotSeconds(episode);
        await queue.complete(r.id, rec?.robot ?? 'unknown', {
          episodeId: r.id,
          success: episode.success,
          robotSeconds,
          startedAt: at - robotSeconds * 1000,
          finishedAt: at,
        });
        this.#o.onEvent?.({ kind: 'recovered', id: r.id });
      }
      if (episode) episodes.set(r.id, episode);
      else if (rec?.state === 'done' && !this.#o.pool) doneRemotely.push(r.id);
      else if (rec?.state === 'done')
        throw new Error(
          `the ledger charges '${r.id}' but ${this.#o.storeDir} does ` +
            `not hold its episode: the store and the ledger disagree`,
        );
      else {
        // Reported failed before and asked for again (e.g. --resume after fixing the robots): retry it afresh.
        if (rec?.state === 'failed') await queue.requeueFailed(r.id);
        pending.push(r);
      }
    }
    if (this.#o.pool && (this.#o.ownsQueue ?? true)) {
      if (!this.#recovered) await queue.requeueRunning();
      this.#recovered = true;
    }
    const n = await this.#affordable(pending, budget);
    const admitted = pending.slice(0, n);
    await queue.enqueue(admitted);
    const want = new Set([...admitted.map((r) => r.id), ...doneRemotely]);
    if (this.#o.pool) await this.#dispatch(this.#o.pool, want, episodes, failed, requests.length);
    else await this.#collectRemote(want, episodes, failed, requests.length);
    return { episodes, failed, refused: pending.slice(n) };
  }

  /**
   * The stored episodes among `requests`. The store is read in full once; after that this
   * process is its only writer, so only ids already known to be stored need reading again.
   */
  async #storedAmong(requests: EpisodeRequest[]): Promise<Map<string, Episode>> {
    if (this.#storedIds && !requests.some((r) => this.#storedIds!.has(r.id))) return new Map();
    const all = await this.storedEpisodes();
    this.#storedIds = new Set(all.keys());
    const wanted = new Set(requests.map((r) => r.id));
    return new Map([...all].filter(([id]) => wanted.has(id)));
  }

  /** Every complete episode in the anchor store, by id. */
  async storedEpisodes(): Promise<Map<string, Episode>> {
    const out = new Map<string, Episode>();
    let store: EpisodeStore;
    try {
      store = await EpisodeStore.open(this.#o.storeDir);
    } catch {
      return out; // no store yet
    }
    // A chunk cut off by a kill ends in a partial record: it never held a whole episode, so it is no loss.
    for await (const e of store.episodes({ onIssue: () => {} })) {
      if (out.has(e.id)) throw new Error(`${this.#o.storeDir} holds episode '${e.id}' twice`);
      out.set(e.id, e);
    }
    return out;
  }

  async #affordable(pending: EpisodeRequest[], budget: Budget): Promise<number> {
    if (pending.length === 0) return 0;
    const { run, step } = pending[0]!;
    if (pending.some((r) => r.run !== run || r.step !== step))
      throw new Error('one request() call takes the episodes of one training step');
    const spent = {
      step: await this.#o.queue.spent({ run, step }),
      day: await this.#o.queue.spent({ day: utcDay(Date.now()) }),
    };
    return affordable(
      budget,
      spent,
      pending.map((r) => r.maxRobotSeconds),
    );
  }

  /** Remote workers run the requests: wait for each to be done (or failed), and store its episode here, once. */
  async #collectRemote(
    want: Set<string>,
    episodes: Map<string, Episode>,
    failed: RequestRecord[],
    total: number,
  ): Promise<void> {
    const left = new Set(want);
    while (left.size > 0) {
      for (const id of [...left]) {
        const rec = await this.#o.queue.get(id);
        if (rec?.state === 'failed') {
          failed.push(rec);
          left.delete(id);
        } else if (rec?.state === 'done') {
          if (!rec.outcome?.payload)
            throw new Error(`request ${id} is done but its episode did not come back through the queue`);
          const episode = decodeEpisode(rec.outcome.payload);
          if (episode.id !== id) throw new Error(`request ${id} came back with episode '${episode.id}'`);
          await this.#append(episode);
          episodes.set(id, episode);
          left.delete(id);
          this.#o.onEpisode?.(episodes.size, total);
        }
      }
      if (left.size > 0) await new Promise((r) => setTimeout(r, this.#o.pollMs ?? 200));
    }
  }

  async #dispatch(
    pool: RobotPool,
    want: Set<string>,
    episodes: Map<string, Episode>,
    failed: RequestRecord[],
    total: number,
  ): Promise<void> {
    const { queue } = this.#o;
    const running = new Set<Promise<void>>();
    const resolved = new Set<string>();
    let done = episodes.size;
    const finish = (id: string, episode: Episode | null, record: RequestRecord | null) => {
      resolved.add(id);
      if (episode && want.has(id)) {
        episodes.set(id, episode);
        this.#o.onEpisode?.(++done, total);
      }
      if (record && want.has(id)) failed.push(record);
    };
    for (;;) {
      const now = Date.now();
      for (const slot of pool.ready(now)) {
        // Only what this call asks for: a stale request (of a step killed
        // earlier) may already be stored, and is not checked here.
        const rec = await queue.claim(slot.name, { poolSize: pool.slots.length, ids: want });
        // Claims are per robot: a request that failed on this one may still be another's.
        if (!rec) continue;
        slot.busy = true;
        const p: Promise<void> = this.#runOne(slot, rec, finish).finally(() => {
          slot.busy = false;
          running.delete(p);
        });
        running.add(p);
      }
      if (running.size === 0 && [...want].every((id) => resolved.has(id))) return;
      const wait = Math.max(5, Math.min(this.#o.pollMs ?? 200, pool.nextReadyAt(Date.now()) - Date.now()));
      await Promise.race([...running, new Promise((r) => setTimeout(r, wait))]);
    }
  }

  async #runOne(
    slot: RobotSlot,
    rec: RequestRecord,
    finish: (id: string, episode: Episode | null, record: RequestRecord | null) => void,
  ): Promise<void> {
    const { queue } = this.#o;
    const id = rec.request.id;
    const started = Date.now();
    let episode: Episode;
    try {
      if (!this.#o.runEpisode) throw new Error('a scheduler with a robot pool needs runEpisode');
      const env = await slot.env();
      episode = await this.#o.runEpisode(env, rec.request);
      // Reset time is robot time too (an operator's set-up holds the robot): counted where the env measures it.
      slot.resetMs += 1000 * (env.lastResetSeconds ?? 0);
      if (episode.status !== 'complete') throw new Error(`episode ended '${episode.status}'`);
    } catch (err) {
      if (err instanceof EpisodeAbortedError && err.episode) await this.#append(err.episode);
      const at = Date.now();
      slot.busyMs += at - started;
      await slot.failed(err, at);
      await queue.setRobotHealth(slot.name, slot.health);
      const message = `${slot.name}: ${err instanceof Error ? err.message : String(err)}`;
      const state = await queue.fail(id, slot.name, message, this.#o.maxAttempts ?? 3);
      const attempts = rec.attempts + 1;
      this.#o.onEvent?.({
        kind: state === 'failed' ? 'failed' : 'retry',
        id,
        robot: slot.name,
        error: message,
        attempts,
      });
      if (state === 'failed') finish(id, null, (await queue.get(id)) ?? null);
      return;
    }
    episode.id = id;
    await this.#append(episode);
    const finished = Date.now();
    slot.busyMs += finished - started;
    await queue.complete(id, slot.name, {
      episodeId: id,
      success: episode.success,
      robotSeconds: episodeRobotSeconds(episode),
      startedAt: started,
      finishedAt: finished,
    });
    const wasUnhealthy = !slot.health.healthy;
    slot.succeeded(finished);
    if (wasUnhealthy) await queue.setRobotHealth(slot.name, slot.health);
    finish(id, episode, null);
  }

  #append(episode: Episode): Promise<void> {
    const run = this.#appending.then(async () => {
      const store = await EpisodeStore.openForAppend(this.#o.storeDir, {
        robot: this.#o.robot,
        ...(this.#o.robotPath ? { robotPath: this.#o.robotPath } : {}),
      });
      try {
        await store.append(episode);
      } finally {
        await store.close();
      }
      if (episode.status === 'complete') this.#storedIds?.add(episode.id);
    });
    this.#appending = run.catch(() => {});
    return run;
  }
}

/** Ledger against store: every charged id stored exactly once, every stored episode charged. */
export async function checkLedger(
  queue: AnchorQueue,
  stored: Map<string, Episode>,
): Promise<{ charged: number; stored: number; unchargedStored: string[]; chargedMissing: string[] }> {
  const ids = await queue.ledgerIds();
  const charged = new Set(ids);
  return {
    charged: ids.length,
    stored: stored.size,
    unchargedStored: [...stored.keys()].filter((id) => !charged.has(id)),
    chargedMissing: ids.filter((id) => !stored.has(id)),
  };
}
