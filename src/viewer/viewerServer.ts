/**
 * The viewer's server: the bundled page over http and msgpack frames over a websocket, on
 * 127.0.0.1 only. Hardened for a browser on the same machine that may also visit hostile pages:
 *  - http requests and websocket upgrades must name this server as Host (no DNS rebinding), and
 *    upgrades must come from this server's own page (Origin check, else 403);
 *  - incoming frames are capped (`maxPayload`) and decoded as untrusted (clientMessages.ts); a
 *    client that sends an oversized, text or malformed frame is closed, others carry on;
 *  - a ping/pong heartbeat terminates clients that stopped answering;
 *  - backpressure per client (clientSession.ts): the latest state, never an unbounded queue.
 * Only the files of the bundle folder are served, by exact name.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { ClientSession } from './clientSession.ts';
import { decodeClientMessage, MAX_CLIENT_MESSAGE_BYTES, ProtocolError } from './clientMessages.ts';
import type { ClientMessage } from './messages.ts';
import type { ViewerData } from './viewerData.ts';

export interface ViewerServerOptions {
  data: ViewerData;
  /** Folder of the built page (index.html, viewer.js, viewer.css). */
  bundleDir: string;
  /** Port on 127.0.0.1; 0 picks a free one (default 8090). */
  port?: number;
  /** Poll the run folder (new metrics, anchors, checkpoints) and the live episode every this many ms
   * (0: never; default 500). */
  pollMs?: number;
  /** Ping every client this often; one that has not answered the previous ping is dropped (default 15000). */
  heartbeatMs?: number;
  /** Largest client frame in bytes (default MAX_CLIENT_MESSAGE_BYTES). */
  maxPayload?: number;
  /** Per-client send buffer above which updates are coalesced (default 1 MiB). */
  highWaterMark?: number;
  onLog?: (line: string) => void;
}

const HOST = '127.0.0.1';
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json',
};

interface Client {
  ws: WebSocket;
  session: ClientSession;
  alive: boolean;
  /** The request this client waits for (older ones are dropped when they finish). */
  wants: number;
}

export class ViewerServer {
  readonly port: number;
  #http: Server;
  #wss: WebSocketServer;
  #data: ViewerData;
  #clients = new Set<Client>();
  #timers: NodeJS.Timeout[] = [];
  #files: Map<string, { body: Buffer; type: string }>;
  #log: (line: string) => void;
  #polling = false;
  /** Episode builds run one at a time (MuJoCo scene and tfjs are shared). */
  #builds: Promise<unknown> = Promise.resolve();
  #highWater: number;

  private constructor(
    http: Server,
    wss: WebSocketServer,
    options: ViewerServerOptions,
    files: Map<string, { body: Buffer; type: string }>,
  ) {
    this.#http = http;
    this.#wss = wss;
    this.#data = options.data;
    this.#files = files;
    this.#log = options.onLog ?? (() => {});
    this.#highWater = options.highWaterMark ?? 1 << 20;
    this.port = (http.address() as { port: number }).port;
  }

