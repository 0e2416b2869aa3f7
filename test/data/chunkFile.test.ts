import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ChunkReader,
  ChunkWriter,
  CorruptEpisodeFileError,
  readChunkFile,
  type ChunkHeader,
  type ChunkIssue,
  type ChunkReadOptions,
  type ChunkRecord,
} from '../../src/data/chunkFile.ts';
import { makeTestEpisode } from '../helpers/episodes.ts';

const header: ChunkHeader = { schema: 1, robot: 'test-arm', createdAt: '2025-01-01T00:00:00.000Z', datasetId: 'ds-1' };
let dir = '';
let file = '';
let bytes: Buffer;
/** Byte offset where each record starts, and the file size. */
const recordStarts: number[] = [];
let dataStart = 0;
const episodes = Array.from({ length: 6 }, (_, i) =>
  makeTestEpisode({ seed: 100 + i, steps: 2 + (i % 3), width: 3, height: 2 }),
);

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wmrl-chunk-'));
  file = join(dir, 'chunk-000000.wmrl');
  const writer = await ChunkWriter.create(file, header);
  dataStart = writer.bytes;
  for (const ep of episodes) recordStarts.push(await writer.append(ep));
  await writer.sync();
  await writer.close();
  bytes = await readFile(file);
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function readAll(
  path: string,
  options: ChunkReadOptions = {},
): Promise<{ records: ChunkRecord[]; issues: ChunkIssue[] }> {
  const issues: ChunkIssue[] = [];
  const records: ChunkRecord[] = [];
  for await (const r of readChunkFile(path, { ...options, onIssue: (i) => issues.push(i) })) records.push(r);
  return { records, issues };
}

function assertCorrupt(err: unknown, path: string, offset: number, reason: RegExp): true {
  assert.ok(err instanceof CorruptEpisodeFileError, `expected CorruptEpisodeFileError, got ${String(err)}`);
  assert.equal(err.file, path);
  assert.equal(err.offset, offset);
  assert.ok(err.message.startsWith(`${path}: `), err.message);
  assert.ok(err.message.includes(`at byte offset ${offset} is corrupt`), err.message);
  assert.match(err.reason, reason);
  return true;
}

test('writer refuses to overwrite an existing file', async () => {
  await assert.rejects(ChunkWriter.create(file, header), { code: 'EEXIST' });
});

test('reads back every episode with its offset', async () => {
  const reader = await ChunkReader.open(file);
  assert.deepStrictEqual(reader.header, header);
  const got: ChunkRecord[] = [];
  for await (const r of reader.records()) got.push(r);
  assert.deepStrictEqual(
    got.map((r) => r.episode),
    episodes,
  );
  assert.deepStrictEqual(
    got.map((r) => r.offset),
    recordStarts,
  );
  assert.deepStrictEqual(
    got.map((r) => r.index),
    [0, 1, 2, 3, 4, 5],
  );
});

test('a file cut at any point yields exactly the complete episodes before the cut', async () => {
  const cutFile = join(dir, 'cut.wmrl.tmp');
  const ends = [...recordStarts.slice(1), bytes.length];
  // Every cut through the header and near each record boundary, and a stride through the rest.
  const cuts = new Set<number>();
  for (let c = 0; c <= dataStart + 12; c++) cuts.add(c);
  for (const b of ends) for (let c = b - 9; c <= b + 9; c++) cuts.add(c);
  for (let c = 0; c < bytes.length; c += 31) cuts.add(c);
  for (const cut of [...cuts].filter((c) => c >= 0 && c <= bytes.length).sort((a, b) => a - b)) {
    await writeFile(cutFile, bytes.subarray(0, cut));
    const complete = ends.filter((e) => e <= cut).length;
    const { records, issues } = await readAll(cutFile, { recoverTruncated: true });
    assert.deepStrictEqual(
      records.map((r) => r.episode),
      episodes.slice(0, complete),
      `cut at ${cut}`,
    );
    const lastEnd = complete > 0 ? ends[complete - 1]! : cut >= dataStart ? dataStart : 0;
    // A file shorter than its header (even an empty one) always reports; a cut between records cannot be seen.
    const onBoundary = cut >= dataStart && cut === lastEnd;
    if (onBoundary) {
      assert.equal(issues.length, 0, `cut at ${cut} is on a record boundary`);
    } else {
      assert.equal(issues.length, 1, `cut at ${cut}`);
      const issue = issues[0]!;
      assert.equal(issue.kind, 'truncated');
      assert.equal(issue.bytesDropped, cut - lastEnd, `cut at ${cut}`);
      assert.equal(issue.offset, lastEnd);
      assert.equal(issue.record, cut < dataStart ? null : complete);
    }
    // Without recoverTruncated, a cut inside a record or the header is an error naming where.
    if (!onBoundary) {
      await assert.rejects(readAll(cutFile), (err) =>
        assertCorrupt(err, cutFile, cut < dataStart ? 0 : lastEnd, /truncated/),
      );
    }
  }
});

