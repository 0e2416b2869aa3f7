/**
 * The client against both rosbridge dialects of the sim server: ROS 2 (rosbridge_suite 1.x/2.x)
 * and `ros: 1` (rosbridge_suite 0.11.x, which refuses ROS 2 type names and only logs refusals).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { loadRobot, parseRobotDescription, type RobotDescription } from '../../src/core/robotDescription.ts';
import { withImageSize } from '../../src/envs/makeEnv.ts';
import { RosbridgeEnv, RosbridgeSetupError } from '../../src/envs/rosbridgeEnv.ts';
import { runEpisode } from '../../src/envs/rollout.ts';
import { parseRosType, rosTypeFor, sameRosType, typeNameForm } from '../../src/ros/rosTypes.ts';
import { planEpisodes } from '../../src/tasks/episodePlan.ts';
import { ScriptedExpert } from '../../sim/experts/scriptedExpert.ts';
import { RosbridgeSimServer } from '../../sim/rosbridge/simServer.ts';
import { startSimServerProcess } from '../../sim/rosbridge/simServerProcess.ts';
import { RawClient } from './rawClient.ts';

const run = promisify(execFile);
const BIN = resolve('bin/wmrl.js');

const robot = withImageSize(loadRobot('vx300'), 16);
const [reach] = planEpisodes([{ family: 'reach' }], 'train', 1, 5);

/** The description with every message type spelled the ROS 1 way. */
function ros1Spelled(r: RobotDescription): RobotDescription {
  const t = <T extends { type: string }>(x: T): T => ({ ...x, type: rosTypeFor(x.type, 1, 'msg') });
  return {
    ...r,
    ros: {
      ...r.ros,
      jointStates: t(r.ros.jointStates),
      command: t(r.ros.command),
      gripperCommand: t(r.ros.gripperCommand),
      images: Object.fromEntries(Object.entries(r.ros.images).map(([k, v]) => [k, t(v)])),
      ...(r.ros.objectState ? { objectState: t(r.ros.objectState) } : {}),
    },
  };
}

async function withServer<T>(
  options: { ros: 1 | 2; log?: (line: string) => void; allowTopics?: string[] },
  body: (server: RosbridgeSimServer) => Promise<T>,
): Promise<T> {
  const server = await RosbridgeSimServer.start({ robot, port: 0, lockstep: true, heartbeatMs: 0, ...options });
  try {
    return await body(server);
  } finally {
    await server.close();
  }
}

test('type names: both spellings parse and translate; a service name is not a topic type', () => {
  assert.deepEqual(parseRosType('sensor_msgs/msg/JointState'), { pkg: 'sensor_msgs', kind: 'msg', name: 'JointState' });
  assert.deepEqual(parseRosType('sensor_msgs/JointState'), { pkg: 'sensor_msgs', kind: undefined, name: 'JointState' });
  assert.equal(parseRosType('sensor_msgs/msg/JointState/x'), undefined);
  assert.equal(rosTypeFor('sensor_msgs/msg/JointState', 1, 'msg'), 'sensor_msgs/JointState');
  assert.equal(rosTypeFor('sensor_msgs/JointState', 2, 'msg'), 'sensor_msgs/msg/JointState');
  assert.equal(rosTypeFor('wmrl_interfaces/ResetEpisode', 2, 'srv'), 'wmrl_interfaces/srv/ResetEpisode');
  assert.throws(() => rosTypeFor('std_srvs/srv/Trigger', 1, 'msg'), /names a service, not a msg/);
  assert.ok(sameRosType('std_msgs/Float64MultiArray', 'std_msgs/msg/Float64MultiArray'));
  assert.ok(!sameRosType('std_msgs/String', 'std_msgs/msg/Float64MultiArray'));
  assert.deepEqual([typeNameForm('a/B'), typeNameForm('a/msg/B'), typeNameForm('nope')], [1, 2, undefined]);
});

