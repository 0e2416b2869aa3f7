/**
 * What an arm can do over the table (sim/armFeasibility.ts), on vx300 and variants of it that lose what a family
 * needs: a shoulder that cannot lean forward (out of reach), a wrist that cannot bend (the gripper cannot point
 * down), three arm joints (too few to place the gripper and point it down). And the proposed home pose.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadRobot, parseRobotDescription, type RobotDescription } from '../../src/core/robotDescription.ts';
import {
  armFeasibility,
  type FamilyFeasibility,
  homePlacement,
  infeasibleMessage,
  MIN_DOWN,
  POSITION_TOLERANCE,
  proposeHome,
  solveDown,
} from '../../sim/armFeasibility.ts';
import { ArmKinematics } from '../../sim/armKinematics.ts';
import { tableRegion } from '../../sim/layout.ts';

const vx300 = loadRobot('vx300');
const yaml = readFileSync(vx300.file, 'utf8');
const HOME = 'home: [0.0, -0.35, 0.55, 0.0, 1.35, 0.0]';

/** vx300's description with some text replaced (each replacement must apply). */
function variant(...edits: [string | RegExp, string][]): RobotDescription {
  let text = yaml;
  for (const [from, to] of edits) {
    const next = text.replace(from, to);
    assert.notEqual(next, text, `edit ${from} applies`);
    text = next;
  }
  return parseRobotDescription(text, vx300.file);
}

async function withKinematics<T>(robot: RobotDescription, f: (k: ArmKinematics) => T): Promise<T> {
  const kinematics = await ArmKinematics.create(robot);
  try {
    return f(kinematics);
  } finally {
    kinematics.close();
  }
}

const byFamily = (families: FamilyFeasibility[]) => Object.fromEntries(families.map((f) => [f.family, f]));

test('vx300 can do every family, pointing straight down everywhere over its table region', async () => {
  const result = await withKinematics(vx300, (k) => armFeasibility(k, vx300));
  assert.equal(result.scale, 1);
  assert.deepEqual(result.region, tableRegion(1));
  for (const f of result.families) {
    assert.ok(f.feasible, `${f.family}: ${f.reasons.join('; ')}`);
    assert.ok(f.worstDown! > 0.99, `${f.family}: ${f.worstDown}`);
  }
  // Corners and centre, at every height a family moves at; each reached within the joint limits.
  assert.equal(result.points.length, 20);
  for (const p of result.points) {
    assert.ok(p.solution.positionError <= POSITION_TOLERANCE, `${p.name} ${p.target}: ${p.solution.positionError}`);
    p.solution.q.forEach((q, i) => {
      const j = vx300.arm.joints[i]!;
      assert.ok(q >= j.lower && q <= j.upper, `${j.name} ${q} within [${j.lower}, ${j.upper}]`);
    });
  }
});

test('a shoulder that cannot lean forward leaves the table out of reach: no family is feasible', async () => {
  const robot = variant(
    ['{ name: shoulder,     lower: -1.80, upper: 1.20', '{ name: shoulder,     lower: -1.80, upper: -1.20'],
    [HOME, 'home: [0.0, -1.35, 0.55, 0.0, 1.35, 0.0]'],
  );
  const families = byFamily(await withKinematics(robot, (k) => armFeasibility(k, robot).families));
  for (const f of Object.values(families)) {
    assert.equal(f.feasible, false, f.family);
    assert.match(f.reasons.join(), /out of reach at 10 of 10 points over the table region/);
  }
  assert.match(
    infeasibleMessage(robot, families['pick']!),
    /^robot 'vx300' cannot do pick with the scripted expert: out of reach .* m from the table region's .* corner/,
  );
});

test('a wrist that cannot bend: reach is feasible, pick and push are not (the gripper cannot point down)', async () => {
  const robot = variant(
    ['{ name: wrist_angle,  lower: -1.80, upper: 2.20', '{ name: wrist_angle,  lower: -0.05, upper: 0.05'],
    [HOME, 'home: [0.0, -0.35, 0.55, 0.0, 0.0, 0.0]'],
  );
  const families = byFamily(await withKinematics(robot, (k) => armFeasibility(k, robot).families));
  assert.ok(families['reach']!.feasible, families['reach']!.reasons.join());
  for (const name of ['pick', 'push']) {
    const f = families[name]!;
    assert.equal(f.feasible, false, name);
    assert.match(f.reasons.join(), /the gripper cannot point down at \d+ of 10 points: at best 0\.\d+/);
    assert.ok(f.worstDown! < MIN_DOWN, `${name}: ${f.worstDown}`);
  }
});

test('three arm joints: reach only; pick and push need a fourth to point the gripper down', async () => {
  const robot = variant(
    [/ {4}- \{ name: forearm_roll.*\n {4}- \{ name: wrist_angle.*\n {4}- \{ name: wrist_rotate.*\n/, ''],
    [HOME, 'home: [0.0, -0.35, 0.55]'],
  );
  const families = byFamily(await withKinematics(robot, (k) => armFeasibility(k, robot).families));
  assert.ok(families['reach']!.feasible, families['reach']!.reasons.join());
  for (const name of ['pick', 'push'])
    assert.deepEqual(families[name]!.reasons, [
      'too few arm joints: 3, it needs at least 4 (3 for the position, 1 more to point the gripper down)',
    ]);
});

test('the proposed home: the end effector above the table region, pointing down, joints within limits', async () => {
  // A home pose leaning back, away from the table.
  const robot = variant([HOME, 'home: [0.0, -1.5, -1.0, 0.0, 0.0, 0.0]']);
  await withKinematics(robot, (k) => {
    assert.equal(homePlacement(k, robot).aboveTable, false);
    const proposal = proposeHome(k, robot);
    const region = tableRegion(1);
    assert.deepEqual(proposal.target, [(region.xMin + region.xMax) / 2, 0, 0.1]);
    assert.ok(proposal.positionError < 0.01, `${proposal.positionError}`);
    assert.ok(proposal.pointsDown && proposal.down > 0.99, `${proposal.down}`);
    proposal.q.forEach((q, i) => {
      const j = robot.arm.joints[i]!;
      assert.ok(q >= j.lower && q <= j.upper, `${j.name} ${q}`);
      assert.equal(q, +q.toFixed(2), 'rounded as robot.yaml would say it');
    });
    // Written as the home pose, it is above the table.
    const fixed = { ...robot, arm: { ...robot.arm, home: proposal.q } };
    assert.equal(homePlacement(k, fixed).aboveTable, true);
  });
  // vx300's own home is above the table; from any seed the solver finds the same point.
  await withKinematics(vx300, (k) => {
    assert.equal(homePlacement(k, vx300).aboveTable, true);
    const s = solveDown(k, vx300, [0.4, 0.1, 0.05], [[0, 0, 0, 0, 0, 0]]);
    assert.ok(s.positionError < POSITION_TOLERANCE && s.down > 0.99, JSON.stringify(s));
  });
});
