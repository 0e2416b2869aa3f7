/**
 * One browser connection's outgoing side, with backpressure: nothing is queued per update.
 * The session only remembers *what* is stale (metrics beyond what the client holds, the episode
 * list, the run info, the last episode asked for) and, whenever the socket's buffer is below
 * the high-water mark, sends the latest state of it. A slow client therefore gets fewer,
 * fresher messages; memory per client stays bounded by one pending episode. A robot's meshes
 * travel once per connection: later episodes of the same robot arrive without them.
 */
import { Packr } from 'msgpackr';
import type { EpisodeSummary, MetricsRecord, PendingItem, RunInfo, ServerMessage } from './messages.ts';

/** The slice of a ws WebSocket the session needs (tests substitute a slow fake). */
export interface OutgoingSocket {
  readonly bufferedAmount: number;
  readonly readyState: number;
  send(data: Uint8Array, cb?: (err?: Error) => void): void;
}

/** Where the latest state comes from at send time. */
export interface StateSource {
  records(): readonly MetricsRecord[];
  episodes(): EpisodeSummary[];
  run(): RunInfo;
  /** What waits for the operator (absent: a source without a run, nothing is ever sent). */
  pending?(): readonly PendingItem[];
}

export interface SessionOptions {
  /** Send nothing more while this many bytes wait in the socket (default 1 MiB). */
  highWaterMark?: number;
  /** How often to look again while above the mark (default 50 ms). */
  retryMs?: number;
  /** Largest number of metrics records in one message (default 2000). */
  maxRecordsPerMessage?: number;
}

const OPEN = 1;
// Typed arrays travel as msgpackr typed-array extensions: the page unpacks them as typed arrays.
const packr = new Packr({ useRecords: false, moreTypes: true });

export function encodeServerMessage(message: ServerMessage): Uint8Array {
  return packr.pack(message);
}

export class ClientSession {
  #socket: OutgoingSocket;
  #source: StateSource;
  #highWater: number;
  #retryMs: number;
  #maxRecords: number;
  /** Metrics records the client holds. */
  #recordsSent = 0;
  #runStale = false;
  #episodesStale = false;
  #pendingStale = false;
  #answered: ServerMessage[] = [];
  #episode: ServerMessage | null = null;
  #error: ServerMessage | null = null;
  #timer: NodeJS.Timeout | null = null;
  #closed = false;
  /** Mesh sets (GeomList.meshKey) this client has been sent. */
  #meshKeys = new Set<string>();
  /** Messages sent so far (for tests and diagnostics). */
  sent = 0;

  constructor(socket: OutgoingSocket, source: StateSource, options: SessionOptions = {}) {
    this.#socket = socket;
    this.#source = source;
    this.#highWater = options.highWaterMark ?? 1 << 20;
    this.#retryMs = options.retryMs ?? 50;
    this.#maxRecords = options.maxRecordsPerMessage ?? 2000;
  }

  /** The greeting: run info and episode list, then every metrics record. */
  hello(): void {
    this.#send({ type: 'hello', run: this.#source.run(), episodes: this.#source.episodes() });
    this.#pendingStale = this.#source.pending !== undefined;
    this.flush();
  }

  /** The metrics log was rewritten: the client must replace, not extend, what it holds. */
  metricsReset(): void {
    this.#recordsSent = 0;
    this.flush();
  }

  runChanged(): void {
    this.#runStale = true;
    this.flush();
  }

  episodesChanged(): void {
    this.#episodesStale = true;
    this.flush();
  }

  pendingChanged(): void {
    this.#pendingStale = true;
    this.flush();
  }

  /** The reply to one of this client's answers (a few bytes each; each is sent). */
  answered(message: ServerMessage): void {
    this.#answered.push(message);
    this.flush();
  }

  /** An episode reply replaces any not yet sent (the client only wants its latest request). */
  episode(message: ServerMessage): void {
    this.#episode = message;
    this.flush();
  }

  error(message: ServerMessage): void {
    this.#error = message;
    this.flush();
  }

  /** Send what is stale, while the socket keeps up. */
  flush(): void {
    if (this.#closed || this.#socket.readyState !== OPEN) return;
    while (this.#pending()) {
      if (this.#socket.bufferedAmount > this.#highWater) {
        this.#timer ??= setTimeout(() => {
          this.#timer = null;
          this.flush();
        }, this.#retryMs);
        return;
      }
      this.#send(this.#next());
    }
  }

  close(): void {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#episode = null;
  }

  #pending(): boolean {
    return (
      this.#runStale ||
      this.#recordsSent < this.#source.records().length ||
      this.#episodesStale ||
      this.#pendingStale ||
      this.#answered.length > 0 ||
      this.#episode !== null ||
      this.#error !== null
    );
  }

  #next(): ServerMessage {
    if (this.#runStale) {
      this.#runStale = false;
      return { type: 'run', run: this.#source.run() };
    }
    const records = this.#source.records();
    if (this.#recordsSent < records.length) {
      const from = this.#recordsSent;
      const chunk = records.slice(from, from + this.#maxRecords);
      this.#recordsSent = from + chunk.length;
      return { type: 'metrics', from, records: chunk };
    }
    if (this.#episodesStale) {
      this.#episodesStale = false;
      return { type: 'episodes', episodes: this.#source.episodes() };
    }
    if (this.#pendingStale) {
      this.#pendingStale = false;
      return { type: 'pending', items: [...(this.#source.pending?.() ?? [])] };
    }
    if (this.#answered.length > 0) return this.#answered.shift()!;
    if (this.#episode) {
      const m = this.#episode;
      this.#episode = null;
      return this.#withoutSentMeshes(m);
    }
    const m = this.#error!;
    this.#error = null;
    return m;
  }

  /** The episode without the meshes this client already holds (a copy: views are shared between clients). */
  #withoutSentMeshes(m: ServerMessage): ServerMessage {
    if (m.type !== 'episode') return m;
    const { geoms } = m.episode;
    if (!this.#meshKeys.has(geoms.meshKey)) {
      this.#meshKeys.add(geoms.meshKey);
      return m;
    }
    return { ...m, episode: { ...m.episode, geoms: { ...geoms, meshes: null } } };
  }

  #send(message: ServerMessage): void {
    this.sent++;
    this.#socket.send(encodeServerMessage(message));
  }
}
