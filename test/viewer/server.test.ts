/**
 * Server hardening against a real run folder: the Origin and Host checks, oversized, text and
 * malformed frames (that client is closed, the others keep being served), the heartbeat that
 * drops clients that stopped answering, and episodes with imagined rollouts over the socket.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Packr, Unpackr } from 'msgpackr';
import WebSocket from 'ws';
import { BUNDLE_DIR, requireBundle } from '../../src/viewer/bundle.ts';
import type { ServerMessage } from '../../src/viewer/messages.ts';
import { ViewerData } from '../../src/viewer/viewerData.ts';
import { ViewerServer } from '../../src/viewer/viewerServer.ts';
import { makeFixtureRun, type FixtureRun } from './fixtureRun.ts';

const dir = mkdtempSync(join(tmpdir(), 'wmrl-viewer-server-'));
let fixture: FixtureRun;
let data: ViewerData;
let server: ViewerServer;
const packr = new Packr({ useRecords: false });
const unpackr = new Unpackr({ useRecords: false });

before(async () => {
  requireBundle();
  fixture = await makeFixtureRun(dir);
  data = new ViewerData({ runDir: fixture.runDir, dataDirs: [fixture.dataDir] });
  server = await ViewerServer.start({ data, bundleDir: BUNDLE_DIR, port: 0, pollMs: 0, heartbeatMs: 300 });
});

after(async () => {
  await server?.close();
  await data?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A client of this server; `origin` defaults to the server's own. */
function connect(options: { origin?: string; autoPong?: boolean } = {}): {
  ws: WebSocket;
  messages: ServerMessage[];
  closed: Promise<{ code: number; reason: string }>;
} {
  const ws = new WebSocket(`ws://127.0.0.1:${server.port}/ws`, {
    origin: options.origin ?? `http://127.0.0.1:${server.port}`,
    autoPong: options.autoPong ?? true,
  });
  const messages: ServerMessage[] = [];
  ws.on('message', (d) => messages.push(unpackr.unpack(d as Buffer) as ServerMessage));
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  ws.on('error', () => {});
  return { ws, messages, closed };
}

async function until<T>(f: () => T | undefined, what: string, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = f();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function opened(ws: WebSocket): Promise<void> {
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
  });
}

test('the page is served with a CSP; other Hosts and unknown paths are refused', async () => {
  const page = await fetch(server.url);
  assert.equal(page.status, 200);
  assert.match(page.headers.get('content-security-policy') ?? '', /default-src 'self'/);
  assert.match(await page.text(), /<script type="module" src="viewer.js">/);
  assert.equal((await fetch(new URL('/../package.json', server.url))).status, 404);
  const { request } = await import('node:http');
  const status = await new Promise<number>((resolve) =>
    request({ host: '127.0.0.1', port: server.port, path: '/', headers: { host: 'evil.example' } }, (res) =>
      resolve(res.statusCode!),
    ).end(),
  );
  assert.equal(status, 421, 'a DNS-rebinding Host is refused');
});

test('a websocket from another origin is refused with 403', async () => {
  const { ws } = connect({ origin: 'http://evil.example' });
  await assert.rejects(opened(ws), /HTTP 403/);
  const none = new WebSocket(`ws://127.0.0.1:${server.port}/ws`);
  none.on('error', () => {});
  await assert.rejects(opened(none), /HTTP 403/, 'no Origin at all is refused too');
});

test('oversized, text and malformed frames close only that client; others keep being served', async () => {
  const good = connect();
  await opened(good.ws);
  await until(() => good.messages.find((m) => m.type === 'hello'), 'hello');

  const big = connect();
  await opened(big.ws);
  big.ws.send(Buffer.alloc(64 * 1024, 1));
  assert.equal((await big.closed).code, 1009, 'message too big');

  const text = connect();
  await opened(text.ws);
  text.ws.send('{"type":"open"}');
  assert.equal((await text.closed).code, 1003);

  const garbage = connect();
  await opened(garbage.ws);
  garbage.ws.send(Buffer.from([0xc1, 0xff, 0x00, 0x13]));
  const g = await garbage.closed;
  assert.equal(g.code, 1007);
  assert.match(g.reason, /malformed msgpack/);

  const wrongShape = connect();
  await opened(wrongShape.ws);
  wrongShape.ws.send(packr.pack({ type: 'open', request: 1, episode: 42 }));
  assert.equal((await wrongShape.closed).code, 1007);

  // The first client still gets an episode, with its imagined rollouts.
  const id = fixture.episodeIds[0]!;
  good.ws.send(packr.pack({ type: 'open', request: 7, episode: id }));
  const reply = await until(
    () => good.messages.find((m): m is Extract<ServerMessage, { type: 'episode' }> => m.type === 'episode'),
    'the episode',
  );
  assert.equal(reply.request, 7);
  const v = reply.episode;
  assert.equal(v.summary.id, id);
  assert.ok(v.poses instanceof Float32Array && v.poses.length === (v.summary.steps + 1) * v.geoms.count * 12);
  assert.ok(v.geoms.role.includes('robot') && v.geoms.role.includes('object') && v.geoms.role.includes('world'));
  assert.ok(v.imagined, v.imaginationNote ?? 'no imagination');
  assert.equal(v.imagined.method, 'replay');
  assert.equal(v.imagined.members, 3);
  assert.equal(v.imagined.horizon, v.summary.steps);
  assert.equal(v.imagined.ghostPoses.length, (v.imagined.horizon + 1) * 3 * v.imagined.ghostGeoms.length * 12);
  assert.ok(v.imagined.ghostPoses.every(Number.isFinite));
  assert.equal(v.imagined.disagreement[0], 0, 'every member starts from the real first state');
  assert.ok(v.cameras.some((c) => c.name === 'scene') && v.cameras.some((c) => c.name === 'wrist'));

  good.ws.send(packr.pack({ type: 'open', request: 8, episode: 'no-such-episode' }));
  const err = await until(
    () => good.messages.find((m): m is Extract<ServerMessage, { type: 'error' }> => m.type === 'error'),
    'an error reply',
  );
  assert.match(err.message, /no episode 'no-such-episode'/);
  assert.equal(good.ws.readyState, WebSocket.OPEN, 'a bad request is answered, not punished');
  good.ws.close();
});

test('the heartbeat drops a client that stopped answering pings', async () => {
  const mute = connect({ autoPong: false });
  await opened(mute.ws);
  const live = connect();
  await opened(live.ws);
  const closed = await mute.closed;
  assert.equal(closed.code, 1006, 'terminated without a closing handshake');
  assert.equal(live.ws.readyState, WebSocket.OPEN, 'a client answering pings stays');
  live.ws.close();
});

test('wmrl view serves a run until interrupted; a missing page build names the fix', async () => {
  assert.throws(() => requireBundle(join(dir, 'no-bundle')), /run `npm run build`/);
  const { spawn } = await import('node:child_process');
  const bin = join(import.meta.dirname, '..', '..', 'bin', 'wmrl.js');
  const child = spawn(
    process.execPath,
    [bin, 'view', '--run', fixture.runDir, '--data', fixture.dataDir, '--port', '0', '--backend', 'cpu'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    const url = await until(
      () => /wmrl viewer: (http:\/\/127\.0\.0\.1:\d+\/)/.exec(out)?.[1],
      `the viewer's address in: ${out}`,
    );
    assert.match(out, /13 episodes, watching/);
    assert.equal((await fetch(url)).status, 200);
  } finally {
    child.kill('SIGINT');
  }
  assert.equal(await exited, 0, out);
});
