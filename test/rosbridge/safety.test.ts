import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadRobot } from '../../src/core/robotDescription.ts';
import { withImageSize } from '../../src/envs/makeEnv.ts';
import { RosbridgeEnv } from '../../src/envs/rosbridgeEnv.ts';
import { NonFiniteActionError } from '../../src/envs/jointTargets.ts';
import { CommandWatchdog } from '../../src/safety/commandWatchdog.ts';
import { SafetyFilter, UnsafeCommandError } from '../../src/safety/safetyFilter.ts';
import { planEpisodes } from '../../src/tasks/episodePlan.ts';
import { RosbridgeSimServer } from '../../sim/rosbridge/simServer.ts';
import { RawClient } from './rawClient.ts';

const robot = withImageSize(loadRobot('vx300'), 16);
const COMMAND = robot.ros.command.topic;
const home = robot.arm.home;
const waist = robot.arm.joints[0]!;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('safety filter: clamps to limits and max step, refuses non-finite values, guards the workspace', () => {
  const filter = new SafetyFilter({ robot });
  // waist: limits ±3.10, maxStep 0.10 → may lead the measured position by 0.20.
  let out = filter.filter([10, ...home.slice(1)], robot.gripper.open, [3.0, ...home.slice(1)]);
  assert.equal(out.arm[0], 3.1);
  assert.deepEqual(out.clipped, ['max-step', 'joint-limit']);
  out = filter.filter([1, ...home.slice(1)], robot.gripper.open, home);
  assert.ok(Math.abs(out.arm[0]! - 0.2) < 1e-12);
  assert.deepEqual(out.clipped, ['max-step']);
  out = filter.filter(home, 5, home);
  assert.equal(out.gripper, robot.gripper.open);
  assert.deepEqual(filter.filter(home, robot.gripper.closed, home).clipped, []);
  for (const bad of [NaN, Infinity, -Infinity]) {
    assert.throws(() => filter.filter([bad, ...home.slice(1)], robot.gripper.open, home), UnsafeCommandError);
    assert.throws(() => filter.filter(home, bad, home), UnsafeCommandError);
  }
  assert.throws(() => filter.filter(home.slice(1), robot.gripper.open, home), /5 values; robot 'vx300' has 6/);
  // Workspace: a fake kinematics where z = joint 1; the box allows z ≤ 0.6.
  const boxed = new SafetyFilter({
    robot,
    maxStepFactor: 100,
    workspace: { min: [-1, -1, 0], max: [1, 1, 0.6], endEffector: (q) => [0, 0, q[1]!] },
  });
  out = boxed.filter([0, 0.9, 0, 0, 0, 0], robot.gripper.open, [0, 0.5, 0, 0, 0, 0]);
  assert.deepEqual(Array.from(out.arm), [0, 0.5, 0, 0, 0, 0], 'leaving the box: the arm holds');
  assert.deepEqual(out.clipped, ['workspace']);
  out = boxed.filter([0, 0.7, 0, 0, 0, 0], robot.gripper.open, [0, 0.9, 0, 0, 0, 0]);
  assert.equal(out.arm[1], 0.7, 'moving back towards the box is allowed');
});

test('watchdog: a command lasts N ticks, then the arm holds', () => {
  const w = new CommandWatchdog(2);
  assert.equal(w.tick(), true, 'no command yet: hold');
  w.feed();
  assert.deepEqual([w.tick(), w.tick(), w.tick()], [false, false, true]);
  w.feed();
  assert.equal(w.tick(), false);
  w.clear();
  assert.equal(w.tick(), true);
});

test('client: a NaN action is refused before anything is sent', async () => {
  const server = await RosbridgeSimServer.start({ robot, port: 0, lockstep: true, heartbeatMs: 0 });
  const env = await RosbridgeEnv.create({ robot, url: server.url, speed: Infinity });
  try {
    const [p] = planEpisodes([{ family: 'reach' }], 'train', 1, 0);
    await env.reset(p!);
    const ticks = server.simRobot.ticks;
    await assert.rejects(env.step(Float32Array.from([NaN, 0, 0, 0, 0, 0, 0])), NonFiniteActionError);
    assert.equal(env.lastCommand, undefined, 'nothing was sent');
    assert.equal(server.simRobot.ticks, ticks, 'the robot never saw it');
    const r = await env.step(Float32Array.from([1, 0, 0, 0, 0, 0, 0]));
    assert.ok(r.observation.qpos[0]! > 0.02, 'a finite action still moves the arm');
  } finally {
    await env.close();
    await server.close();
  }
});