test('a flipped byte in a record is detected with the file and the record offset', async () => {
  const k = 3;
  const bad = join(dir, 'flipped.wmrl');
  const corrupted = Buffer.from(bytes);
  const at = recordStarts[k]! + 8 + 40; // inside record k's payload
  corrupted[at]! ^= 0x10;
  await writeFile(bad, corrupted);
  await assert.rejects(readAll(bad), (err) => {
    assertCorrupt(err, bad, recordStarts[k]!, /^CRC32 mismatch \(stored 0x[0-9a-f]{8}, computed 0x[0-9a-f]{8}\)$/);
    assert.equal((err as CorruptEpisodeFileError).record, k);
    assert.ok(
      (err as Error).message.includes(`record ${k} at byte offset ${recordStarts[k]} is corrupt: CRC32 mismatch`),
    );
    return true;
  });
  // recoverTruncated does not hide corruption in the middle.
  await assert.rejects(readAll(bad, { recoverTruncated: true }), CorruptEpisodeFileError);
  // skipCorrupt skips exactly that record and reports it.
  const { records, issues } = await readAll(bad, { skipCorrupt: true });
  assert.deepStrictEqual(
    records.map((r) => r.episode),
    episodes.filter((_, i) => i !== k),
  );
  assert.equal(issues.length, 1);
  assert.equal(issues[0]!.kind, 'skipped');
  assert.equal(issues[0]!.offset, recordStarts[k]);
});

test('every flipped byte in record prefixes and payloads is detected', async () => {
  const bad = join(dir, 'flip-any.wmrl');
  const spots = new Set<number>();
  // the 8-byte prefix and just after
  for (const start of recordStarts) for (let i = 0; i < 10; i++) spots.add(start + i);
  for (let at = dataStart; at < bytes.length; at += 17) spots.add(at);
  spots.add(bytes.length - 1);
  for (const at of spots) {
    const corrupted = Buffer.from(bytes);
    corrupted[at]! ^= 0x01;
    await writeFile(bad, corrupted);
    const k = recordStarts.filter((s) => s <= at).length - 1;
    await assert.rejects(readAll(bad), (err) => assertCorrupt(err, bad, recordStarts[k]!, /./), `flip at ${at}`);
  }
});

test('a flipped header byte is detected', async () => {
  const bad = join(dir, 'header.wmrl');
  for (let at = 0; at < dataStart; at++) {
    const corrupted = Buffer.from(bytes);
    corrupted[at]! ^= 0x04;
    await writeFile(bad, corrupted);
    await assert.rejects(
      readAll(bad),
      (err) => {
        assert.ok(err instanceof CorruptEpisodeFileError, `flip at ${at}: ${String(err)}`);
        assert.equal(err.file, bad);
        assert.equal(err.record, null);
        assert.ok(err.message.startsWith(`${bad}: header at byte offset`), err.message);
        return true;
      },
      `flip at ${at}`,
    );
  }
});

test('a record length above the cap is refused before allocating', async () => {
  const bad = join(dir, 'huge.wmrl');
  const corrupted = Buffer.from(bytes);
  corrupted.writeUInt32LE(0xfffffff0, recordStarts[1]!);
  await writeFile(bad, corrupted);
  await assert.rejects(readAll(bad), (err) =>
    assertCorrupt(err, bad, recordStarts[1]!, /record length 4294967280 is outside/),
  );
  await assert.rejects(readAll(bad, { recoverTruncated: true }), CorruptEpisodeFileError);
  const { records, issues } = await readAll(bad, { skipCorrupt: true });
  assert.deepStrictEqual(
    records.map((r) => r.episode),
    episodes.slice(0, 1),
  );
  assert.equal(issues[0]?.bytesDropped, bytes.length - recordStarts[1]!);
});

test('a non-chunk file is refused with a clear message', async () => {
  const bad = join(dir, 'notes.txt');
  await writeFile(bad, 'hello world, not a chunk');
  await assert.rejects(readAll(bad, { recoverTruncated: true }), (err) => assertCorrupt(err, bad, 0, /bad magic/));
});
