import { afterEach, beforeEach, test } from 'node:test';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Episode } from '../../src/core/types.ts';
import { ChunkWriter, type ChunkIssue } from '../../src/data/chunkFile.ts';
import { DatasetError } from '../../src/data/datasetManifest.ts';
import { EpisodeStore, type EpisodeFilter } from '../../src/data/episodeStore.ts';
import { makeTestEpisode } from '../helpers/episodes.ts';

let root = '';
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'wmrl-store-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function collect(store: EpisodeStore, filter: EpisodeFilter = {}): Promise<Episode[]> {
  const out: Episode[] = [];
  for await (const ep of store.episodes({ onIssue: () => {}, ...filter })) out.push(ep);
  return out;
}

/** Every file under `dir` with its bytes (and the folder listing itself). */
async function snapshot(dir: string): Promise<Map<string, Buffer | 'dir'>> {
  const out = new Map<string, Buffer | 'dir'>();
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    const path = join(entry.parentPath, entry.name);
    out.set(path, entry.isDirectory() ? 'dir' : await readFile(path));
  }
  return out;
}

const episode = (i: number, extra: Parameters<typeof makeTestEpisode>[0] = {}) =>
  makeTestEpisode({ seed: i, steps: 3 + (i % 4), width: 4, height: 3, robot: 'arm-a', ...extra });

test('many episodes round trip across several chunks', async () => {
  const dir = join(root, 'ds');
  const store = await EpisodeStore.create(dir, { robot: 'arm-a', episodesPerChunk: 8 });
  const written = Array.from({ length: 45 }, (_, i) =>
    episode(i, {
      family: (['reach', 'push', 'pick'] as const)[i % 3],
      split: i % 5 === 0 ? 'test' : 'train',
      cameras: ['scene', 'wrist'],
    }),
  );
  for (const ep of written) await store.append(ep);
  // 5 full chunks are closed already; the 6th is still a .tmp until close().
  const before = await store.chunkFiles();
  assert.deepStrictEqual(
    before.map((c) => c.open),
    [false, false, false, false, false, true],
  );
  await store.close();
  const chunks = await store.chunkFiles();
  assert.deepStrictEqual(
    chunks.map((c) => c.name),
    [0, 1, 2, 3, 4, 5].map((n) => `chunk-00000${n}.wmrl`),
  );

  const reopened = await EpisodeStore.open(dir);
  assert.deepStrictEqual(await collect(reopened), written);
  assert.deepStrictEqual(
    await collect(reopened, { split: 'test', family: 'reach' }),
    written.filter((e) => e.task.split === 'test' && e.task.family === 'reach'),
  );

  const summary = await reopened.summary();
  assert.equal(summary.episodes, 45);
  assert.equal(summary.chunks, 6);
  assert.equal(summary.openChunks, 0);
  assert.equal(summary.aborted, 0);
  assert.equal(
    summary.totalSteps,
    written.reduce((n, e) => n + e.steps, 0),
  );
  // What the data cost on the robot: each step 1/controlHz seconds.
  assert.ok(Math.abs(summary.robotSeconds - written.reduce((n, e) => n + e.steps / e.controlHz, 0)) < 1e-9);
  assert.ok(summary.robotSeconds > 0);
  assert.equal(summary.successes, written.filter((e) => e.success).length);
  assert.equal(summary.groups.length, 6);
  const pushTrain = summary.groups.find((g) => g.family === 'push' && g.split === 'train')!;
  const expected = written.filter((e) => e.task.family === 'push' && e.task.split === 'train');
  assert.equal(pushTrain.episodes, expected.length);
  assert.equal(pushTrain.successRate, expected.filter((e) => e.success).length / expected.length);
  let bytes = 0;
  for (const name of await readdir(dir)) bytes += (await stat(join(dir, name))).size;
  assert.equal(summary.bytesOnDisk, bytes);
  assert.deepStrictEqual(summary.issues, []);
});