test('descriptions take either spelling and ros.version; a request-less reset type is refused at load', () => {
  const file = join(robot.dir, 'robot.yaml');
  const yaml = readFileSync(file, 'utf8');
  const ros1 = parseRobotDescription(
    yaml
      .replace('type: sensor_msgs/msg/JointState', 'type: sensor_msgs/JointState')
      .replace('type: wmrl_interfaces/srv/TaskStatus', 'type: wmrl_interfaces/TaskStatus')
      .replace('version: auto', 'version: 1'),
    file,
  );
  assert.equal(ros1.ros.jointStates.type, 'sensor_msgs/JointState');
  assert.equal(ros1.ros.version, 1);
  assert.throws(
    () => parseRobotDescription(yaml.replace('type: sensor_msgs/msg/JointState', 'type: sensor_msgs/srv/X'), file),
    /ros\.jointStates\.type: expected a ROS message type/,
  );
  assert.throws(
    () => parseRobotDescription(yaml.replace('wmrl_interfaces/srv/ResetEpisode', 'std_srvs/srv/Trigger'), file),
    /ros\.services\.reset: the reset request carries task and seed.*wmrl_interfaces\/srv\/ResetEpisode/,
  );
  assert.throws(() => parseRobotDescription(yaml.replace('version: auto', 'version: 3'), file), /ros\.version/);
});

test('sim server, ROS 1 dialect: ROS 2 names refused in the log only; ROS 1 names, headers and rosapi', async () => {
  const log: string[] = [];
  await withServer({ ros: 1, log: (line) => log.push(line) }, async (server) => {
    const raw = await RawClient.connect(server.url);
    try {
      raw.send({ op: 'set_level', level: 'info' });
      raw.send({ op: 'subscribe', id: 'ros2', topic: robot.ros.jointStates.topic, type: 'sensor_msgs/msg/JointState' });
      const reset = { task: JSON.stringify(reach!.task), seed: reach!.seed };
      assert.equal((await raw.call(robot.ros.services.reset.name, reset)).result, true);
      assert.ok(
        log.some((l) => /\[id: ros2\] subscribe: sensor_msgs\/msg\/JointState is not a valid type string/.test(l)),
        log.join('\n'),
      );
      assert.ok(log.some((l) => /Unknown operation: set_level/.test(l)));
      assert.ok(!raw.received.some((m) => m.op === 'status' || m.op === 'publish'), 'nothing comes back');

      raw.send({ op: 'subscribe', id: 'ros1', topic: robot.ros.jointStates.topic, type: 'sensor_msgs/JointState' });
      await raw.call(robot.ros.services.reset.name, reset);
      const js = await raw.waitFor((m) => m.op === 'publish' && m.topic === robot.ros.jointStates.topic);
      const header = (js.msg as { header: Record<string, unknown> }).header;
      assert.deepEqual(Object.keys(header).sort(), ['frame_id', 'seq', 'stamp']);
      assert.deepEqual(Object.keys(header.stamp as object).sort(), ['nsecs', 'secs']);

      const version = await raw.call('/rosapi/get_ros_version', {});
      assert.deepEqual([version.result, version.values], [false, 'Service /rosapi/get_ros_version does not exist']);
      const topics = (await raw.call('/rosapi/topics', {})).values as { topics: string[]; types: string[] };
      assert.equal(topics.types[topics.topics.indexOf(robot.ros.jointStates.topic)], 'sensor_msgs/JointState');
      assert.ok(topics.types.every((t) => typeNameForm(t) === 1));
      const field = await raw.call(robot.ros.services.taskStatus.name, { verbose: true });
      assert.deepEqual(
        [field.result, field.values],
        [false, 'Message type wmrl_interfaces/TaskStatusRequest does not have a field verbose'],
      );

      // ROS 1 rosbridge's JSON carries a non-finite float as null.
      const real = server.simRobot.jointState.bind(server.simRobot);
      server.simRobot.jointState = () => {
        const s = real();
        return { ...s, position: [NaN, ...s.position.slice(1)], velocity: [Infinity, ...s.velocity.slice(1)] };
      };
      const before = raw.received.length;
      await raw.call(robot.ros.services.reset.name, reset);
      const bad = await raw.waitFor(
        (m) => raw.received.indexOf(m) >= before && m.op === 'publish' && m.topic === robot.ros.jointStates.topic,
      );
      const values = bad.msg as { position: unknown[]; velocity: unknown[] };
      assert.deepEqual([values.position[0], values.velocity[0]], [null, null]);
    } finally {
      raw.close();
    }
  });
});

test('the shipped description (ROS 2 names) runs an episode on both dialects; ROS 1 names on ROS 2', async () => {
  const expert = await ScriptedExpert.create({ robot });
  try {
    for (const [ros, description] of [
      [1, robot],
      [2, robot],
      [2, ros1Spelled(robot)],
    ] as const) {
      await withServer({ ros }, async (server) => {
        const env = await RosbridgeEnv.create({ robot: description, url: server.url, speed: Infinity });
        try {
          const episode = await runEpisode(env, expert, { ...reach!, initialStatus: () => env.status() });
          assert.equal(episode.status, 'complete', `ROS ${ros}`);
          assert.ok(episode.success, `ROS ${ros}: the expert reaches`);
        } finally {
          await env.close();
        }
      });
    }
  } finally {
    expert.close();
  }
});

