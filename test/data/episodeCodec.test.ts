import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeEpisode, encodeEpisode, EpisodeValidationError } from '../../src/data/episodeCodec.ts';
import type { Episode } from '../../src/core/types.ts';
import { makeTestEpisode } from '../helpers/episodes.ts';

function rejects(fn: () => unknown, field: string): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof EpisodeValidationError, `expected EpisodeValidationError, got ${String(err)}`);
    assert.equal(err.field, field);
    assert.ok(err.message.includes(`'${field}'`), err.message);
    return true;
  });
}

test('round trip keeps every field and typed array class', () => {
  for (const opts of [
    {},
    { family: 'push' as const, cameras: ['scene', 'wrist'], seed: 2 ** 40 },
    { steps: 0, stateDim: 0, cameras: [] },
    { status: 'aborted' as const, split: 'test' as const, width: 5, height: 3 },
  ]) {
    const ep = makeTestEpisode(opts);
    const back = decodeEpisode(encodeEpisode(ep));
    assert.deepStrictEqual(back, ep);
    assert.ok(back.qpos instanceof Float32Array && back.qpos.byteOffset === 0);
    assert.ok(Object.values(back.cameras).every((c) => c.frames.constructor === Uint8Array));
  }
});

test('decoded arrays are aligned copies, not views into the payload', () => {
  const payload = encodeEpisode(makeTestEpisode());
  // Put the payload at an odd offset in a larger buffer.
  const big = new Uint8Array(payload.length + 3);
  big.set(payload, 3);
  const back = decodeEpisode(big.subarray(3));
  assert.notEqual(back.qpos.buffer, big.buffer);
  assert.equal(back.qpos.byteOffset, 0);
});

test('encode refuses episodes that break a shape invariant, naming the field', () => {
  const ep = makeTestEpisode({ steps: 4 });
  rejects(() => encodeEpisode({ ...ep, qpos: ep.qpos.subarray(1) }), 'qpos');
  rejects(() => encodeEpisode({ ...ep, actions: new Float32Array(3) }), 'actions');
  rejects(() => encodeEpisode({ ...ep, progress: new Float32Array(4) }), 'progress');
  rejects(
    () => encodeEpisode({ ...ep, cameras: { scene: { width: 8, height: 8, frames: new Uint8Array(10) } } }),
    'cameras.scene.frames',
  );
  const nan = Float32Array.from(ep.qvel);
  nan[3] = NaN;
  rejects(() => encodeEpisode({ ...ep, qvel: nan }), 'qvel');
  rejects(() => encodeEpisode({ ...ep, task: { ...ep.task, family: 'fly' } } as unknown as Episode), 'task.family');
  rejects(() => encodeEpisode({ ...ep, qpos: Array.from(ep.qpos) } as unknown as Episode), 'qpos');
  rejects(() => encodeEpisode({ ...ep, steps: -1 }), 'steps');
});

test('decode rejects garbage and wrongly shaped payloads, naming the field', async () => {
  const { Packr } = await import('msgpackr');
  const packr = new Packr({ useRecords: false, structuredClone: false, moreTypes: false });
  rejects(() => decodeEpisode(new Uint8Array([0xc1, 0x00])), '(payload)');
  rejects(() => decodeEpisode(packr.pack([1, 2, 3])), '(root)');
  const ep = makeTestEpisode();
  const raw = packr.unpack(encodeEpisode(ep)) as Record<string, unknown>;
  rejects(() => decodeEpisode(packr.pack({ ...raw, steps: 6 })), 'qpos');
  rejects(() => decodeEpisode(packr.pack({ ...raw, qvel: new Uint8Array(5) })), 'qvel');
  rejects(() => decodeEpisode(packr.pack({ ...raw, robot: 7 })), 'robot');
  rejects(() => decodeEpisode(packr.pack({ ...raw, cameras: { '__proto__x': raw.cameras } })), 'cameras.__proto__x');
});

test('decode checks the task with the one TaskSpec schema: unknown family, push without zone colour', async () => {
  const { Packr } = await import('msgpackr');
  const packr = new Packr({ useRecords: false, structuredClone: false, moreTypes: false });
  const raw = packr.unpack(encodeEpisode(makeTestEpisode({ family: 'push' }))) as Record<string, unknown>;
  const task = raw.task as Record<string, unknown>;
  const { zoneColor: _, ...noZone } = task;
  rejects(() => decodeEpisode(packr.pack({ ...raw, task: { ...task, family: 'stack' } })), 'task.family');
  rejects(() => decodeEpisode(packr.pack({ ...raw, task: noZone })), 'task.zoneColor');
  rejects(() => decodeEpisode(packr.pack({ ...raw, task: { ...task, object: 'ball' } })), 'task.object');
  assert.equal(decodeEpisode(packr.pack(raw)).task.zoneColor, 'blue');
});
