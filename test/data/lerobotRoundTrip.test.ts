/**
 * wmrl → LeRobot → wmrl on simulator episodes: actions, joint states and every episode field come
 * back exactly; frames within the codec's error (H.264 yuv420p, and the lossless 4:4:4 mode within 1).
 * The export is laid out as LeRobot v3.0 reads it, leaves aborted episodes out, and the CLI runs it.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadRobot } from '../../src/core/robotDescription.ts';
import type { Episode } from '../../src/core/types.ts';
import { EpisodeStore } from '../../src/data/episodeStore.ts';
import { actionsFromTargets, targetsFromActions } from '../../src/data/lerobot/actionConversion.ts';
import { exportLerobot } from '../../src/data/lerobot/lerobotExport.ts';
import { importLerobot } from '../../src/data/lerobot/lerobotImport.ts';
import { readParquet } from '../../src/data/lerobot/parquetTable.ts';
import { collectMixedEpisodes } from '../helpers/simEpisodes.ts';

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'wmrl-lerobot-rt-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const robot = loadRobot('vx300');
const wmrlDir = join(dir, 'wmrl');
let episodes: Episode[] = [];

before(async () => {
  episodes = await collectMixedEpisodes({ families: ['reach', 'push'], perKind: 1, seed: 11 });
  const store = await EpisodeStore.create(wmrlDir, { robot: 'vx300' });
  await store.append({ ...episodes[0]!, id: 'cut-off', status: 'aborted' });
  for (const e of episodes) await store.append(e);
  await store.close();
});

async function read(out: string): Promise<Episode[]> {
  const back: Episode[] = [];
  for await (const e of (await EpisodeStore.open(out)).episodes({ includeAborted: true })) back.push(e);
  return back;
}

function frameError(a: Uint8Array, b: Uint8Array): { mean: number; max: number } {
  let sum = 0;
  let max = 0;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(a[i]! - b[i]!);
    sum += d;
    if (d > max) max = d;
  }
  return { mean: sum / a.length, max };
}

test('export then import: the same episodes, actions and joint states exact, frames within the codec', async () => {
  const out = join(dir, 'lerobot');
  const report = await exportLerobot({ source: wmrlDir, out });
  assert.equal(report.episodes, episodes.length);
  assert.equal(report.aborted, 1, 'the aborted attempt is left out');
  assert.equal(
    report.frames,
    episodes.reduce((n, e) => n + e.steps + 1, 0),
  );

  // LeRobot v3.0's layout and bookkeeping.
  const info = JSON.parse(readFileSync(join(out, 'meta/info.json'), 'utf8'));
  assert.equal(info.codebase_version, 'v3.0');
  assert.equal(info.total_frames, report.frames);
  assert.deepEqual(info.features['observation.state'].names, [...robot.arm.joints.map((j) => j.name), 'gripper']);
  assert.equal(info.features['observation.images.scene'].info['video.codec'], 'h264');
  const data = await readParquet(join(out, 'data/chunk-000/file-000.parquet'));
  for (const c of ['observation.state', 'action', 'timestamp', 'frame_index', 'episode_index', 'index', 'task_index']) {
    assert.ok(data.columns.includes(c), c);
  }
  assert.deepEqual(
    data.rows.map((r) => Number(r.index)),
    data.rows.map((_, i) => i),
  );
  const meta = await readParquet(join(out, 'meta/episodes/chunk-000/file-000.parquet'));
  assert.equal(meta.rows[1]!.dataset_from_index, BigInt(episodes[0]!.steps + 1));
  assert.equal(meta.rows[1]!['videos/observation.images.scene/from_timestamp'], (episodes[0]!.steps + 1) / 10);
  assert.ok(meta.columns.includes('stats/observation.state/mean'));
  const tasks = await readParquet(join(out, 'meta/tasks.parquet'));
  assert.deepEqual(tasks.columns, ['task_index', 'task']);
  assert.ok(
    JSON.parse(readFileSync(join(out, 'meta/stats.json'), 'utf8'))['observation.images.scene'].mean.length === 3,
  );

  const back = join(dir, 'back');
  const imported = await importLerobot({ source: out, out: back, robot });
  assert.equal(imported.exact, true);
  assert.deepEqual(imported.unused, []);
  const got = await read(back);
  assert.equal(got.length, episodes.length);
  for (const [k, e] of episodes.entries()) {
    const b = got[k]!;
    const { cameras, createdAt, ...fields } = e;
    const { cameras: bCameras, createdAt: bCreated, ...bFields } = b;
    assert.deepEqual(bFields, fields, `episode ${e.id}: every field but the frames exact`);
    assert.equal(bCreated, createdAt);
    const err = frameError(bCameras.scene!.frames, cameras.scene!.frames);
    // H.264 yuv420p: colour at half resolution blurs the 64×64 scene's sharp colour edges.
    assert.ok(err.mean < 3.5, `mean abs error ${err.mean.toFixed(2)} of 255`);
  }
});

test('lossless video: frames within 2 of the source (8-bit RGB ⇄ YUV rounding)', async () => {
  const out = join(dir, 'lossless');
  await exportLerobot({ source: wmrlDir, out, quality: 'lossless' });
  const back = join(dir, 'lossless-back');
  await importLerobot({ source: out, out: back, robot });
  const got = await read(back);
  for (const [k, e] of episodes.entries()) {
    const err = frameError(got[k]!.cameras.scene!.frames, e.cameras.scene!.frames);
    assert.ok(err.max <= 2 && err.mean < 0.6, `max error ${err.max}, mean ${err.mean.toFixed(2)}`);
  }
});

test('absolute targets and normalised actions convert back and forth (worked numbers)', () => {
  // Two ticks from home: waist +0.5 of its 0.1 maxStep, then −1; gripper half closed (opening 0.5 target).
  const d = 7;
  const qpos = new Float32Array(3 * d);
  for (let t = 0; t < 3; t++) qpos.set([...robot.arm.home, 1], t * d);
  const actions = new Float32Array(2 * d);
  actions.set([0.5, 0, 0, 0, 0, 0, 0], 0);
  actions.set([-1, 0, 0, 0, 0, 0, 0], d);
  const targets = targetsFromActions(robot, { steps: 2, qpos, qposDim: d, actions, actionDim: d });
  assert.ok(Math.abs(targets[0]! - 0.05) < 1e-7, 'waist target home + 0.5 × 0.1');
  assert.ok(Math.abs(targets[d]! - -0.05) < 1e-7, 'then 0.05 − 0.1');
  assert.ok(Math.abs(targets[2 * d]! - -0.05) < 1e-7, 'the last frame holds');
  // Gripper: action 0 = half closed; the slew limit (maxStep 0.036 m of 0.036 m travel) allows it in one tick.
  assert.ok(Math.abs(targets[6]! - 0.5) < 1e-6);
  const back = actionsFromTargets(robot, { steps: 2, qpos, qposDim: d, targets });
  assert.equal(back.clipped, 0);
  for (let i = 0; i < actions.length; i++) assert.ok(Math.abs(back.actions[i]! - actions[i]!) < 1e-5, `value ${i}`);
  // A target 0.3 rad away is three maxSteps: clipped to 1 and counted.
  const far = new Float32Array(targets);
  far[0] = 0.3;
  assert.equal(actionsFromTargets(robot, { steps: 1, qpos, qposDim: d, targets: far }).clipped, 1);
});

test('wmrl export lerobot / import lerobot on the command line; a non-empty --out is refused untouched', async () => {
  const bin = resolve('bin/wmrl.js');
  const out = join(dir, 'cli-lerobot');
  let r = await run(process.execPath, [bin, 'export', 'lerobot', wmrlDir, '--out', out]);
  assert.match(r.stdout, /exported 3 episodes .* as LeRobot v3\.0/);
  assert.match(r.stdout, /1 aborted episodes left out/);
  r = await run(process.execPath, [bin, 'import', 'lerobot', out, '--out', join(dir, 'cli-back')]);
  assert.match(r.stdout, /imported 3 episodes .*restored exactly/);
  assert.match(r.stdout, /mapped: waist ← waist/);
  const full = join(dir, 'full');
  mkdirSync(full);
  writeFileSync(join(full, 'keep.txt'), 'mine');
  await assert.rejects(
    run(process.execPath, [bin, 'export', 'lerobot', wmrlDir, '--out', full]),
    (err: { stderr: string }) => {
      assert.match(err.stderr, /refusing to write to .*full: the folder is not empty/);
      return true;
    },
  );
  assert.deepEqual(readdirSync(full), ['keep.txt']);
  assert.equal(readdirSync(dir).filter((n) => n.includes('.partial-')).length, 0, 'no staging folder left behind');
});
