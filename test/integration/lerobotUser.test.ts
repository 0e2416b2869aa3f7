/**
 * A new user's way in, end to end: a LeRobot dataset in the image of one LeRobot recorded on an SO-101
 * (`so101_follower`, `<joint>.pos` names on the calibrated ±100 range, gripper 0–100, 30 fps, no reward or success
 * columns, the task in the user's own words; small test-made videos), a task family the user declares in a file
 * for those words, imported onto robots/so101 with no unit, rate or task flags, cloned, trained against
 * `wmrl sim-server` with the outcomes a person gives through the viewer's data layer, and run with its own
 * instruction.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Episode } from '../../src/core/types.ts';
import { EpisodeStore } from '../../src/data/episodeStore.ts';
import { LABELS_FILE } from '../../src/operator/labelStore.ts';
import { startSimServerProcess } from '../../sim/rosbridge/simServerProcess.ts';
import { syntheticFrames, writeV3Fixture, type FixtureEpisode } from '../helpers/lerobotFixtures.ts';
import { viewerOperator } from '../helpers/viewerOperator.ts';
import { spawnWmrl, WMRL_BIN } from '../helpers/wmrlProcess.ts';

const dir = mkdtempSync(join(tmpdir(), 'wmrl-lerobot-user-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const TEXT = 'Pick the orange cube and place it in the box';
const JOINTS = ['shoulder_pan', 'shoulder_lift', 'elbow_flex', 'wrist_flex', 'wrist_roll', 'gripper'];

/** The family the user writes for their words: the simulator sets it up, a person judges it. */
const BOX = `# The user's own task: a cube into a box (a goal zone the instruction does not name by colour).
instructions:
  templates:
    - pick the {color} cube and place it in the box
    - put the {color} cube into the box
split: { templates: [1] }
seconds: 8
scene:
  objects: [block]
  zone: true
  distractors: 1
  goal: zone
  success:
    all:
      - inside: [target, zone]
        margin: 0.01
  progress:
    - closer: [target, zone]
      axes: xy
`;

/** An episode as LeRobot's recorder writes one for the SO-101: ±100 joints, gripper 0..100, 30 fps. */
function recorded(seed: number, frames: number): FixtureEpisode {
  const state = Array.from({ length: frames }, (_, t) => {
    const s = t / frames;
    // Across most of each joint's calibrated range, as a teleoperated pick and place goes.
    return [
      90 * Math.sin(2 * s + seed),
      -95 + 150 * s,
      90 - 160 * s,
      60 * Math.cos(3 * s),
      40 * Math.sin(s + seed),
      s < 0.5 ? 80 : 10,
    ];
  });
  return {
    task: TEXT,
    state,
    action: state.map((_, t) => state[Math.min(t + 1, frames - 1)]!),
    reward: new Array<number>(frames).fill(0),
    success: new Array<boolean>(frames).fill(false),
    pixels: syntheticFrames(frames, 64, 48, seed),
  };
}

function wmrl(...args: string[]) {
  const r = spawnSync(process.execPath, [WMRL_BIN, ...args], { encoding: 'utf8', timeout: 300_000 });
  assert.equal(r.status, 0, `wmrl ${args.join(' ')}:\n${r.stdout}\n${r.stderr}`);
  return r;
}

async function episodes(at: string): Promise<Episode[]> {
  const out: Episode[] = [];
  for await (const e of (await EpisodeStore.open(at)).episodes()) out.push(e);
  return out;
}

