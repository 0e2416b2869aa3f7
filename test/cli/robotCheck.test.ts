/**
 * `wmrl robot check PATH` as a user runs it: the bundled arms pass and it prints what it found (joints, gripper
 * kind and units, frame, reach and layout scale, cameras, task families, ROS); a URDF arm with a revolute jaw made
 * here reads as a hinge gripper; broken descriptions get every problem in one run, each with its fix, and applying
 * the fixes it prints makes the check pass. `wmrl collect --policy expert` refuses a family the arm cannot do.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FIXTURE_ROBOTS } from '../helpers/armFixtures.ts';
import { copyRobot } from '../helpers/robotCopy.ts';
import { runWmrl } from '../helpers/wmrlProcess.ts';

const wmrl = (...args: string[]) => runWmrl(args, 180_000);

/** Replace text in a file; each replacement must apply. */
function edit(file: string, ...edits: [string | RegExp, string][]): void {
  let text = readFileSync(file, 'utf8');
  for (const [from, to] of edits) {
    const next = text.replace(from, to);
    assert.notEqual(next, text, `${file}: ${from} applies`);
    text = next;
  }
  writeFileSync(file, text);
}

function withTempDir(f: (dir: string) => Promise<void>): () => Promise<void> {
  return async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wmrl-robot-check-'));
    try {
      await f(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

const VX300_HOME = 'home: [0.0, -0.35, 0.55, 0.0, 1.35, 0.0]';

test('vx300 passes: 6 joints, parallel fingers in metres, layout scale 1, its camera sees the table', async () => {
  const r = await wmrl('robot', 'check', 'vx300');
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /^arm: 6 joints/m);
  assert.match(r.stdout, /^ {2}wrist_angle +\[-1\.8, 2\.2\] rad +maxStep 0\.15 +home 1\.35$/m);
  assert.match(
    r.stdout,
    /^gripper: slide \(parallel fingers\), joints left_finger, right_finger, .*open 0\.057, closed/m,
  );
  assert.match(r.stdout, /in metres/);
  assert.match(
    r.stdout,
    /^end effector: site grasp; approach \+x, closing y \(derived from the model, fit: approach 1\.00/m,
  );
  assert.match(r.stdout, /layout scale 1; table region x 0\.26…0\.5 m, y -0\.2…0\.2 m/);
  assert.match(r.stdout, /^home: end effector at .* above the table region/m);
  assert.match(r.stdout, /^ {2}scene +64×64, fovy 45°, fixed: .* sees the table region's corners and centre$/m);
  assert.match(r.stdout, /^ {2}wrist +64×64, fovy 75°, on the arm/m);
  for (const family of ['reach', 'push', 'pick']) assert.match(r.stdout, new RegExp(`^ {2}${family} +feasible`, 'm'));
  assert.match(r.stdout, /^ {2}services\.reset +\/wmrl\/reset_episode +wmrl_interfaces\/srv\/ResetEpisode$/m);
  assert.doesNotMatch(r.stdout, /proposed home/, 'no proposal when home is above the table');
  assert.match(r.stdout, /\nno problems\n$/);
});

test('so101 passes: 5 joints, a revolute jaw in radians, layout scale 0.57, approach derived', async () => {
  const r = await wmrl('robot', 'check', 'so101', '--propose-home');
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /^arm: 5 joints/m);
  const joints = [...r.stdout.matchAll(/^ {2}(\w+) +\[[-\d., ]+\] rad/gm)].map((m) => m[1]);
  assert.deepEqual(joints, ['shoulder_pan', 'shoulder_lift', 'elbow_flex', 'wrist_flex', 'wrist_roll']);
  assert.match(
    r.stdout,
    /^gripper: hinge \(a revolute jaw\), joints gripper, actuator gripper; open 1\.2, closed -0\.17/m,
  );
  assert.match(r.stdout, /in radians/);
  assert.match(
    r.stdout,
    /^end effector: site grasp; approach \+x, closing z \(derived from the model, fit: approach 0\.9\d/m,
  );
  assert.match(r.stdout, /^reach: 0\.46\d m .*layout scale 0\.57;/m);
  assert.match(r.stdout, /^ {2}front +64×64, fovy 45°, fixed: .* sees the table region's corners and centre$/m);
  for (const family of ['reach', 'push', 'pick']) assert.match(r.stdout, new RegExp(`^ {2}${family} +feasible`, 'm'));
  // Asked for, a home pose above the table: five values, ready to paste.
  assert.match(r.stdout, /^proposed home: end effector at .* above the table region's centre, /m);
  assert.match(r.stdout, /^ {2}home: \[(-?\d+(\.\d+)?, ){4}-?\d+(\.\d+)?\]$/m);
  assert.match(r.stdout, /\nno problems\n$/);
});

test(
  'a URDF arm with a revolute jaw (made here from urdf_arm) reads as a hinge gripper in radians',
  withTempDir(async (dir) => {
    const arm = join(dir, 'jaw_arm');
    cpSync(join(FIXTURE_ROBOTS, 'urdf_arm'), arm, { recursive: true });
    // The left finger becomes a jaw turning about the gripper's z axis; the right one is fixed.
    edit(
      join(arm, 'robot.urdf'),
      [
        /<joint name="left_finger" type="prismatic">([\s\S]*?)<axis xyz="0 1 0"\/>\s*<limit lower="0.015" upper="0.04"/,
        '<joint name="jaw" type="revolute">$1<axis xyz="0 0 1"/><limit lower="-0.1" upper="0.7"',
      ],
      [
        /<joint name="right_finger" type="prismatic">[\s\S]*?<\/joint>/,
        '<joint name="right_finger" type="fixed"><parent link="gripper_link"/><child link="right_finger_link"/>' +
          '<origin xyz="0.0175 -0.02 0"/></joint>',
      ],
    );
    edit(
      join(arm, 'robot.yaml'),
      ['name: urdf_arm', 'name: jaw_arm'],
      ['joints: [left_finger, right_finger]', 'joints: [jaw]'],
      ['open: 0.04', 'open: 0.6'],
      ['closed: 0.015', 'closed: 0.0'],
    );
    const r = await wmrl('robot', 'check', arm);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^model: URDF robot\.urdf/m);
    assert.match(r.stdout, /^gripper: hinge \(a revolute jaw\), joints jaw, actuator gripper; open 0\.6, closed 0,/m);
    assert.match(r.stdout, /in radians \(the jaw's angle\)/);
    // The jaw turns its fingertip along the gripper link's y: the closing axis.
    assert.match(r.stdout, /^end effector: site grasp; approach \+x, closing y \(derived/m);
    assert.match(r.stdout, /layout scale 0\.7;/);
    assert.match(r.stdout, /^ {2}wrist +64×64, fovy 75°, on the arm \(link gripper_link\)$/m);
    assert.match(r.stdout, /^ {2}pick +feasible/m);
    assert.match(r.stdout, /\nno problems\n$/);
  }),
);

test(
  'a broken description: a bad key, a misspelt joint, a missing mesh and a home outside the limits, all at once',
  withTempDir(async (dir) => {
    const arm = join(dir, 'urdf_arm');
    cpSync(join(FIXTURE_ROBOTS, 'urdf_arm'), arm, { recursive: true });
    edit(
      join(arm, 'robot.yaml'),
      [
        '{ name: shoulder,     lower: -1.80, upper: 1.20, maxStep: 0.10 }',
        '{ name: shoulder, lower: -1.80, upper: 1.20, maxstep: 0.10 }',
      ],
      ['name: wrist_rotate,', 'name: wrist_rotat,'],
      [VX300_HOME, 'home: [0.0, -0.35, 0.55, 0.0, 2.5, 0.0]'],
    );
    rmSync(join(arm, 'meshes', 'forearm.stl'));
    const r = await wmrl('robot', 'check', arm);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /^4 problems:$/m);
    const expected: [RegExp, RegExp][] = [
      [/robot\.yaml:\d+ arm\.joints\.1\.maxstep: unknown key 'maxstep'/, /fix: write maxStep instead/],
      [
        /robot\.urdf:\d+: <mesh filename="package:\/\/urdf_arm\/meshes\/forearm\.stl">: file not found/,
        /fix: put the file at .*meshes\/forearm\.stl, or write the right filename= in robot\.urdf line \d+/,
      ],
      [
        /robot\.yaml:\d+ arm\.joints\.5\.name: joint 'wrist_rotat' is not defined in the URDF/,
        /fix: write wrist_rotate \(the URDF's closest joint name/,
      ],
      [
        /robot\.yaml:\d+ arm\.home: home pose is outside the joint limits: wrist_angle 2\.5 > upper 2\.2/,
        /fix: write home: \[0, -0\.35, 0\.55, 0, 2\.2, 0\]/,
      ],
    ];
    const lines = r.stdout.split('\n');
    for (const [problem, fix] of expected) {
      const at = lines.findIndex((l) => problem.test(l));
      assert.ok(at >= 0, `${problem} in\n${r.stdout}`);
      assert.match(lines[at + 1]!, fix, 'the fix follows its problem');
    }
    // The missing key of the misspelling is not a second problem; the rest waits for the fixes.
    assert.doesNotMatch(r.stdout, /maxStep is missing/);
    assert.match(r.stdout, /not analysed further/);
    assert.match(r.stdout, /\n4 problems\n$/);
    // The loader refuses it with the same list.
    const collect = await wmrl('collect', '--robot', arm, '--out', join(dir, 'out'));
    assert.notEqual(collect.code, 0);
    assert.match(collect.stderr, /invalid robot description, 4 problems:/);
    assert.match(collect.stderr, /joint 'wrist_rotat' is not defined in the URDF\n +fix: write wrist_rotate/);
    assert.equal(existsSync(join(dir, 'out')), false);
  }),
);

test(
  'what needs MuJoCo: a misnamed actuator, a home away from the table, a camera looking away; the fixes work',
  withTempDir(async (dir) => {
    const arm = copyRobot(dir, 'farhome');
    const yaml = join(arm, 'robot.yaml');
    edit(
      yaml,
      ['{ name: elbow,        lower', '{ name: elbow, actuator: elbow_motor, lower'],
      [VX300_HOME, 'home: [0.0, -1.5, -1.0, 0.0, 0.0, 0.0]'],
      ['lookAt: [0.32, 0.0, 0.0]', 'lookAt: [0.6, 0.0, 0.0]'],
    );
    let r = await wmrl('robot', 'check', arm);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /^2 problems:$/m);
    assert.match(
      r.stdout,
      /robot\.yaml:\d+ arm\.joints\.2\.actuator: actuator 'elbow_motor' \(for joint 'elbow'\) is not in the model/,
    );
    assert.match(r.stdout, /\n +fix: write actuator: elbow \(the model's actuator on 'elbow'\), or leave actuator out/);
    assert.match(
      r.stdout,
      /robot\.yaml:\d+ arm\.home: the home pose puts the end effector at \([-\d., ]+\) m, not above the table region/,
    );
    const home =
      /fix: write (home: \[[^\]]+\]) \(the end effector above the region's centre, pointing straight down\)/.exec(
        r.stdout,
      );
    assert.ok(home, r.stdout);
    assert.match(r.stdout, /^1 warning:$/m);
    assert.match(
      r.stdout,
      /robot\.yaml:\d+ cameras\.0: camera 'scene' does not see the table region's near left corner, near right corner/,
    );
    const camera =
      /fix: write (pos: \[[^\]]+\]), (lookAt: \[[^\]]+\]) \(vx300's scene camera scaled by the layout scale 1\)/.exec(
        r.stdout,
      );
    assert.ok(camera, r.stdout);
    assert.match(r.stdout, /\n2 problems, 1 warning\n$/);
    // Written as it says, the description passes.
    edit(
      yaml,
      ['actuator: elbow_motor, ', ''],
      ['home: [0.0, -1.5, -1.0, 0.0, 0.0, 0.0]', home[1]!],
      [/pos: \[0\.78, 0\.0, 0\.5\], lookAt: \[0\.6, 0\.0, 0\.0\]/, `${camera[1]}, ${camera[2]}`],
    );
    r = await wmrl('robot', 'check', arm);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^home: end effector at .* above the table region; approach [0-2]° from straight down$/m);
    assert.match(r.stdout, /\nno problems\n$/);
  }),
);

test(
  "MuJoCo's compile error is a problem, on one line, with the element it names",
  withTempDir(async (dir) => {
    const arm = copyRobot(dir, 'boltarm');
    const base = '<geom name="base" type="cylinder" size="0.06 0.02" pos="0 0 0.02" class="link_accent"/>';
    edit(join(arm, 'robot.xml'), [base, `${base}<geom name="bolt" type="mesh" mesh="bolt"/>`]);
    const r = await wmrl('robot', 'check', arm);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /^ {2}robot\.xml: MuJoCo cannot compile it: .*mesh 'bolt' not found.*$/m);
    assert.match(r.stdout, /\n +fix: correct the element named 'bolt' in robot\.xml as MuJoCo says\n/);
    assert.match(r.stdout, /\n1 problem\n$/);
  }),
);

test(
  'an arm that cannot do pick: robot check says why, and collect --policy expert refuses it before any episode',
  withTempDir(async (dir) => {
    const arm = copyRobot(dir, 'threejoint');
    edit(
      join(arm, 'robot.yaml'),
      [/ {4}- \{ name: forearm_roll.*\n {4}- \{ name: wrist_angle.*\n {4}- \{ name: wrist_rotate.*\n/, ''],
      [VX300_HOME, 'home: [0.0, -0.35, 0.55]'],
    );
    const why = 'too few arm joints: 3, it needs at least 4 (3 for the position, 1 more to point the gripper down)';
    const check = await wmrl('robot', 'check', arm);
    assert.equal(check.code, 0, 'a valid description, though the expert cannot pick with it');
    assert.match(check.stdout, /^ {2}reach +feasible/m);
    assert.ok(check.stdout.includes(`  pick   NOT feasible: ${why}`), check.stdout);
    assert.ok(check.stdout.includes(`  push   NOT feasible: ${why}`), check.stdout);
    const out = join(dir, 'demos');
    const r = await wmrl('collect', '--robot', arm, '--task', 'reach,pick', '--episodes', '2', '--out', out);
    assert.equal(r.code, 2, r.stderr);
    assert.ok(r.stderr.includes(`robot 'threejoint' cannot do pick with the scripted expert: ${why}`), r.stderr);
    assert.doesNotMatch(r.stderr, /cannot do reach/);
    assert.equal(existsSync(out), false, 'nothing was written');
    // Reach alone it collects.
    const reach = await wmrl('collect', '--robot', arm, '--task', 'reach', '--episodes', '1', '--out', out);
    assert.equal(reach.code, 0, reach.stderr);
    assert.match(reach.stdout, /collected 1 episodes/);
  }),
);

test('robot check without a path, or with an unknown robot', async () => {
  let r = await wmrl('robot', 'check');
  assert.equal(r.code, 2);
  assert.match(r.stderr, /wmrl robot check needs a PATH/);
  r = await wmrl('robot', 'check', 'nope');
  assert.equal(r.code, 1);
  assert.match(r.stdout, /nope: unknown robot 'nope'/);
  assert.match(r.stdout, /fix: pass a robot name \(.*so101.*vx300.*\), a folder holding robot\.yaml, or a \.yaml file/);
  r = await wmrl('robot', '--help');
  assert.match(r.stdout, /wmrl robot check PATH \[--propose-home\]/);
});

test(
  'a URDF arm whose collision hulls touch at home: a warning naming the links, and selfCollision: false as its fix',
  withTempDir(async (dir) => {
    // SO-101's URDF as shipped (robots/so101-urdf), with self-collision left on: the base's and the shoulder's hulls
    // overlap.
    symlinkSync(join(import.meta.dirname, '..', '..', 'robots', 'so101'), join(dir, 'so101'));
    cpSync(join(import.meta.dirname, '..', '..', 'robots', 'so101-urdf'), join(dir, 'so101-urdf'), { recursive: true });
    edit(join(dir, 'so101-urdf', 'robot.yaml'), ['selfCollision: false', 'selfCollision: true']);
    const r = await wmrl('robot', 'check', join(dir, 'so101-urdf'));
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /at the home pose the collision shapes of base_link and shoulder_link touch/);
    assert.match(r.stdout, /fix: write urdfAdditions\.selfCollision: false/);
    assert.match(r.stdout, /\nno problems, 1 warning\n$/);
  }),
);
