/**
 * LeRobot datasets in record-test's image (an SO-101 recorded by LeRobot: so101_follower, `<joint>.pos` names,
 * arm on LeRobot's calibrated −100…100 range, gripper 0…100, no reward columns), made here: joint units
 * (declared, detected, refused), the dataset's fps against the robot's controlHz, camera choice, and the
 * round trip LeRobot → wmrl → LeRobot giving back the names, robot_type, units, every frame and the size.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadRobot } from '../../src/core/robotDescription.ts';
import type { Episode } from '../../src/core/types.ts';
import { EpisodeStore } from '../../src/data/episodeStore.ts';
import { aggregateStats, episodeStats, histogramQuantiles } from '../../src/data/lerobot/featureStats.ts';
import { guessUnits, toWmrl, unitConversion } from '../../src/data/lerobot/jointUnits.ts';
import { exportLerobot } from '../../src/data/lerobot/lerobotExport.ts';
import { importLerobot } from '../../src/data/lerobot/lerobotImport.ts';
import { readParquet } from '../../src/data/lerobot/parquetTable.ts';
import { decodeVideoFrames } from '../../src/data/lerobot/videoFrames.ts';
import { syntheticFrames, writeV3Fixture, type FixtureEpisode } from '../helpers/lerobotFixtures.ts';

const dir = mkdtempSync(join(tmpdir(), 'wmrl-lerobot-units-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const robot = loadRobot('so101');
const NAMES = [
  'shoulder_pan.pos',
  'shoulder_lift.pos',
  'elbow_flex.pos',
  'wrist_flex.pos',
  'wrist_roll.pos',
  'gripper.pos',
];
const TASK = 'Pick the orange cube and place it in the box';

/** An SO-101 episode on the ±100 range, sweeping shoulder_lift and elbow_flex near their ends; action leads state. */
function episode(frames: number, seed: number, width: number, height: number): FixtureEpisode {
  const pose = (t: number) => {
    const u = t / (frames - 1);
    return [-30 + 20 * u, -98 + 100 * u, 98 - 60 * u, 60 + 10 * u, -60 + 5 * seed, 2 + 35 * u];
  };
  const state = Array.from({ length: frames }, (_, t) => pose(t));
  const action = Array.from({ length: frames }, (_, t) => pose(t + 0.5).map((v) => Math.fround(v)));
  return {
    task: TASK,
    state,
    action,
    reward: [],
    success: [],
    pixels: syntheticFrames(frames, width, height, seed),
  };
}

const fixture = (fps: number, frames: number[], camera = 'front', width = 96, height = 72) => ({
  fps,
  names: NAMES,
  camera,
  width,
  height,
  robotType: 'so101_follower',
  noRewards: true,
  episodes: frames.map((n, k) => episode(n, k + 1, width, height)),
});

const at10 = join(dir, 'at10');
const at30 = join(dir, 'at30');
const at10Fixture = fixture(10, [7, 9]);
before(async () => {
  await writeV3Fixture(at10, at10Fixture);
  await writeV3Fixture(at30, fixture(30, [10, 12]));
});

async function read(out: string): Promise<Episode[]> {
  const episodes: Episode[] = [];
  for await (const e of (await EpisodeStore.open(out)).episodes()) episodes.push(e);
  return episodes;
}

