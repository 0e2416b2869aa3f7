/**
 * LeRobot import from datasets written by hand in LeRobot's own layouts (test/helpers/lerobotFixtures.ts):
 * v3.0 with an AV1 video packing both episodes, v2.1 with ALOHA-style names that need --map, and the
 * refusals that name what does not map.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, existsSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadRobot } from '../../src/core/robotDescription.ts';
import type { Episode } from '../../src/core/types.ts';
import { EpisodeStore } from '../../src/data/episodeStore.ts';
import { importLerobot } from '../../src/data/lerobot/lerobotImport.ts';
import { syntheticFrames, writeV21Fixture, writeV3Fixture, type FixtureEpisode } from '../helpers/lerobotFixtures.ts';

const dir = mkdtempSync(join(tmpdir(), 'wmrl-lerobot-import-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const robot = loadRobot('vx300');
const joints = robot.arm.joints;
// Per-tick joint moves: waist 0.05 of maxStep 0.1 → action 0.5; shoulder −0.02/0.1 → −0.2; the rest 0.03.
const delta = joints.map((_joint, i) => (i === 0 ? 0.05 : i === 1 ? -0.02 : 0.03));
const expectedArm = joints.map((j, i) => delta[i]! / j.maxStep);

/** An episode moving by `delta` each tick, its action the next tick's position (targets lead by one step). */
function episode(task: string, frames: number, seed: number, extraDims: number): FixtureEpisode {
  const state: number[][] = [];
  const action: number[][] = [];
  for (let t = 0; t < frames; t++) {
    const arm = robot.arm.home.map((h, i) => h + delta[i]! * t);
    const extra = Array.from({ length: extraDims }, () => 0.1 * seed);
    state.push([...arm, 0.8, ...extra]);
    action.push([...arm.map((a, i) => a + delta[i]!), 0.25, ...extra]);
  }
  return {
    task,
    state,
    action,
    reward: Array.from({ length: frames }, (_, t) => (t + 1) / frames),
    success: Array.from({ length: frames }, (_, t) => t === frames - 1),
    pixels: syntheticFrames(frames, 64, 64, seed),
  };
}

const meanAbs = (a: Uint8Array, b: Uint8Array) => a.reduce((s, v, i) => s + Math.abs(v - b[i]!), 0) / a.length;

async function read(out: string): Promise<Episode[]> {
  const episodes: Episode[] = [];
  for await (const e of (await EpisodeStore.open(out)).episodes()) episodes.push(e);
  return episodes;
}

const v3 = join(dir, 'v3');
const v3Episodes = [episode('pick up the red block', 6, 1, 1), episode('Reach the  blue ball', 9, 2, 1)];
const v21 = join(dir, 'v21');
const alohaNames = ['left_', 'right_'].flatMap((side) =>
  [...joints.map((j) => j.name), 'gripper'].map((n) => `${side}${n}`),
);
const v21Episodes = [episode('insert the peg into the socket', 5, 3, 7)];

before(async () => {
  await writeV3Fixture(v3, {
    fps: 10,
    names: [...joints.map((j) => `${j.name}.pos`), 'gripper.pos', 'extra_joint.pos'],
    camera: 'scene',
    width: 64,
    height: 64,
    episodes: v3Episodes,
  });
  await writeV21Fixture(v21, {
    fps: 10,
    names: alohaNames,
    namesAsMotors: true,
    camera: 'top',
    width: 64,
    height: 64,
    episodes: v21Episodes,
    effort: true,
  });
});

test('a v3.0 dataset laid out as LeRobot writes it (AV1, episodes packed in one file) imports', async () => {
  const out = join(dir, 'from-v3');
  const report = await importLerobot({ source: v3, out, robot });
  assert.equal(report.version, 'v3.0');
  assert.equal(report.exact, false);
  assert.deepEqual(report.mapped.slice(0, 2), ['waist ← waist.pos', 'shoulder ← shoulder.pos']);
  assert.ok(
    report.mapped.includes('gripper ← gripper.pos') && report.mapped.includes('scene ← observation.images.scene'),
  );
  assert.ok(
    report.unused.some((u) => u === 'observation.state: extra_joint.pos'),
    report.unused.join('; '),
  );
  assert.ok(report.unused.some((u) => u === 'action: extra_joint.pos'));
  assert.ok(
    report.notes.some((n) => n.includes('finite differences')),
    'no velocity feature: said so',
  );
  const episodes = await read(out);
  assert.equal(episodes.length, 2);
  for (const [k, e] of episodes.entries()) {
    const src = v3Episodes[k]!;
    const n = src.state.length;
    assert.equal(e.steps, n - 1, 'N frames are N − 1 steps');
    assert.equal(e.controlHz, 10);
    // Joint states: exact (float32), the extra dimension dropped; the gripper is an opening already.
    assert.deepEqual([...e.qpos], src.state.flatMap((s) => s.slice(0, 7)).map(Math.fround));
    // Actions: target − running target over maxStep = the per-tick move / maxStep; gripper 1 − 2 × 0.25.
    for (let t = 0; t < e.steps; t++) {
      for (let i = 0; i < 6; i++)
        assert.ok(Math.abs(e.actions[t * 7 + i]! - expectedArm[i]!) < 1e-4, `t ${t} joint ${i}`);
      assert.ok(Math.abs(e.actions[t * 7 + 6]! - 0.5) < 1e-6);
    }
    // qvel by finite differences: the move per tick × fps.
    assert.ok(Math.abs(e.qvel[7]! - delta[0]! * 10) < 1e-4);
    assert.ok(Math.abs(e.progress[e.steps]! - src.reward[n - 2]!) < 1e-6, 'progress[t+1] is next.reward[t]');
    assert.equal(e.success, false, 'next.success only at the last frame, whose step is dropped');
    // Frames: the episode's own span of the shared video (AV1 at crf 30: within its error).
    const err = meanAbs(e.cameras.scene!.frames, src.pixels);
    assert.ok(err < 6, `mean abs error ${err.toFixed(2)} of 255`);
    const other = v3Episodes[1 - k]!.pixels;
    assert.ok(err < meanAbs(e.cameras.scene!.frames.subarray(0, 6 * 64 * 64 * 3), other.subarray(0, 6 * 64 * 64 * 3)));
  }
  assert.deepEqual(
    episodes.map((e) => [e.task.family, e.task.color, e.task.object]),
    [
      ['pick', 'red', 'block'],
      ['reach', 'blue', 'ball'],
    ],
  );
});