test('sim server: a command beyond the limits reaches the arm clipped; NaN is refused', async () => {
  const server = await RosbridgeSimServer.start({ robot, port: 0, lockstep: true, heartbeatMs: 0 });
  const raw = await RawClient.connect(server.url);
  const sim = server.simRobot.sim;
  try {
    raw.send({ op: 'advertise', topic: COMMAND, type: 'std_msgs/msg/Float64MultiArray' });
    // NaN, Python-json style (a real rosbridge passes it on), and null: refused, the arm holds.
    const before = sim.armQpos();
    raw.send(`{"op":"publish","id":"nan-1","topic":"${COMMAND}","msg":{"data":[NaN,-0.35,0.55,0,1.35,0]}}`);
    raw.send({ op: 'publish', id: 'null-1', topic: COMMAND, msg: { data: [null, -0.35, 0.55, 0, 1.35, 0] } });
    await raw.sendAndSettle({
      op: 'publish',
      id: 'inf-1',
      topic: COMMAND,
      // biome-ignore lint/correctness/noPrecisionLoss: 1e400 is Infinity on purpose (JSON cannot spell it)
      msg: { data: [1e400, -0.35, 0.55, 0, 1.35, 0] },
    });
    for (const id of ['nan-1', 'null-1', 'inf-1']) {
      const status = await raw.waitFor((m) => m.op === 'status' && m.id === id);
      assert.equal(status.level, 'error');
      assert.match(String(status.msg), /refused/);
    }
    assert.equal(server.stats.refusedCommands, 3);
    const after = sim.armQpos();
    for (let i = 0; i < before.length; i++)
      assert.ok(Math.abs(after[i]! - before[i]!) < 1e-3, `joint ${i} held (moved ${after[i]! - before[i]!})`);

    // Far beyond the waist's upper limit: each tick moves at most 2 maxSteps, and it stops at the limit.
    const over = [10, ...home.slice(1)];
    let last = sim.armQpos()[0]!;
    for (let k = 0; k < 40; k++) {
      raw.send({ op: 'publish', topic: COMMAND, msg: { data: over } });
      await raw.sendAndSettle({ op: 'publish', topic: '/unrelated', msg: {} });
      const now = sim.armQpos()[0]!;
      assert.ok(now - last < 2 * waist.maxStep + 0.02, `tick ${k}: waist moved ${now - last} rad in one tick`);
      last = now;
    }
    assert.ok(last > waist.upper - 0.05, `the arm went to the limit (${last})`);
    assert.ok(last < waist.upper + 0.01, `the arm's actual waist ${last} stays inside the ${waist.upper} limit`);
    assert.equal(server.simRobot.applied.arm[0], waist.upper);
    assert.ok(server.simRobot.applied.clipped.includes('joint-limit'));
  } finally {
    raw.close();
    await server.close();
  }
});

test('sim server: silence makes the arm hold where it is (watchdog)', async () => {
  const server = await RosbridgeSimServer.start({ robot, port: 0, speed: 10, watchdogTicks: 3, heartbeatMs: 0 });
  const raw = await RawClient.connect(server.url);
  const sim = server.simRobot.sim;
  try {
    raw.send({ op: 'advertise', topic: COMMAND, type: 'std_msgs/msg/Float64MultiArray' });
    // One command far away (2.5 rad of waist), then silence. The robot re-filters the latest
    // command every tick (at most 2 × maxStep = 0.2 rad ahead of the arm), so without a watchdog
    // the arm would turn all the way; with it, the command lapses after 3 ticks and the arm holds.
    // Counted in ticks, not wall time, so a loaded machine gives the same bound.
    const target = home[0]! + 2.5;
    raw.send({ op: 'publish', topic: COMMAND, msg: { data: [target, ...home.slice(1)] } });
    await sleep(150);
    assert.equal(server.simRobot.holding, true);
    const held = sim.armQpos()[0]!;
    assert.ok(held > home[0]! + 0.05, `the command moved the arm (to ${held})`);
    await sleep(150);
    const later = sim.armQpos()[0]!;
    assert.ok(Math.abs(later - held) < 1e-3, `the arm holds (moved ${later - held})`);
    assert.ok(held < home[0]! + 1.0, `held at ${held}: about 3 ticks of motion, far short of the command ${target}`);
    assert.ok(Math.abs(server.simRobot.applied.arm[0]! - held) < 0.05, 'the applied target is the held position');
  } finally {
    raw.close();
    await server.close();
  }
});