  /** Read the data once, then listen. */
  static async start(options: ViewerServerOptions): Promise<ViewerServer> {
    const files = readBundle(options.bundleDir);
    await options.data.poll();
    const http = createServer();
    const wss = new WebSocketServer({
      noServer: true,
      maxPayload: options.maxPayload ?? MAX_CLIENT_MESSAGE_BYTES,
      perMessageDeflate: false,
    });
    await new Promise<void>((resolve, reject) => {
      http.once('error', reject);
      http.listen(options.port ?? 8090, HOST, () => {
        http.off('error', reject);
        resolve();
      });
    });
    const server = new ViewerServer(http, wss, options, files);
    http.on('request', (req, res) => server.#serve(req, res));
    http.on('upgrade', (req, socket, head) => server.#upgrade(req, socket, head));
    const heartbeat = options.heartbeatMs ?? 15_000;
    server.#timers.push(setInterval(() => server.#heartbeat(), heartbeat));
    const poll = options.pollMs ?? 500;
    // A dataset is polled too: `wmrl label` asks about its episodes (operator/pending.json) and its labels grow.
    if (poll > 0 && (options.data.run || options.data.live || options.data.dataDirs.length > 0))
      server.#timers.push(setInterval(() => void server.#poll(), poll));
    return server;
  }

  get url(): string {
    return `http://${HOST}:${this.port}/`;
  }

  get clientCount(): number {
    return this.#clients.size;
  }

  async close(): Promise<void> {
    for (const t of this.#timers) clearInterval(t);
    for (const c of this.#clients) {
      c.session.close();
      c.ws.terminate();
    }
    this.#clients.clear();
    await new Promise<void>((resolve) => this.#wss.close(() => resolve()));
    this.#http.closeAllConnections();
    await new Promise<void>((resolve) => this.#http.close(() => resolve()));
    await this.#builds.catch(() => {});
  }

  /** Host headers this server answers to: its own address, by IP or as localhost. */
  #ownHost(host: string | undefined): boolean {
    return host === `${HOST}:${this.port}` || host === `localhost:${this.port}`;
  }

  #serve(req: IncomingMessage, res: ServerResponse): void {
    if (!this.#ownHost(req.headers.host))
      return void res.writeHead(421, { 'content-type': 'text/plain' }).end('misdirected request: wrong Host header\n');
    if (req.method !== 'GET' && req.method !== 'HEAD') return void res.writeHead(405, { allow: 'GET, HEAD' }).end();
    const path = new URL(req.url ?? '/', this.url).pathname;
    const file = this.#files.get(path === '/' ? 'index.html' : path.slice(1));
    if (!file) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
    res.writeHead(200, {
      'content-type': file.type,
      'content-length': file.body.length,
      'cache-control': 'no-cache',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      // Everything comes from this server: no CDN, no inline script, nothing framed.
      'content-security-policy':
        `default-src 'self'; connect-src 'self' ws://${req.headers.host}; ` +
        `img-src 'self' data: blob:; style-src 'self'; frame-ancestors 'none'`,
    });
    res.end(req.method === 'HEAD' ? undefined : file.body);
  }

  #upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const reject = (status: string) => {
      socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      socket.destroy();
    };
    const host = req.headers.host;
    if (new URL(req.url ?? '/', this.url).pathname !== '/ws') {
      reject('404 Not Found');
      return;
    }
    if (!this.#ownHost(host)) {
      reject('421 Misdirected Request');
      return;
    }
    // Only this server's own page may connect: another site's script in the same browser may not.
    if (req.headers.origin !== `http://${host}`) {
      this.#log(`refused a websocket from origin ${req.headers.origin ?? '(none)'}`);
      reject('403 Forbidden');
      return;
    }
    this.#wss.handleUpgrade(req, socket, head, (ws) => this.#connect(ws));
  }

  #connect(ws: WebSocket): void {
    const data = this.#data;
    const session = new ClientSession(
      ws,
      {
        records: () => data.records,
        episodes: () => data.episodes,
        run: () => data.runInfo(true),
        // A run's trainer and a dataset's wmrl label ask the operator; a live episode alone asks nothing.
        ...(data.run || data.dataDirs.length > 0 ? { pending: () => data.pending } : {}),
      },
      { highWaterMark: this.#highWater },
    );
    const client: Client = { ws, session, alive: true, wants: -1 };
    this.#clients.add(client);
    ws.on('pong', () => (client.alive = true));
    ws.on('message', (raw, isBinary) => {
      let message: ClientMessage;
      try {
        message = decodeClientMessage(raw as Buffer, isBinary);
      } catch (err) {
        // Whatever went wrong with one client's frame, only that client is closed.
        const code = err instanceof ProtocolError ? err.closeCode : 1011;
        this.#log(`closing a client: ${(err as Error).message}`);
        this.#drop(client, code, (err as Error).message);
        return;
      }
      this.#handle(client, message);
    });
    // Oversized frames (maxPayload) and protocol violations arrive here; ws closes the socket itself.
    ws.on('error', (err) => {
      this.#log(`closing a client: ${err.message}`);
      this.#forget(client);
      // ws has already sent its close frame (1009 for an oversized one); give it time to leave.
      setTimeout(() => client.ws.terminate(), 2000).unref();
    });
    ws.on('close', () => this.#forget(client));
    session.hello();
  }

  #handle(client: Client, message: ClientMessage): void {
    switch (message.type) {
      case 'label':
      case 'reset-ready': {
        const id = message.type === 'label' ? message.episode : message.id;
        const answer =
          message.type === 'label'
            ? this.#data
                .label(message.episode, message.verdict, message.note)
                .then((l) => `episode ${l.episode}: ${l.verdict}${l.by === 'viewer' ? '' : ` (labelled by ${l.by})`}`)
            : this.#data.resetReady(message.id).then(() => 'scene ready');
        answer.then(
          (said) => {
            client.session.answered({ type: 'answered', id, ok: true, message: said });
            for (const c of this.#clients) {
              c.session.pendingChanged();
              // A labelled episode is listed with its label now.
              if (message.type === 'label') c.session.episodesChanged();
            }
          },
          (err: unknown) =>
            client.session.answered({ type: 'answered', id, ok: false, message: (err as Error).message }),
        );
        return;
      }
      case 'open': {
        client.wants = message.request;
        const build = this.#builds.then(async () => {
          if (client.wants !== message.request || !this.#clients.has(client)) return;
          try {
            const episode = await this.#data.episodeView(message.episode);
            if (client.wants === message.request)
              client.session.episode({ type: 'episode', request: message.request, episode });
          } catch (err) {
            client.session.error({ type: 'error', request: message.request, message: (err as Error).message });
          }
        });
        this.#builds = build.catch(() => {});
      }
    }
  }

  /** Close one client (with a close frame when a code is given), leaving the others alone. */
  #drop(client: Client, code?: number, reason?: string): void {
    this.#forget(client);
    if (code !== undefined && client.ws.readyState === client.ws.OPEN) {
      client.ws.close(code, reason?.slice(0, 120));
      // A client that does not finish the closing handshake is cut off.
      setTimeout(() => client.ws.terminate(), 2000).unref();
    } else client.ws.terminate();
  }