/** Reset `description` against `server`; resolves with the error and how long it took. */
async function resetError(server: RosbridgeSimServer, description: RobotDescription): Promise<[Error, number]> {
  const env = await RosbridgeEnv.create({ robot: description, url: server.url, speed: Infinity, workspace: false });
  try {
    const started = performance.now();
    const err = await env.reset(reach!).then(
      () => assert.fail('reset should have failed'),
      (e: Error) => e,
    );
    return [err, performance.now() - started];
  } finally {
    await env.close();
  }
}

test('refused or unserved subscriptions fail the reset at once, naming the topic and the cause', async () => {
  await withServer({ ros: 1 }, async (server) => {
    // ros.version 2 given (no detection) to a ROS 1 rosbridge: every ROS 2 name would be refused.
    let [err, ms] = await resetError(server, { ...robot, ros: { ...robot.ros, version: 2 } });
    assert.ok(err instanceof RosbridgeSetupError, String(err));
    assert.match(
      err.message,
      /lists ROS 1 type names \(.*\).*refuses sensor_msgs\/msg\/JointState.*ros\.version: auto or 1/,
    );
    assert.ok(ms < 1000, `took ${ms} ms`);
    // A wrong type on a ROS 1 description.
    const wrong = { ...robot.ros.jointStates, type: 'sensor_msgs/JointStat' };
    [err, ms] = await resetError(server, { ...robot, ros: { ...robot.ros, version: 1, jointStates: wrong } });
    assert.match(
      err.message,
      /\/joint_states has type sensor_msgs\/JointState on the robot, .* says sensor_msgs\/JointStat/,
    );
    assert.ok(ms < 1000, `took ${ms} ms`);
    // A camera topic nothing publishes.
    const images = { ...robot.ros.images, scene: { ...robot.ros.images.scene!, topic: '/camera/nope/image_raw' } };
    [err, ms] = await resetError(server, { ...robot, ros: { ...robot.ros, images } });
    assert.match(err.message, /\/camera\/nope\/image_raw is not in the robot's ROS graph .*nothing publishes it/);
    assert.ok(ms < 1000, `took ${ms} ms`);
  });
  // A server that answers a refused subscription with a status message (here: its allow-list).
  const allowed = [robot.ros.jointStates.topic, robot.ros.command.topic, robot.ros.gripperCommand.topic];
  await withServer({ ros: 2, allowTopics: allowed }, async (server) => {
    const [err, ms] = await resetError(server, robot);
    assert.ok(err instanceof RosbridgeSetupError, String(err));
    assert.match(err.message, /\/camera\/scene\/image_raw.*rosbridge answered error: .*allow-list/);
    assert.ok(ms < 1000, `took ${ms} ms`);
  });
});

// (collect against the default ROS 2 sim-server is test/rosbridge/cli.test.ts's first test.)
test('wmrl collect and eval against `wmrl sim-server --ros 1`, eval against `--ros 2`', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'wmrl-rosbridge-dialects-'));
  try {
    for (const ros of ['1', '2']) {
      const { child, url } = await startSimServerProcess(['--port', '0', '--lockstep', '--quiet', '--ros', ros]);
      try {
        const common = ['--env', 'rosbridge', '--url', url, '--speed', 'max', '--task', 'reach', '--episodes', '1'];
        if (ros === '1') {
          const collect = await run(
            process.execPath,
            [BIN, 'collect', ...common, '--image-size', '16', '--out', join(dir, `demos-${ros}`)],
            { timeout: 60_000 },
          );
          assert.match(collect.stdout, /collected 1 episodes/, `ROS ${ros}`);
        }
        const evaluated = await run(
          process.execPath,
          [BIN, 'eval', '--policy', 'random', ...common, '--split', 'train', '--out', join(dir, `eval-${ros}`)],
          { timeout: 60_000 },
        );
        assert.match(evaluated.stdout, /train\s+reach\s+[\d.]+%/, `ROS ${ros}`);
      } finally {
        child.kill('SIGTERM');
      }
    }
    const bad = await run(process.execPath, [BIN, 'sim-server', '--ros', '3']).catch(
      (e: { code: number; stderr: string }) => e,
    );
    assert.equal((bad as { code: number }).code, 2);
    assert.match((bad as { stderr: string }).stderr, /--ros must be 1 or 2, got '3'/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
