import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { checkRobot, listRobots, loadRobot, RobotDescriptionError, robotRef } from '../../src/core/robotDescription.ts';
import { Simulator } from '../../sim/simulator.ts';
import { copyRobot } from '../helpers/robotCopy.ts';

test('the bundled robot loads and compiles', async () => {
  assert.ok(listRobots().includes('vx300'));
  const robot = loadRobot('vx300');
  assert.equal(robot.arm.joints.length, 6);
  const sim = await Simulator.create({ robot });
  try {
    assert.equal(sim.substeps, 50);
  } finally {
    sim.close();
  }
});

test('a second robot is just a folder', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wmrl-robots-'));
  try {
    const src = loadRobot('vx300');
    mkdirSync(join(dir, 'arm2'));
    writeFileSync(join(dir, 'arm2', 'robot.xml'), src.mjcfXml);
    writeFileSync(
      join(dir, 'arm2', 'robot.yaml'),
      readFileSync(join(src.dir, 'robot.yaml'), 'utf8').replace('name: vx300', 'name: arm2'),
    );
    assert.deepEqual(listRobots(dir), ['arm2']);
    assert.equal(loadRobot('arm2', dir).name, 'arm2');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--robot takes a name, a folder (absolute or relative) or a .yaml; a bare name means robots/NAME', () => {
  const parent = mkdtempSync(join(tmpdir(), 'wmrl-robot-path-'));
  try {
    const dir = copyRobot(parent, 'myarm');
    const file = join(dir, 'robot.yaml');
    for (const ref of [dir, `${dir}/`, relative(process.cwd(), dir), file, relative(process.cwd(), file)]) {
      const robot = loadRobot(ref);
      assert.equal(robot.name, 'myarm', ref);
      assert.equal(robot.dir, dir, ref);
      assert.equal(robot.file, file, ref);
      assert.equal(robotRef(robot), file, 'a robot outside the package is recorded by its path');
    }
    assert.equal(robotRef(loadRobot('vx300')), 'vx300', 'a package robot is recorded by its name');
    assert.throws(() => loadRobot('myarm'), /unknown robot 'myarm': no .*robots\/myarm\/robot\.yaml/);
    assert.throws(() => loadRobot(join(parent, 'nothing')), /robot description .*nothing: no such file or folder/);
    assert.throws(() => loadRobot(parent), /robot folder .* holds no robot\.yaml/);
  } finally {
    rmSync(parent, { recursive: true, force: true });
  }
});

test('malformed descriptions get errors naming the problem', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wmrl-robots-'));
  const src = loadRobot('vx300');
  const yaml = readFileSync(join(src.dir, 'robot.yaml'), 'utf8');
  const write = (text: string) => {
    mkdirSync(join(dir, 'vx300'), { recursive: true });
    writeFileSync(join(dir, 'vx300', 'robot.xml'), src.mjcfXml);
    writeFileSync(join(dir, 'vx300', 'robot.yaml'), text);
  };
  try {
    assert.throws(() => loadRobot('nope', dir), /unknown robot 'nope'/);
    write(yaml.replace('controlHz: 10', 'controlHz: -3'));
    assert.throws(
      () => loadRobot('vx300', dir),
      (e: Error) => e instanceof RobotDescriptionError && /controlHz/.test(e.message),
    );
    write(yaml.replace('home: [0.0, -0.35, 0.55, 0.0, 1.35, 0.0]', 'home: [0.0, -0.35]'));
    assert.throws(() => loadRobot('vx300', dir), /home must have one value per arm joint/);
    write(yaml.replace('name: wrist_rotate,', 'name: wrist_twist,'));
    assert.throws(() => loadRobot('vx300', dir), /joint 'wrist_twist' is not defined in the MJCF/);
    write(yaml.replace('lower: -1.80, upper: 1.20', 'lower: 1.80, upper: 1.20'));
    assert.throws(() => loadRobot('vx300', dir), /lower limit must be below upper limit/);
    write(yaml + '\nunexpected: 1\n');
    assert.throws(() => loadRobot('vx300', dir), /unexpected/);
    write('arm: [unclosed');
    assert.throws(() => loadRobot('vx300', dir), /not valid YAML/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('every problem is reported at once, each where it is with its fix; the loader throws them all', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wmrl-robots-'));
  try {
    const arm = copyRobot(dir, 'broken');
    const file = join(arm, 'robot.yaml');
    const yaml = readFileSync(file, 'utf8');
    writeFileSync(
      file,
      yaml
        .replace('controlHz: 10', 'controlHz: 10\ncontrolHZ: 10')
        .replace('name: wrist_rotate,', 'name: wrist_twist,')
        .replace('endEffectorSite: grasp', 'endEffectorSite: grsp')
        .replace('home: [0.0, -0.35, 0.55, 0.0, 1.35, 0.0]', 'home: [0.0, -0.35, 0.55]')
        .replace('maxStep: 0.036', 'maxStep: -1'),
    );
    const check = checkRobot(arm);
    assert.equal(check.robot, undefined);
    const lines = yaml.split('\n').length;
    assert.deepEqual(
      check.problems.map((p) => p.where.replace(/:\d+ /, ':N ')),
      [
        'robot.yaml:N controlHZ',
        'robot.yaml:N gripper.maxStep',
        'robot.yaml:N arm.joints.5.name',
        'robot.yaml:N endEffectorSite',
        'robot.yaml:N arm.home',
      ],
    );
    for (const p of check.problems) {
      const line = Number(/:(\d+) /.exec(p.where)![1]);
      assert.ok(line > 1 && line <= lines + 1, `${p.where}: a line of the file`);
      assert.ok(p.fix.length > 0);
    }
    const [unknown, maxStep, joint, site, home] = check.problems;
    assert.equal(unknown!.fix, 'remove it (controlHz is given already)');
    assert.match(maxStep!.fix, /write a number > 0/);
    assert.match(joint!.what, /joint 'wrist_twist' is not defined in the MJCF/);
    assert.match(joint!.fix, /write one of the MJCF's joints: waist, shoulder, .*wrist_rotate/);
    assert.match(site!.fix, /^write grasp \(the MJCF's closest site name/);
    assert.match(home!.what, /home must have one value per arm joint: 3 values for 6 joints/);
    assert.equal(home!.fix, "write home: [0, -0.35, 0.55, 0, 0, 0] (one value per joint, in the joints' order)");
    assert.throws(
      () => loadRobot(arm),
      (e: Error) =>
        e instanceof RobotDescriptionError &&
        e.problems.length === 5 &&
        e.message.startsWith(`${file}: invalid robot description, 5 problems:\n`) &&
        e.message.includes('  robot.yaml:') &&
        e.message.includes('    fix: write grasp'),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
