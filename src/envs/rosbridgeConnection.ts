/**
 * One rosbridge connection that survives its server: roslib's Ros, re-created on every
 * (re)connection so that nothing queued while disconnected is ever sent later (roslib queues
 * messages sent while offline and replays them on reconnect — stale commands to a robot).
 * Reconnects with exponential backoff; service calls always time out.
 */
import { Ros, Service } from './rosbridgeRoslib.ts';

export class RosbridgeDisconnectedError extends Error {
  override name = 'RosbridgeDisconnectedError';
}

export class ServiceCallError extends Error {
  override name = 'ServiceCallError';
}

export class ServiceTimeoutError extends Error {
  override name = 'ServiceTimeoutError';
}

export interface RosbridgeConnectionOptions {
  url: string;
  /** Called on each new connection: set up subscriptions and publishers on this Ros. */
  onConnect: (ros: Ros) => void;
  /** Called once when a connection that was up goes down. */
  onDisconnect: (reason: string) => void;
  /** First and largest delay between reconnection attempts (default 200 ms … 5 s). */
  minBackoffMs?: number;
  maxBackoffMs?: number;
}

export class RosbridgeConnection {
  readonly url: string;
  #options: RosbridgeConnectionOptions;
  #ros: Ros | undefined;
  #closed = false;
  #backoff: number;
  #retry: NodeJS.Timeout | undefined;
  #lastError = 'not connected yet';
  #errors = 0;
  #waiters = new Set<() => void>();
  #pending = new Set<(err: Error) => void>();

  constructor(options: RosbridgeConnectionOptions) {
    if (!/^wss?:\/\/[^\s]+$/.test(options.url))
      throw new Error(`rosbridge URL must look like ws://host:9090, got '${options.url}'`);
    this.url = options.url;
    this.#options = options;
    this.#backoff = options.minBackoffMs ?? 200;
    this.#attempt();
  }

  get connected(): boolean {
    return this.#ros !== undefined;
  }

  /** The live Ros, or undefined while disconnected. */
  get ros(): Ros | undefined {
    return this.#ros;
  }

  get lastError(): string {
    return this.#lastError;
  }

  /** Errors roslib reported so far (a message it could not decode, a websocket error); see lastError. */
  get errors(): number {
    return this.#errors;
  }

  /** Resolve with the live Ros once connected; reject after `timeoutMs`. */
  async waitConnected(timeoutMs: number): Promise<Ros> {
    if (this.#closed) throw new Error('rosbridge connection is closed');
    if (this.#ros) return this.#ros;
    await new Promise<void>((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        this.#waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(done);
        reject(
          new Error(
            `cannot reach rosbridge at ${this.url} within ${(timeoutMs / 1000).toFixed(1)} s (${this.#lastError})`,
          ),
        );
      }, timeoutMs);
      this.#waiters.add(done);
    });
    if (!this.#ros) throw new RosbridgeDisconnectedError(`rosbridge at ${this.url} dropped right after connecting`);
    return this.#ros;
  }

  /**
   * Call a service; resolves with its response values. Rejects with ServiceCallError when the
   * service answers `result: false`, RosbridgeDisconnectedError when the connection is (or goes)
   * down, and ServiceTimeoutError after `timeoutMs`. `onAnswer` runs as the answer is handled,
   * before any message that came after it (the promise settles later, when messages in the same
   * read may already have been handled).
   */
  call(name: string, type: string, args: unknown, timeoutMs: number, onAnswer?: () => void): Promise<unknown> {
    const ros = this.#ros;
    if (!ros)
      return Promise.reject(new RosbridgeDisconnectedError(`not connected to ${this.url}: cannot call ${name}`));
    return new Promise((resolve, reject) => {
      const finish = (fn: () => void) => {
        clearTimeout(timer);
        this.#pending.delete(onDrop);
        fn();
      };
      const onDrop = (err: Error) => finish(() => reject(err));
      const timer = setTimeout(
        () =>
          finish(() =>
            reject(new ServiceTimeoutError(`service ${name} did not answer within ${(timeoutMs / 1000).toFixed(1)} s`)),
          ),
        timeoutMs,
      );
      this.#pending.add(onDrop);
      new Service({ ros, name, serviceType: type }).callService(
        args,
        (values) => {
          onAnswer?.();
          finish(() => resolve(values));
        },
        (error) =>
          finish(() =>
            reject(
              new ServiceCallError(
                `service ${name} failed: ${typeof error === 'string' ? error : JSON.stringify(error)}`,
              ),
            ),
          ),
        timeoutMs / 1000,
      );
    });
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#retry);
    const ros = this.#ros;
    this.#ros = undefined;
    this.#fail(new RosbridgeDisconnectedError('rosbridge connection closed'));
    ros?.close();
  }

  #attempt(): void {
    if (this.#closed) return;
    const ros = new Ros({});
    let over = false;
    const retry = (reason: string) => {
      if (over) return;
      over = true;
      ros.removeAllListeners();
      if (this.#ros === ros) {
        this.#ros = undefined;
        this.#fail(new RosbridgeDisconnectedError(`lost the connection to ${this.url}: ${reason}`));
        this.#options.onDisconnect(reason);
      }
      this.#lastError = reason;
      if (this.#closed) return;
      this.#retry = setTimeout(() => this.#attempt(), this.#backoff);
      this.#backoff = Math.min(this.#options.maxBackoffMs ?? 5000, this.#backoff * 2);
    };
    ros.on('connection', () => {
      if (this.#closed) {
        ros.close();
        return;
      }
      this.#ros = ros;
      this.#backoff = this.#options.minBackoffMs ?? 200;
      this.#options.onConnect(ros);
      for (const w of [...this.#waiters]) w();
    });
    ros.on('error', (event) => {
      const e = event as { message?: string; error?: { code?: string } };
      this.#lastError = e.error?.code ?? e.message ?? 'websocket error';
      this.#errors++;
    });
    ros.on('close', () => retry(this.#lastError === 'not connected yet' ? 'connection closed' : this.#lastError));
    ros.connect(this.url).catch((err: unknown) => retry((err as Error).message));
  }

  #fail(err: Error): void {
    for (const reject of [...this.#pending]) reject(err);
    this.#pending.clear();
  }
}