test('aborted episodes are not served unless asked for', async () => {
  const store = await EpisodeStore.create(join(root, 'ds'), { robot: 'arm-a', episodesPerChunk: 3 });
  const written = Array.from({ length: 7 }, (_, i) => episode(i, { status: i % 3 === 1 ? 'aborted' : 'complete' }));
  for (const ep of written) await store.append(ep);
  await store.close();
  const served = await collect(store);
  assert.deepStrictEqual(
    served,
    written.filter((e) => e.status === 'complete'),
  );
  assert.ok(served.every((e) => e.status !== 'aborted'));
  assert.deepStrictEqual(await collect(store, { split: 'train' }), served);
  assert.deepStrictEqual(await collect(store, { includeAborted: true }), written);
  const summary = await store.summary();
  assert.equal(summary.aborted, 2);
  assert.equal(summary.episodes, 5);
});

test("append refuses an invalid episode or another robot's episode and writes nothing", async () => {
  const dir = join(root, 'ds');
  const store = await EpisodeStore.create(dir, { robot: 'arm-a' });
  await assert.rejects(store.append(episode(1, { robot: 'arm-b' })), DatasetError);
  const bad = episode(2);
  await assert.rejects(store.append({ ...bad, actions: new Float32Array(1) }), /field 'actions'/);
  await store.close();
  assert.deepStrictEqual(await readdir(dir), ['dataset.json']);
});

test('openForAppend creates, appends, and refuses other robots and foreign folders without changing them', async () => {
  // Absent folder: created.
  const dir = join(root, 'ds');
  const a = await EpisodeStore.openForAppend(dir, { robot: 'arm-a', episodesPerChunk: 2 });
  for (const i of [1, 2, 3]) await a.append(episode(i));
  await a.close();
  // Same robot: appends.
  const b = await EpisodeStore.openForAppend(dir, { robot: 'arm-a', episodesPerChunk: 2 });
  await b.append(episode(4));
  await b.close();
  assert.deepStrictEqual(
    (await collect(b)).map((e) => e.seed),
    [1, 2, 3, 4],
  );
  // Empty folder: created.
  const empty = join(root, 'empty');
  await mkdir(empty);
  assert.equal((await EpisodeStore.openForAppend(empty, { robot: 'arm-b' })).robot, 'arm-b');

  // Another robot's dataset: refused, nothing changed.
  const before = await snapshot(dir);
  await assert.rejects(EpisodeStore.openForAppend(dir, { robot: 'arm-b' }), (err) => {
    assert.ok(err instanceof DatasetError);
    assert.match(err.message, /robot 'arm-a'/);
    assert.match(err.message, /'arm-b'/);
    return true;
  });
  assert.deepStrictEqual(await snapshot(dir), before);

  // Killed while the dataset was created, before the manifest's rename: only its temp file is
  // there. Nothing was ever stored, so the dataset is created (the crash test once hit this).
  const killed = join(root, 'killed');
  await mkdir(killed);
  await writeFile(join(killed, 'dataset.json.0f452dce-7b13-4772-a37a-27fb1b304f4e.tmp'), '{"form');
  const reopened = await EpisodeStore.openForAppend(killed, { robot: 'arm-a' });
  await reopened.append(episode(1));
  await reopened.close();
  assert.deepStrictEqual(
    (await readdir(killed)).filter((e) => e.endsWith('.tmp')),
    [],
  );
  // The same temp beside anything else is not that case: refused.
  const mixed = join(root, 'mixed');
  await mkdir(mixed);
  await writeFile(join(mixed, 'dataset.json.0f452dce-7b13-4772-a37a-27fb1b304f4e.tmp'), '{');
  await writeFile(join(mixed, 'notes.txt'), 'mine');
  await assert.rejects(EpisodeStore.openForAppend(mixed, { robot: 'arm-a' }), /not a wmrl dataset/);
  assert.equal((await readdir(mixed)).length, 2);

  // A folder with foreign files: refused, nothing changed.
  const foreign = join(root, 'foreign');
  await mkdir(join(foreign, 'sub'), { recursive: true });
  await writeFile(join(foreign, 'notes.txt'), 'my notes');
  await writeFile(join(foreign, 'sub', 'data.bin'), Buffer.from([1, 2, 3]));
  const foreignBefore = await snapshot(foreign);
  await assert.rejects(EpisodeStore.openForAppend(foreign, { robot: 'arm-a' }), (err) => {
    assert.ok(err instanceof DatasetError);
    assert.match(err.message, /not a wmrl dataset/);
    assert.match(err.message, /notes\.txt/);
    return true;
  });
  await assert.rejects(EpisodeStore.create(foreign, { robot: 'arm-a' }), DatasetError);
  assert.deepStrictEqual(await snapshot(foreign), foreignBefore);

  // A dataset.json that is not a wmrl manifest: refused, nothing changed.
  const fake = join(root, 'fake');
  await mkdir(fake);
  await writeFile(join(fake, 'dataset.json'), JSON.stringify({ format: 'something-else', version: 3 }));
  const fakeBefore = await snapshot(fake);
  await assert.rejects(EpisodeStore.openForAppend(fake, { robot: 'arm-a' }), /field 'format'/);
  assert.deepStrictEqual(await snapshot(fake), fakeBefore);

  // A file where the folder should be.
  const file = join(root, 'file');
  await writeFile(file, 'x');
  await assert.rejects(EpisodeStore.openForAppend(file, { robot: 'arm-a' }), DatasetError);
  assert.equal(await readFile(file, 'utf8'), 'x');
});