test('a LeRobot SO-101 dataset in its own words: imported, cloned, trained with a person, run', async () => {
  const source = join(dir, 'record-like');
  await writeV3Fixture(source, {
    fps: 30,
    names: JOINTS.map((j) => `${j}.pos`),
    camera: 'front',
    width: 64,
    height: 48,
    robotType: 'so101_follower',
    noRewards: true,
    episodes: [recorded(1, 90), recorded(2, 75), recorded(3, 96), recorded(4, 84)],
  });
  const family = join(dir, 'box.yaml');
  writeFileSync(family, BOX);

  // Import: the robot from robot_type, 30 fps onto 10 Hz, the text kept. Values that fit degrees as well as ±100
  // are refused, naming the flag; declared, they are read on the calibrated range.
  const data = join(dir, 'demos');
  const unsure = spawnSync(process.execPath, [WMRL_BIN, 'import', 'lerobot', source, '--out', data], {
    encoding: 'utf8',
  });
  assert.equal(unsure.status, 1);
  assert.match(
    unsure.stderr,
    /cannot tell the joints' units .* degrees and range100 both fit\): pass --units range100/,
  );
  let r = wmrl('import', 'lerobot', source, '--out', data, '--task-file', family, '--units', 'range100');
  assert.match(r.stdout, /for robot so101/);
  assert.match(r.stdout, /units: range100 \(declared/);
  assert.match(r.stdout, /1 frame in 3 kept/);
  assert.doesNotMatch(r.stdout, /outside .* limits/);
  const demos = await episodes(data);
  assert.equal(demos.length, 4);
  for (const e of demos) {
    assert.equal(e.task.family, 'box');
    assert.equal(e.task.color, 'orange');
    assert.equal(e.task.instruction, TEXT, 'the dataset’s own words');
    assert.equal(e.successUnknown, true);
    assert.equal(e.controlHz, 10);
  }
  assert.equal(readFileSync(join(data, 'tasks', 'box.yaml'), 'utf8'), BOX, 'the dataset keeps its family');

  // Cloned: the recordings are the demonstrations (their success unrecorded, so said).
  const bc = join(dir, 'bc');
  r = wmrl(
    ...['pretrain', '--data', data, '--out', bc, '--config', 'configs/policy/tiny.yaml'],
    ...['--bc.epochs=1', '--encoder.epochs=1', '--backend', 'wasm'],
  );
  assert.match(r.stdout, /policy saved to .*: 4 demonstrations/);
  assert.match(r.stderr, /4 demonstrations record no success and are cloned/);

  // Trained against the sim server (it knows the family from --task-file), a person answering every outcome
  // through the viewer's data layer; later commands read the family from the dataset.
  const { child: server, url } = await startSimServerProcess([
    '--port',
    '0',
    '--lockstep',
    '--quiet',
    '--robot',
    'so101',
    '--task-file',
    family,
  ]);
  const run = join(dir, 'run');
  // The person at the sim server's scene says every other episode succeeded.
  let asked = 0;
  const operator = viewerOperator(run, { answer: async () => asked++ % 2 === 0 });
  try {
    writeFileSync(join(dir, 'wm.yaml'), 'kind: state\nmembers: 2\nhidden: [32]\ntrain: { epochs: 1, k: 2 }\n');
    const train = spawnWmrl([
      ...['train', '--policy', join(bc, 'policy'), '--data', data, '--out', run, '--backend', 'wasm'],
      ...['--wm-config', join(dir, 'wm.yaml'), '--env', 'rosbridge', '--url', url, '--speed', 'max'],
      ...['--outcome', 'operator', '--tasks=box', '--eval.tasks=box'],
      ...['--steps=2', '--groups=2', '--rolloutsPerGroup=2', '--anchorEvery=1', '--anchorFraction=0.5'],
      ...['--horizon=4', '--eval.episodes=1', '--eval.every=2', '--worldModel.refitEvery=2'],
      ...['--worldModel.refitEpochs=1', '--isotonic.minPairs=2', '--isotonic.refitEvery=2'],
    ]);
    const code = await train.exited;
    assert.equal(code, 0, train.output().stderr);
    await operator.stop();
    const shown = operator.shown;
    assert.ok(shown.length >= 2, `the person was asked ${shown.length} times`);
    assert.ok(
      shown.every((s) => s.listed && s.blind),
      'each waiting episode listed, with no outcome shown',
    );
    const labels = readFileSync(join(run, LABELS_FILE), 'utf8').trim().split('\n');
    assert.equal(labels.length, shown.length);

    // Run with its own instruction on the sim server.
    const said = spawnWmrl([
      ...['run', '--policy', run, '--robot', 'so101', '--url', url, '--speed', 'max'],
      ...['--instruction', TEXT, '--max-steps', '5'],
    ]);
    assert.equal(await said.exited, 0, said.output().stderr);
    assert.match(said.output().stderr, new RegExp(`task box: "${TEXT}"`));
    assert.match(said.output().stdout, /^episode 1\/1 \(seed 0\): (no )?success in \d+ steps/m);
  } finally {
    await operator.stop();
    server.kill('SIGKILL');
  }
});