test('±100 and degrees give the same radians for the same pose (LeRobot motors_bus._normalize)', () => {
  // One pose in encoder ticks (4096 a turn). A joint's calibrated range spans its limits (or, for wrist_roll,
  // robot.yaml's full turn): (upper − lower) / 2π × 4095 ticks, centred on tick 2047.5.
  const ticks = [1500, 2600, 900, 3100, 3500];
  const ranges = robot.lerobot!.calibratedRange!;
  const range100: number[] = [];
  const degrees: number[] = [];
  ticks.forEach((v, i) => {
    const [lo, hi] = ranges[i]!;
    const span = ((hi - lo) / (2 * Math.PI)) * 4095;
    const min = 2047.5 - span / 2;
    const max = 2047.5 + span / 2;
    range100.push(((v - min) / (max - min)) * 200 - 100); // RANGE_M100_100
    degrees.push(((v - (min + max) / 2) * 360) / 4095); // DEGREES
  });
  const a = new Float32Array([...range100, 40]);
  const b = new Float32Array([...degrees, 40]);
  toWmrl(unitConversion(robot, 'range100'), a, 6, 'position');
  toWmrl(unitConversion(robot, 'degrees'), b, 6, 'position');
  for (let i = 0; i < 5; i++) assert.ok(Math.abs(a[i]! - b[i]!) < 1e-5, `joint ${i}: ${a[i]} vs ${b[i]}`);
  // Tick 1500 is (1500 − 2047.5) × 2π / 4095 rad from the middle.
  assert.ok(Math.abs(a[0]! - ((1500 - 2047.5) * 2 * Math.PI) / 4095) < 1e-5);
  assert.ok(Math.abs(a[5]! - 0.4) < 1e-6, 'gripper 40 of RANGE_0_100 is an opening of 0.4');
  // Detection: radians within ±2π, degrees beyond ±100, range100 when degrees would leave the limits.
  const rows = (arm: number[]) => new Float32Array([...arm, 0.5]);
  assert.equal(guessUnits(robot, rows([0.3, -1.2, 1.1, 0.4, 0]), 6).units, 'radians');
  assert.equal(guessUnits(robot, rows([10, -120, 90, 40, 0]), 6).units, 'degrees');
  assert.equal(guessUnits(robot, rows([10, -99, 98, 95, 0]), 6).units, 'range100');
});

test('record-test-like data imports as range100 without flags; wrong --units are refused naming the flag', async () => {
  const out = join(dir, 'from10');
  const report = await importLerobot({ source: at10, out, robot, task: 'pick:orange:block' });
  assert.equal(report.units.units, 'range100');
  assert.match(report.units.how, /detected: .*read as degrees \d+ of \d+ positions fall outside the limits/);
  assert.ok(!report.notes.some((n) => n.includes('outside robot')), report.notes.join('; '));
  const [e] = await read(out);
  // shoulder_lift −98 on ±100 across [−1.70, 1.70]: −1.70 + 2 × 1.70 × 0.01 = −1.666.
  assert.ok(Math.abs(e!.qpos[1]! - -1.666) < 1e-5, String(e!.qpos[1]));
  await assert.rejects(
    importLerobot({ source: at10, out: join(dir, 'rad'), robot, units: 'radians' }),
    (err: Error) => {
      assert.match(err.message, /contradicts --units radians/);
      assert.match(err.message, /try --units range100/);
      return true;
    },
  );
});

test('fps: 30 fps onto a 10 Hz robot keeps every 3rd frame; 25 fps is refused with both rates', async () => {
  const out = join(dir, 'from30');
  const report = await importLerobot({ source: at30, out, robot, task: 'pick:orange:block' });
  assert.ok(!report.notes.some((n) => n.includes('test split')), 'orange is a train colour of pick');
  // Yellow is pick's held-out colour: its episodes are filed under test, and the import says so.
  const yellow = await importLerobot({ source: at30, out: join(dir, 'yellow'), robot, task: 'pick:yellow:block' });
  assert.ok(
    yellow.notes.some((n) => /2 episodes fall in the test split as .*pick\.yaml declares it/.test(n)),
    yellow.notes.join('; '),
  );
  assert.equal(report.stride, 3);
  const episodes = await read(out);
  // 10 frames: 0, 3, 6, 9 kept (3 steps); 12 frames: 0 … 9 kept, 10 and 11 past the last whole step.
  assert.deepEqual(
    episodes.map((e) => [e.steps, e.controlHz]),
    [
      [3, 10],
      [3, 10],
    ],
  );
  assert.ok(report.notes.some((n) => n.startsWith('2 frames at episode ends')));
  const src = fixture(30, [10]).episodes[0]!;
  const conv = unitConversion(robot, 'range100');
  const expected = new Float32Array(src.state[6]!);
  toWmrl(conv, expected, 6, 'position');
  assert.deepEqual([...episodes[0]!.qpos.subarray(12, 18)], [...expected], 'observation 2 is frame 6');
  const bad = join(dir, 'at25');
  await writeV3Fixture(bad, fixture(25, [6]));
  await assert.rejects(importLerobot({ source: bad, out: join(dir, 'x'), robot }), (err: Error) => {
    assert.match(err.message, /25 fps, robot 'so101' at controlHz 10/);
    assert.match(err.message, /whole multiple of 10 fps|--robot/);
    return true;
  });
});