test('v2.1: ALOHA names need --map, a foreign task keeps its words, what does not map is reported', async () => {
  const out = join(dir, 'from-v21');
  await assert.rejects(importLerobot({ source: v21, out, robot }), (err: Error) => {
    assert.match(err.message, /observation\.state: no dimension for wmrl joints waist, shoulder/);
    assert.match(err.message, /left_waist/);
    assert.match(err.message, /--map waist=NAME/);
    return true;
  });
  const map = Object.fromEntries([...joints.map((j) => j.name), 'gripper'].map((n) => [n, `left_${n}`]));
  // Any text is a task: without --task, episodes go under a family of the dataset's own texts, its file kept.
  const own = join(dir, 'own-texts');
  const ownReport = await importLerobot({
    source: v21,
    out: own,
    robot,
    map: { ...map, scene: 'observation.images.top' },
    family: 'peg',
  });
  assert.ok(ownReport.notes.some((n) => n.includes("under task family 'peg', the dataset's own 1 text")));
  const [mine] = await read(own);
  assert.deepEqual(mine?.task, {
    family: 'peg',
    template: 0,
    split: 'train',
    instruction: 'insert the peg into the socket',
  });
  assert.match(readFileSync(join(own, 'tasks', 'peg.yaml'), 'utf8'), /texts:\n\s+- insert the peg into the socket/);
  await assert.rejects(
    importLerobot({ source: v21, out, robot, map: { ...map, wrist_cam: 'x' } }),
    /neither a joint nor a camera/,
  );
  assert.equal(existsSync(out), false, 'refused imports write nothing');

  const report = await importLerobot({
    source: v21,
    out,
    robot,
    map: { ...map, scene: 'observation.images.top' },
    task: 'pick:red:block',
  });
  assert.equal(report.version, 'v2.1');
  assert.ok(
    report.unused.some((u) => u.startsWith('observation.state: right_waist, right_shoulder')),
    report.unused.join('; '),
  );
  assert.ok(report.unused.some((u) => u.startsWith('observation.effort')));
  assert.ok(report.notes.some((n) => n.includes('assigned --task pick:red:block')));
  const [e] = await read(out);
  assert.ok(e);
  assert.equal(e.task.instruction, 'insert the peg into the socket', 'the dataset’s own words are kept');
  assert.equal(e.steps, 4);
  assert.deepEqual([...e.qpos.subarray(0, 7)], v21Episodes[0]!.state[0]!.slice(0, 7).map(Math.fround));
  assert.ok(meanAbs(e.cameras.scene!.frames, v21Episodes[0]!.pixels) < 6);
});

test('bad input names the file and field', async () => {
  const infoFile = join(v3, 'meta/info.json');
  const info = JSON.parse(readFileSync(infoFile, 'utf8'));
  const bad = join(dir, 'bad-info');
  await writeV3Fixture(bad, {
    fps: 10,
    names: [...joints.map((j) => `${j.name}.pos`), 'gripper.pos'],
    camera: 'scene',
    width: 64,
    height: 64,
    episodes: [episode('pick up the red block', 3, 4, 0)],
  });
  writeFileSync(join(bad, 'meta/info.json'), JSON.stringify({ ...info, fps: 'ten' }));
  await assert.rejects(importLerobot({ source: bad, out: join(dir, 'x'), robot }), /meta\/info\.json: field 'fps'/);
  writeFileSync(join(bad, 'meta/info.json'), JSON.stringify(info));
  writeFileSync(join(bad, 'data/chunk-000/file-000.parquet'), 'not parquet');
  await assert.rejects(
    importLerobot({ source: bad, out: join(dir, 'x'), robot }),
    /data\/chunk-000\/file-000\.parquet: not a readable parquet file/,
  );
  await assert.rejects(
    importLerobot({ source: join(dir, 'nothing'), out: join(dir, 'x'), robot }),
    /no meta\/info\.json/,
  );
});