  #forget(client: Client): void {
    client.session.close();
    this.#clients.delete(client);
  }

  #heartbeat(): void {
    for (const c of this.#clients) {
      if (!c.alive) {
        this.#log('dropping a client that stopped answering pings');
        this.#drop(c);
        continue;
      }
      c.alive = false;
      c.ws.ping();
    }
  }

  async #poll(): Promise<void> {
    if (this.#polling) return;
    this.#polling = true;
    try {
      const changes = await this.#data.poll();
      for (const c of this.#clients) {
        if (changes.metrics?.from === 0) c.session.metricsReset();
        if (changes.run) c.session.runChanged();
        if (changes.episodes) c.session.episodesChanged();
        if (changes.pending) c.session.pendingChanged();
        if (changes.metrics) c.session.flush();
      }
    } catch (err) {
      this.#log(`reading the run folder failed (will retry): ${(err as Error).message}`);
    } finally {
      this.#polling = false;
    }
  }
}

function readBundle(dir: string): Map<string, { body: Buffer; type: string }> {
  const files = new Map<string, { body: Buffer; type: string }>();
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    /* reported below */
  }
  for (const name of names) {
    const ext = name.slice(name.lastIndexOf('.'));
    const path = join(dir, name);
    if (TYPES[ext] && statSync(path).isFile()) files.set(name, { body: readFileSync(path), type: TYPES[ext]! });
  }
  if (!files.has('index.html') || !files.has('viewer.js'))
    throw new Error(`the viewer page is not built (no index.html and viewer.js in ${dir}): run \`npm run build\``);
  return files;
}