test('a leftover .tmp chunk is recovered and never overwritten by a new writer', async () => {
  const dir = join(root, 'ds');
  const first = await EpisodeStore.create(dir, { robot: 'arm-a', episodesPerChunk: 4 });
  const closed = [1, 2, 3, 4].map((i) => episode(i));
  for (const ep of closed) await first.append(ep);
  await first.close();

  // Simulate a crash: a writer wrote chunk 1 as .tmp and died while writing its 4th record.
  const crashed = [5, 6, 7].map((i) => episode(i));
  const tmp = join(dir, 'chunk-000001.wmrl.tmp');
  const writer = await ChunkWriter.create(tmp, {
    schema: 1,
    robot: 'arm-a',
    createdAt: 'x',
    datasetId: first.manifest.datasetId,
  });
  for (const ep of crashed) await writer.append(ep);
  const lastStart = writer.bytes;
  await writer.append(episode(8));
  const cutAt = lastStart + 20;
  const fullSize = writer.bytes;
  await writer.close();
  await truncate(tmp, cutAt);
  const tmpBytes = await readFile(tmp);

  const issues: ChunkIssue[] = [];
  const reader = await EpisodeStore.open(dir);
  assert.deepStrictEqual(await collect(reader, { onIssue: (i) => issues.push(i) }), [...closed, ...crashed]);
  assert.equal(issues.length, 1);
  assert.equal(issues[0]!.kind, 'truncated');
  assert.equal(issues[0]!.file, tmp);
  assert.equal(issues[0]!.offset, lastStart);
  assert.equal(issues[0]!.bytesDropped, 20);
  assert.ok(fullSize > cutAt);

  // A new writer takes the next free number and leaves the .tmp alone.
  const second = await EpisodeStore.openForAppend(dir, { robot: 'arm-a', episodesPerChunk: 4 });
  const later = [9, 10].map((i) => episode(i));
  for (const ep of later) await second.append(ep);
  await second.close();
  assert.deepStrictEqual(
    (await second.chunkFiles()).map((c) => c.name),
    ['chunk-000000.wmrl', 'chunk-000001.wmrl.tmp', 'chunk-000002.wmrl'],
  );
  assert.deepStrictEqual(await readFile(tmp), tmpBytes);
  assert.deepStrictEqual(await collect(second), [...closed, ...crashed, ...later]);

  const summary = await second.summary();
  assert.equal(summary.episodes, 9);
  assert.equal(summary.chunks, 2);
  assert.equal(summary.openChunks, 1);
  assert.equal(summary.issues.length, 1);
  assert.equal(summary.issues[0]!.bytesDropped, 20);
});

