import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { EpisodeStore } from '../../src/data/episodeStore.ts';
import { makeTestEpisode } from '../helpers/episodes.ts';
import { runWmrl } from '../helpers/wmrlProcess.ts';

const wmrl = (...args: string[]) => runWmrl(args);

/** An 8-bit RGB PNG read back: its size and pixels (every row filter type 0, as encodePng writes). */
function readPng(bytes: Buffer): { width: number; height: number; pixels: Uint8Array } {
  assert.deepEqual([...bytes.subarray(0, 8)], [137, 80, 78, 71, 13, 10, 26, 10], 'PNG signature');
  assert.equal(bytes.toString('latin1', 12, 16), 'IHDR');
  const width = bytes.readUInt32BE(16);
  const height = bytes.readUInt32BE(20);
  assert.deepEqual([bytes[24], bytes[25]], [8, 2], '8-bit RGB');
  const idat: Buffer[] = [];
  for (let at = 8; at < bytes.length; ) {
    const length = bytes.readUInt32BE(at);
    if (bytes.toString('latin1', at + 4, at + 8) === 'IDAT') idat.push(bytes.subarray(at + 8, at + 8 + length));
    at += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * 3;
  assert.equal(raw.length, (stride + 1) * height);
  const pixels = new Uint8Array(stride * height);
  for (let y = 0; y < height; y++) {
    assert.equal(raw[y * (stride + 1)], 0, 'filter type none');
    pixels.set(raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1)), y * stride);
  }
  return { width, height, pixels };
}

function colours(pixels: Uint8Array): number {
  const seen = new Set<number>();
  for (let i = 0; i < pixels.length; i += 3) seen.add((pixels[i]! << 16) | (pixels[i + 1]! << 8) | pixels[i + 2]!);
  return seen.size;
}

test('wmrl frames writes an episode frame as a PNG, upscaled, and several steps into a folder', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'wmrl-frames-'));
  try {
    const data = join(dir, 'demos');
    let r = await wmrl('collect', '--task', 'reach', '--episodes', '2', '--cameras', 'scene,wrist', '--out', data);
    assert.equal(r.code, 0, r.stderr);

    const png = join(dir, 'x.png');
    r = await wmrl('frames', data, '--episode', '1', '--out', png);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /camera scene, 256×256/);
    const image = readPng(readFileSync(png));
    assert.equal(image.width, 256, 'a 64×64 frame at the default scale 4');
    assert.equal(image.height, 256);
    assert.ok(colours(image.pixels) > 10, 'the frame shows a scene, not one colour');
    // Nearest-neighbour: every 4×4 block is one pixel of the frame.
    const at = (x: number, y: number) => image.pixels.subarray((y * 256 + x) * 3, (y * 256 + x) * 3 + 3).join();
    for (const [x, y] of [
      [40, 40],
      [128, 200],
    ])
      assert.equal(at(x! + 3, y! + 3), at(x!, y!));

    r = await wmrl(
      'frames',
      data,
      '--episode',
      '0',
      '--camera',
      'wrist',
      '--scale',
      '1',
      '--steps',
      '0,2',
      '--out',
      join(dir, 'f'),
    );
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(readdirSync(join(dir, 'f')).sort(), ['wrist-0000.png', 'wrist-0002.png']);
    const first = readPng(readFileSync(join(dir, 'f', 'wrist-0000.png')));
    assert.deepEqual([first.width, first.height], [64, 64]);
    assert.ok(colours(first.pixels) > 10);

    r = await wmrl('frames', data, '--episode', '2', '--out', png);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /no episode 2: .* holds 2 episodes \(--episode 0 … 1/);
    r = await wmrl('frames', data, '--episode', '0', '--camera', 'top', '--out', png);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /no camera 'top'; cameras: scene, wrist/);
    r = await wmrl('frames', data, '--episode', '0', '--step', '999', '--out', png);
    assert.match(r.stderr, /no step 999: episode .* has \d+ steps/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('wmrl frames on a dataset recorded without cameras says so', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'wmrl-frames-'));
  try {
    const data = join(dir, 'state-only');
    const store = await EpisodeStore.create(data, { robot: 'test-arm' });
    await store.append(makeTestEpisode({ cameras: [] }));
    await store.close();
    const r = await wmrl('frames', data, '--episode', '0', '--out', join(dir, 'x.png'));
    assert.equal(r.code, 2);
    assert.match(r.stderr, /has no camera images/);
    assert.deepEqual(readdirSync(dir), ['state-only'], 'nothing written');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
