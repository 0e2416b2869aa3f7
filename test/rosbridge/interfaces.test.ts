/**
 * The service definitions shipped in robots/ros/wmrl_interfaces against what the client sends and
 * reads and what the sim server answers, read from the .srv text itself so they cannot drift.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadRobot, ROBOTS_DIR } from '../../src/core/robotDescription.ts';
import { withImageSize } from '../../src/envs/makeEnv.ts';
import { readTaskStatus, readTrigger } from '../../src/envs/rosbridgeReaders.ts';
import { resetRequest, WMRL_SERVICES } from '../../src/ros/messages.ts';
import { parseRosType } from '../../src/ros/rosTypes.ts';
import { planEpisodes } from '../../src/tasks/episodePlan.ts';
import { RosbridgeSimServer } from '../../sim/rosbridge/simServer.ts';
import { RawClient } from './rawClient.ts';

const PACKAGE = join(ROBOTS_DIR, 'ros', 'wmrl_interfaces');
const robot = withImageSize(loadRobot('vx300'), 16);
type Fields = Record<string, string>;

/** A .srv file's request and response fields (`type name` lines; `#` starts a comment). */
function parseSrv(text: string): { request: Fields; response: Fields } {
  const parts: Fields[] = [{}];
  for (const raw of text.split('\n')) {
    const line = raw.replace(/#.*/, '').trim();
    if (line === '') continue;
    if (line === '---') {
      parts.push({});
      continue;
    }
    const m = /^([a-z][a-z0-9_]*(?:\[\])?)\s+([a-z][a-z0-9_]*)$/.exec(line);
    assert.ok(m, `not a field line: '${line}'`);
    parts.at(-1)![m[2]!] = m[1]!;
  }
  assert.equal(parts.length, 2, 'a .srv has exactly one --- between request and response');
  return { request: parts[0]!, response: parts[1]! };
}

const srv = (name: string) => parseSrv(readFileSync(join(PACKAGE, 'srv', `${name}.srv`), 'utf8'));

/** A sample value of a ROS primitive type, as rosbridge's JSON carries it. */
function sample(type: string): unknown {
  return type === 'string' ? '{}' : type === 'bool' ? true : type === 'float64' ? 0.5 : 7;
}

test('the .srv files define exactly the fields the client and the sim server use', () => {
  for (const name of ['ResetEpisode', 'TaskStatus'] as const) {
    const parsed = srv(name);
    assert.deepEqual(parsed, WMRL_SERVICES[name], `${name}.srv`);
    for (const field of [...Object.keys(parsed.request), ...Object.keys(parsed.response)])
      assert.match(field, /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/, 'ROS field names are snake_case');
  }
  // What the client sends: the request fields, with values of the declared types.
  const [p] = planEpisodes([{ family: 'reach' }], 'train', 1, 4_000_000_000);
  const request = resetRequest(p!.task, p!.seed);
  const fields = srv('ResetEpisode').request;
  assert.deepEqual(Object.keys(request).sort(), Object.keys(fields).sort());
  assert.equal(typeof request.task, 'string');
  assert.ok(Number.isInteger(request.seed) && request.seed >= 0 && request.seed < 2 ** 32, 'seed fits uint32');
  // What the client reads: a reply made of the response fields.
  const reply = (name: 'ResetEpisode' | 'TaskStatus') =>
    Object.fromEntries(Object.entries(srv(name).response).map(([k, t]) => [k, sample(t)]));
  assert.deepEqual(readTrigger(reply('ResetEpisode'), '/reset'), { success: true, message: '{}' });
  assert.deepEqual(readTaskStatus(reply('TaskStatus'), '/status'), { success: true, progress: 0.5 });
  // The earlier Trigger-shaped status reply still reads.
  assert.deepEqual(readTaskStatus({ success: false, message: '{"progress": 2}' }, '/status'), {
    success: false,
    progress: 1,
  });
  assert.throws(() => readTaskStatus({ success: true, progress: 'x', message: '' }, '/status'), /finite number/);
});

test('the sim server answers with exactly the .srv response fields, in both dialects', async () => {
  const [p] = planEpisodes([{ family: 'push' }], 'train', 1, 2);
  for (const ros of [1, 2] as const) {
    const server = await RosbridgeSimServer.start({ robot, port: 0, lockstep: true, heartbeatMs: 0, ros });
    const raw = await RawClient.connect(server.url);
    try {
      const reset = await raw.call(robot.ros.services.reset.name, resetRequest(p!.task, p!.seed));
      assert.equal(reset.result, true);
      assert.deepEqual(Object.keys(reset.values as object).sort(), Object.keys(srv('ResetEpisode').response).sort());
      const status = await raw.call(robot.ros.services.taskStatus.name, {});
      assert.deepEqual(Object.keys(status.values as object).sort(), Object.keys(srv('TaskStatus').response).sort());
      const extra = await raw.call(robot.ros.services.reset.name, { ...resetRequest(p!.task, 1), speed: 2 });
      const requestName = ros === 1 ? 'wmrl_interfaces/ResetEpisodeRequest' : 'wmrl_interfaces/ResetEpisode_Request';
      assert.deepEqual(
        [extra.result, extra.values],
        [false, `Message type ${requestName} does not have a field speed`],
        'rosbridge refuses a field the type does not have',
      );
    } finally {
      raw.close();
      await server.close();
    }
  }
});

test('the package builds under either ROS, and the shipped robot names its services', () => {
  const xml = readFileSync(join(PACKAGE, 'package.xml'), 'utf8');
  assert.match(xml, /<package format="3">/);
  assert.match(xml, /<name>wmrl_interfaces<\/name>/);
  for (const [tag, dep, v] of [
    ['buildtool_depend', 'catkin', 1],
    ['build_depend', 'message_generation', 1],
    ['exec_depend', 'message_runtime', 1],
    ['buildtool_depend', 'ament_cmake', 2],
    ['buildtool_depend', 'rosidl_default_generators', 2],
    ['exec_depend', 'rosidl_default_runtime', 2],
    ['member_of_group', 'rosidl_interface_packages', 2],
  ] as const)
    assert.match(xml, new RegExp(`<${tag} condition="\\$ROS_VERSION == ${v}">${dep}</${tag}>`), `${tag} ${dep}`);
  const cmake = readFileSync(join(PACKAGE, 'CMakeLists.txt'), 'utf8');
  assert.match(
    cmake,
    /rosidl_generate_interfaces\(\$\{PROJECT_NAME\}\s+"srv\/ResetEpisode\.srv"\s+"srv\/TaskStatus\.srv"/,
  );
  assert.match(cmake, /add_service_files\(FILES ResetEpisode\.srv TaskStatus\.srv\)/);
  const { reset, taskStatus } = robot.ros.services;
  for (const [service, name] of [
    [reset, 'ResetEpisode'],
    [taskStatus, 'TaskStatus'],
  ] as const)
    assert.deepEqual(parseRosType(service.type), { pkg: 'wmrl_interfaces', kind: 'srv', name });
});