test('a closed chunk that is cut short is an error, not a silent loss', async () => {
  const dir = join(root, 'ds');
  const store = await EpisodeStore.create(dir, { robot: 'arm-a', episodesPerChunk: 4 });
  for (const i of [1, 2, 3]) await store.append(episode(i));
  await store.close();
  const chunk = join(dir, 'chunk-000000.wmrl');
  await truncate(chunk, (await stat(chunk)).size - 5);
  await assert.rejects(collect(store), (err: Error) => err.message.startsWith(`${chunk}: record 2 at byte offset`));
});

test('a chunk from another dataset is refused', async () => {
  const a = await EpisodeStore.create(join(root, 'a'), { robot: 'arm-a' });
  await a.append(episode(1));
  await a.close();
  const b = await EpisodeStore.create(join(root, 'b'), { robot: 'arm-a' });
  await writeFile(join(root, 'b', 'chunk-000000.wmrl'), await readFile(join(root, 'a', 'chunk-000000.wmrl')));
  await assert.rejects(collect(b), /chunk belongs to robot 'arm-a' dataset/);
});

test('overlapping appends are serialised', async () => {
  const store = await EpisodeStore.create(join(root, 'ds'), { robot: 'arm-a', episodesPerChunk: 3 });
  const written = Array.from({ length: 10 }, (_, i) => episode(i));
  await Promise.all(written.map((ep) => store.append(ep)));
  await store.close();
  assert.deepStrictEqual(await collect(store), written);
});

test('a writer killed mid-run leaves a .tmp whose complete episodes are all served', async () => {
  const dir = join(root, 'ds');
  const script = `
    import { EpisodeStore } from ${JSON.stringify(new URL('../../src/data/episodeStore.ts', import.meta.url).href)};
    import { makeTestEpisode } from ${JSON.stringify(new URL('../helpers/episodes.ts', import.meta.url).href)};
    const store = await EpisodeStore.create(${JSON.stringify(dir)}, { robot: 'arm-a', episodesPerChunk: 100000 });
    for (let i = 0; ; i++) {
      await store.append(makeTestEpisode({ seed: i, steps: 3 + (i % 4), width: 40, height: 30, robot: 'arm-a' }));
      if (i === 20) process.stdout.write('go\\n');
    }`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`writer exited early with ${code}`)));
  });
  child.kill('SIGKILL');
  await once(child, 'exit');

  const store = await EpisodeStore.open(dir);
  const chunks = await store.chunkFiles();
  assert.deepStrictEqual(
    chunks.map((c) => c.name),
    ['chunk-000000.wmrl.tmp'],
  );
  const served = await collect(store);
  assert.ok(served.length > 20, `served ${served.length}`);
  assert.deepStrictEqual(
    served,
    served.map((_, i) => episode(i, { width: 40, height: 30 })),
  );
});

test("the summary says how many steps a family's successes took (median, 95th percentile, max)", async () => {
  const dir = join(root, 'lengths');
  const store = await EpisodeStore.create(dir, { robot: 'arm-a' });
  // Successes of 1..20 steps (nearest rank: median the 10th, 95th percentile the 19th);
  // failures of 40 steps must not count.
  for (let i = 1; i <= 20; i++) await store.append(episode(i, { steps: i, success: true }));
  for (let i = 21; i <= 23; i++) await store.append(episode(i, { steps: 40, success: false }));
  await store.append(episode(30, { family: 'push', steps: 40, success: false }));
  await store.close();
  const { groups } = await (await EpisodeStore.open(dir)).summary();
  assert.deepStrictEqual(groups.find((g) => g.family === 'reach')!.successSteps, { median: 10, p95: 19, max: 20 });
  assert.equal(groups.find((g) => g.family === 'push')!.successSteps, null, 'no success, no lengths');
});
