/** Backpressure: a slow client gets the latest state in a few messages, never a queue of every update. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Unpackr } from 'msgpackr';
import { ClientSession, type OutgoingSocket } from '../../src/viewer/clientSession.ts';
import type { EpisodeSummary, MetricsRecord, RunInfo, ServerMessage } from '../../src/viewer/messages.ts';

class SlowSocket implements OutgoingSocket {
  readyState = 1;
  bufferedAmount = 0;
  messages: ServerMessage[] = [];
  #unpackr = new Unpackr({ useRecords: false });
  send(data: Uint8Array): void {
    this.messages.push(this.#unpackr.unpack(data) as ServerMessage);
  }
}

const run: RunInfo = { runDir: 'runs/x', checkpointStep: 1, imagination: null, live: true };

test(
  'a client over the high-water mark is sent nothing; ' + 'once drained it gets every record since, in one message',
  async () => {
    const records: MetricsRecord[] = [{ kind: 'step', step: 1 }];
    let episodes: EpisodeSummary[] = [];
    const socket = new SlowSocket();
    const session = new ClientSession(
      socket,
      { records: () => records, episodes: () => episodes, run: () => run },
      { highWaterMark: 1000, retryMs: 10 },
    );
    session.hello();
    assert.deepEqual(
      socket.messages.map((m) => m.type),
      ['hello', 'metrics'],
    );
    socket.bufferedAmount = 5000; // the client stopped reading
    for (let s = 2; s <= 200; s++) {
      records.push({ kind: 'step', step: s });
      episodes = [
        {
          id: `e${s}`,
          origin: 'anchor',
          step: s,
          instruction: 'x',
          family: 'reach',
          split: 'train',
          success: false,
          steps: 3,
          policy: 'p',
          source: 'sim',
        },
      ];
      session.episodesChanged();
      session.flush();
    }
    assert.equal(socket.messages.length, 2, 'nothing is sent while the socket is backed up');
    socket.bufferedAmount = 0;
    await new Promise((r) => setTimeout(r, 40));
    const after = socket.messages.slice(2);
    assert.deepEqual(
      after.map((m) => m.type),
      ['metrics', 'episodes'],
      'one message per kind of stale state',
    );
    const m = after[0] as Extract<ServerMessage, { type: 'metrics' }>;
    assert.equal(m.from, 1);
    assert.deepEqual(
      m.records.map((r) => r.step),
      Array.from({ length: 199 }, (_, i) => i + 2),
    );
    assert.equal(
      (after[1] as Extract<ServerMessage, { type: 'episodes' }>).episodes[0]!.id,
      'e200',
      'the latest episode list only',
    );
    session.close();
  },
);

test('only the latest episode reply waits for a backed-up client; a metrics reset resends from 0', async () => {
  const records: MetricsRecord[] = [
    { kind: 'step', step: 1 },
    { kind: 'step', step: 2 },
  ];
  const socket = new SlowSocket();
  const session = new ClientSession(
    socket,
    { records: () => records, episodes: () => [], run: () => run },
    { highWaterMark: 1000, retryMs: 10 },
  );
  session.hello();
  socket.bufferedAmount = 5000;
  for (let r = 1; r <= 5; r++) session.episode({ type: 'error', request: r, message: `reply ${r}` });
  records.splice(0, records.length, { kind: 'step', step: 1 });
  session.metricsReset();
  socket.bufferedAmount = 0;
  await new Promise((r) => setTimeout(r, 40));
  const after = socket.messages.slice(2);
  assert.deepEqual(
    after.map((m) => m.type),
    ['metrics', 'error'],
  );
  assert.equal((after[0] as Extract<ServerMessage, { type: 'metrics' }>).from, 0);
  assert.equal((after[1] as Extract<ServerMessage, { type: 'error' }>).request, 5);
  session.close();
});

test("a robot's meshes go to a connection once; its later episodes arrive without them", () => {
  const meshes = [{ vertices: new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0]), faces: new Uint32Array([0, 1, 2]) }];
  const episode = (request: number): ServerMessage => ({
    type: 'episode',
    request,
    episode: {
      geoms: { count: 1, type: [7], size: [0, 0, 0], rgba: [1, 1, 1, 1], role: ['robot'], name: ['m'], visible: [1] },
    } as unknown as Extract<ServerMessage, { type: 'episode' }>['episode'],
  });
  const withMeshes = (m: ServerMessage, meshKey: string) => {
    const e = m as Extract<ServerMessage, { type: 'episode' }>;
    Object.assign(e.episode.geoms, { mesh: [0], meshKey, meshes });
    return m;
  };
  const shared = withMeshes(episode(1), 'arm:1');
  const sockets = [new SlowSocket(), new SlowSocket()];
  const sessions = sockets.map((s) => new ClientSession(s, { records: () => [], episodes: () => [], run: () => run }));
  sessions[0]!.episode(shared);
  sessions[0]!.episode(withMeshes(episode(2), 'arm:1'));
  sessions[0]!.episode(withMeshes(episode(3), 'other:1'));
  sessions[1]!.episode(shared);
  const got = (s: SlowSocket) =>
    s.messages.map((m) => (m as Extract<ServerMessage, { type: 'episode' }>).episode.geoms.meshes?.length ?? null);
  assert.deepEqual(got(sockets[0]!), [1, null, 1]);
  assert.deepEqual(got(sockets[1]!), [1], 'another connection gets them again');
  assert.equal(
    (shared as Extract<ServerMessage, { type: 'episode' }>).episode.geoms.meshes,
    meshes,
    'views are not changed',
  );
  for (const s of sessions) s.close();
});