test('camera choice: a name the dataset lacks lists its image features and the robot cameras', async () => {
  const top = join(dir, 'top');
  await writeV3Fixture(top, fixture(10, [4], 'top', 64, 64));
  await assert.rejects(
    importLerobot({ source: top, out: join(dir, 'y'), robot, task: 'pick:orange:block' }),
    (err: Error) => {
      assert.match(err.message, /image and video features: observation\.images\.top/);
      assert.match(err.message, /cameras: front/);
      assert.match(err.message, /--map front=observation\.images\.top/);
      return true;
    },
  );
  await assert.rejects(
    importLerobot({ source: top, out: join(dir, 'y'), robot, map: { front: 'observation.images.side' } }),
    /no video or image feature 'observation\.images\.side' \(the dataset's image and video features: .*top/,
  );
  const report = await importLerobot({
    source: top,
    out: join(dir, 'z'),
    robot,
    task: 'pick:orange:block',
    map: { front: 'observation.images.top' },
  });
  assert.ok(report.mapped.includes('front ← observation.images.top'));
});

test('LeRobot → wmrl → LeRobot gives back names, robot_type, units, fps, every frame and the camera size', async () => {
  const wmrl = join(dir, 'rt-wmrl');
  await importLerobot({ source: at10, out: wmrl, robot, task: 'pick:orange:block' });
  const episodes = await read(wmrl);
  assert.deepEqual(
    episodes.map((e) => e.steps + 1),
    [7, 9],
    'N frames are N observations',
  );
  const out = join(dir, 'rt-lerobot');
  const report = await exportLerobot({ source: wmrl, out });
  assert.ok(report.notes.some((n) => n.includes('re-encoded')));
  const info = JSON.parse(readFileSync(join(out, 'meta/info.json'), 'utf8'));
  assert.equal(info.robot_type, 'so101_follower');
  assert.equal(info.fps, 10);
  assert.equal(info.total_frames, 16);
  assert.deepEqual(info.features['observation.state'].names, NAMES);
  assert.deepEqual(info.features.action.names, NAMES);
  assert.deepEqual(info.features['observation.images.front'].shape, [72, 96, 3]);
  // Nothing else LeRobot would take as a policy input or output.
  const inputs = Object.keys(info.features).filter((k) => k.startsWith('observation') || k.startsWith('action'));
  assert.deepEqual(inputs.sort(), ['action', 'observation.images.front', 'observation.state']);
  const data = await readParquet(join(out, 'data/chunk-000/file-000.parquet'));
  const hf = JSON.parse(
    (await import('hyparquet'))
      .parquetMetadata(new Uint8Array(readFileSync(join(out, 'data/chunk-000/file-000.parquet'))).buffer)
      .key_value_metadata!.find((kv) => kv.key === 'huggingface')!.value!,
  );
  assert.deepEqual(hf.info.features.action, {
    feature: { dtype: 'float32', _type: 'Value' },
    length: 6,
    _type: 'List',
  });
  at10Fixture.episodes.forEach((src, k) => {
    const rows = data.rows.filter((r) => r.episode_index === BigInt(k));
    assert.equal(rows.length, src.state.length);
    rows.forEach((r, t) => {
      const state = r['observation.state'] as number[];
      state.forEach((v, i) => assert.ok(Math.abs(v - src.state[t]![i]!) < 1e-3, `state ${k}/${t}/${i}: ${v}`));
      assert.deepEqual(r.action, src.action[t], 'the recorded targets, the last frame’s too');
    });
  });
  const frames = await decodeVideoFrames(join(out, 'videos/observation.images.front/chunk-000/file-000.mp4'), {
    fromSeconds: 0,
    count: 7,
    fps: 10,
    size: { width: 96, height: 72 },
  });
  let err = 0;
  const source = at10Fixture.episodes[0]!.pixels;
  for (let i = 0; i < frames.length; i++) err += Math.abs(frames[i]! - source[i]!);
  assert.ok(err / frames.length < 8, `mean abs error ${(err / frames.length).toFixed(2)}: two lossy codecs`);
  const stats = JSON.parse(readFileSync(join(out, 'meta/stats.json'), 'utf8'));
  for (const q of ['q01', 'q10', 'q50', 'q90', 'q99']) assert.equal(stats.action[q].length, 6, q);
  assert.ok(data.columns.includes('wmrl.velocity') && !data.columns.includes('observation.velocity'));
});

test('30 fps onto a 10 Hz robot is given back at 30 fps: every frame, and re-imports the same', async () => {
  const wmrl = join(dir, 'give-wmrl');
  await importLerobot({ source: at30, out: wmrl, robot, task: 'pick:orange:block' });
  const imported = await read(wmrl);
  assert.deepEqual(
    imported.map((e) => e.steps + 1),
    [4, 4],
    'frames 0, 3, 6, 9 of 10 and of 12',
  );
  const out = join(dir, 'give-lerobot');
  const report = await exportLerobot({ source: wmrl, out });
  assert.ok(
    report.notes.some((n) => n.includes('given back at 30 fps')),
    report.notes.join('; '),
  );
  const info = JSON.parse(readFileSync(join(out, 'meta/info.json'), 'utf8'));
  assert.equal(info.fps, 30);
  assert.equal(info.total_frames, 22);
  assert.deepEqual(info.features['observation.images.front'].shape, [72, 96, 3]);
  // LeRobot's columns alone: wmrl's, normalised at 30 fps, would mislead a re-import at 10 Hz.
  assert.deepEqual(
    Object.keys(info.features).filter((k) => k.startsWith('wmrl.')),
    [],
  );
  const source = fixture(30, [10, 12]).episodes;
  const data = await readParquet(join(out, 'data/chunk-000/file-000.parquet'));
  source.forEach((src, k) => {
    const rows = data.rows.filter((r) => r.episode_index === BigInt(k));
    assert.equal(rows.length, src.state.length, 'every recorded frame');
    rows.forEach((r, t) => {
      (r['observation.state'] as number[]).forEach((v, i) => assert.ok(Math.abs(v - src.state[t]![i]!) < 1e-3));
      assert.deepEqual(r.action, src.action[t]);
      assert.ok(Math.abs(Number(r.timestamp) - t / 30) < 1e-6);
    });
  });
  // Imported again, it is the dataset it came from: the same episodes, ids and tasks, the same joints and actions.
  const again = join(dir, 'give-again');
  await importLerobot({ source: out, out: again, robot });
  const back = await read(again);
  assert.deepEqual(
    back.map((e) => [e.id, e.task, e.steps]),
    imported.map((e) => [e.id, e.task, e.steps]),
  );
  back.forEach((e, k) => {
    assert.deepEqual([...e.qpos], [...imported[k]!.qpos]);
    assert.deepEqual([...e.actions], [...imported[k]!.actions]);
  });
});

test('quantiles as LeRobot RunningQuantileStats: worked numbers', () => {
  // 0…99: edges over [−1e-10, 99 + 1e-10] in 5000 bins of ~0.0198; value k sits alone in its bin, so the
  // (k + 1)th value is reached at the right edge of value k's bin: q50 (target count 50) at value 49's.
  const values = Array.from({ length: 100 }, (_, i) => i);
  const quantiles = histogramQuantiles(values, null);
  const width = (99 + 2e-10) / 5000;
  const rightEdge = (k: number) => (Math.floor((k + 1e-10) / width) + 1) * width - 1e-10;
  // q01's target (1) is met by the first bin: LeRobot returns the first edge then.
  assert.equal(quantiles[0], -1e-10);
  [9, 49, 89, 98].forEach((k, i) => {
    assert.ok(Math.abs(quantiles[i + 1]! - rightEdge(k)) < 1e-9, `${quantiles[i + 1]} vs ${rightEdge(k)}`);
  });
  assert.ok(Math.abs(quantiles[2]! - 49.005) < 1e-3);
  // Aggregation: count-weighted mean, pooled std, quantile envelope (min up to q50, max above).
  const a = episodeStats([0, 2], 1);
  const b = episodeStats([4, 6, 8, 10], 1);
  const all = aggregateStats([a, b]);
  assert.equal(all.count[0], 6);
  assert.ok(Math.abs(all.mean[0]! - 5) < 1e-12);
  assert.ok(Math.abs(all.std[0]! - Math.sqrt(70 / 6)) < 1e-12, 'population std of 0, 2, 4, 6, 8, 10');
  assert.equal(all.q50[0], Math.min(a.q50[0]!, b.q50[0]!));
  assert.equal(all.q99[0], Math.max(a.q99[0]!, b.q99[0]!));
});
