import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decode } from 'cbor2';
import { WebSocket } from 'ws';
import { loadRobot } from '../../src/core/robotDescription.ts';
import { withImageSize } from '../../src/envs/makeEnv.ts';
import { decodeCompressedImage, decodeRawImage, resizeImage } from '../../src/envs/rosbridgeImages.ts';
import { planEpisodes } from '../../src/tasks/episodePlan.ts';
import { encodeCbor } from '../../sim/rosbridge/cbor.ts';
import { parseRosbridgeJson } from '../../sim/rosbridge/jsonText.ts';
import { encodePng } from '../../sim/rosbridge/png.ts';
import { parseClientOp } from '../../sim/rosbridge/protocol.ts';
import { RosbridgeSimServer } from '../../sim/rosbridge/simServer.ts';
import { RawClient } from './rawClient.ts';

const robot = withImageSize(loadRobot('vx300'), 16);
const { jointStates, command, services } = robot.ros;

test('protocol parsing: ops are validated, errors name the problem', () => {
  assert.deepEqual(
    parseClientOp({ op: 'subscribe', id: 's1', topic: '/joint_states', type: 'sensor_msgs/msg/JointState' }),
    { op: 'subscribe', id: 's1', topic: '/joint_states', type: 'sensor_msgs/msg/JointState', compression: 'none' },
  );
  assert.throws(() => parseClientOp({ op: 'frobnicate' }), /unknown op "frobnicate"/);
  assert.throws(() => parseClientOp({ op: 'publish', topic: '/a' }), /needs a 'msg'/);
  assert.throws(() => parseClientOp({ op: 'subscribe', topic: 'no-slash' }), /not a valid ROS name/);
  assert.throws(
    () => parseClientOp({ op: 'subscribe', topic: '/a', compression: 'png' }),
    /compression "png" is not supported/,
  );
  assert.throws(() => parseClientOp([1]), /JSON object/);
  // Python's json (and so rosbridge) reads NaN/Infinity; strings keep their text.
  const parsed = parseRosbridgeJson('{"a":[NaN,-Infinity,Infinity,1],"s":"NaN \\" Infinity"}') as {
    a: number[];
    s: string;
  };
  assert.ok(Number.isNaN(parsed.a[0]));
  assert.deepEqual(parsed.a.slice(1), [-Infinity, Infinity, 1]);
  assert.equal(parsed.s, 'NaN " Infinity');
});

test('images: PNG and CBOR round trips, raw encodings, resizing', () => {
  const image = { width: 5, height: 3, data: Uint8Array.from({ length: 45 }, (_, i) => (i * 37) % 256) };
  assert.deepEqual(
    decodeCompressedImage(
      { format: 'rgb8; png compressed bgr8', data: Buffer.from(encodePng(image)).toString('base64') },
      '/cam',
    ),
    image,
  );
  const bgr = Uint8Array.from(image.data);
  for (let i = 0; i < bgr.length; i += 3) [bgr[i], bgr[i + 2]] = [bgr[i + 2]!, bgr[i]!];
  assert.deepEqual(decodeRawImage({ width: 5, height: 3, encoding: 'bgr8', step: 15, data: bgr }, '/cam'), image);
  assert.throws(
    () => decodeRawImage({ width: 5, height: 3, encoding: '16UC1', data: '' }, '/cam'),
    /encoding '16UC1' is not supported/,
  );
  assert.throws(() => decodeCompressedImage({ format: 'tiff', data: '' }, '/cam'), /format 'tiff' is not supported/);
  const flat = resizeImage({ width: 4, height: 4, data: new Uint8Array(48).fill(200) }, 2, 2);
  assert.deepEqual(Array.from(flat.data), new Array(12).fill(200));
  const msg = {
    op: 'publish',
    topic: '/t',
    msg: { data: new Uint8Array([1, 2, 3]), x: 1.5, n: -3, s: 'é', list: [true, null] },
  };
  assert.deepEqual(decode(encodeCbor(msg)), { ...msg, msg: { ...msg.msg, list: [true, null] } });
});

test('sim server speaks the ops roslib uses; errors are status ops and the connection lives on', async () => {
  const server = await RosbridgeSimServer.start({
    robot,
    port: 0,
    lockstep: true,
    heartbeatMs: 0,
    allowServices: [services.reset.name, services.taskStatus.name],
  });
  const raw = await RawClient.connect(server.url);
  try {
    raw.send({ op: 'subscribe', id: 'sub-js', topic: jointStates.topic, type: 'sensor_msgs/msg/JointState' });
    raw.send({ op: 'advertise', id: 'adv', topic: command.topic, type: 'std_msgs/msg/Float64MultiArray' });
    const [p] = planEpisodes([{ family: 'push' }], 'train', 1, 3);
    const reset = await raw.call(services.reset.name, { task: JSON.stringify(p!.task), seed: p!.seed });
    assert.equal(reset.result, true);
    assert.equal((reset.values as { success: boolean }).success, true);
    const js = await raw.waitFor((m) => m.op === 'publish' && m.topic === jointStates.topic);
    const msg = js.msg as { name: string[]; position: number[] };
    assert.deepEqual(msg.name, [...robot.arm.joints.map((j) => j.name), robot.gripper.joints[0]]);
    assert.deepEqual(msg.position.slice(0, 6), robot.arm.home);

    // Failing calls: result false with a message.
    let r = await raw.call(services.reset.name, { task: '{"family":"fly"}', seed: 1 });
    assert.equal(r.result, false);
    assert.match(String(r.values), /invalid task: family/);
    r = await raw.call(services.reset.name, { seed: 1 });
    assert.match(String(r.values), /reset request must be \{task/);
    r = await raw.call('/other/service', {});
    assert.equal(r.result, false);
    assert.match(String(r.values), /not in this server's allow-list/);
    // rosapi is always let through (rosbridge's launch files add it to the allow-list).
    r = await raw.call('/rosapi/topics', {});
    assert.equal(r.result, true);
    const status = await raw.call(services.taskStatus.name, {});
    assert.equal(status.result, true);
    assert.equal(typeof (status.values as { progress: number }).progress, 'number');

    // Unknown op, bad JSON, wrong type, wrong direction: status errors, socket still open.
    raw.send({ op: 'teleport', id: 'x1' });
    raw.send('{not json');
    raw.send({ op: 'advertise', id: 'x2', topic: command.topic, type: 'std_msgs/msg/String' });
    raw.send({ op: 'publish', id: 'x3', topic: jointStates.topic, msg: {} });
    await raw.waitFor((m) => m.op === 'status' && m.id === 'x1' && /unknown op/.test(String(m.msg)));
    await raw.waitFor((m) => m.op === 'status' && /not valid JSON/.test(String(m.msg)));
    await raw.waitFor(
      (m) => m.op === 'status' && m.id === 'x2' && /has type std_msgs\/msg\/Float64MultiArray/.test(String(m.msg)),
    );
    await raw.waitFor((m) => m.op === 'status' && m.id === 'x3' && /published by the robot/.test(String(m.msg)));
    assert.equal(raw.closed, false);

    // Lockstep: one arm command, one tick, one joint state; unsubscribe stops them.
    const before = raw.received.filter((m) => m.topic === jointStates.topic).length;
    await raw.sendAndSettle({
      op: 'publish',
      topic: command.topic,
      msg: { layout: { dim: [], data_offset: 0 }, data: robot.arm.home },
    });
    assert.equal(raw.received.filter((m) => m.topic === jointStates.topic).length, before + 1);
    raw.send({ op: 'unsubscribe', id: 'sub-js', topic: jointStates.topic });
    raw.send({ op: 'unadvertise', topic: command.topic });
    raw.send({ op: 'advertise', topic: command.topic, type: 'std_msgs/msg/Float64MultiArray' });
    await raw.sendAndSettle({ op: 'publish', topic: command.topic, msg: { data: robot.arm.home } });
    assert.equal(raw.received.filter((m) => m.topic === jointStates.topic).length, before + 1);

    // CBOR subscription: binary frames whose image data are raw bytes.
    const cbor = new WebSocket(server.url);
    await new Promise((r) => cbor.once('open', r));
    const frames: unknown[] = [];
    cbor.on('message', (data, isBinary) => isBinary && frames.push(decode(new Uint8Array(data as Buffer))));
    cbor.send(JSON.stringify({ op: 'subscribe', topic: robot.ros.images.scene!.topic, compression: 'cbor' }));
    await new Promise((r) => setTimeout(r, 50));
    await raw.sendAndSettle({ op: 'publish', topic: command.topic, msg: { data: robot.arm.home } });
    for (let k = 0; k < 100 && frames.length === 0; k++) await new Promise((r) => setTimeout(r, 10));
    const frame = frames[0] as { msg: { data: Uint8Array; width: number; encoding: string } };
    assert.equal(frame.msg.encoding, 'rgb8');
    assert.ok(frame.msg.data instanceof Uint8Array && frame.msg.data.length === 16 * 16 * 3);
    cbor.close();
  } finally {
    raw.close();
    await server.close();
  }
});

test('sim server binds to loopback by default, and topic allow-lists refuse the rest', async () => {
  const server = await RosbridgeSimServer.start({
    robot,
    port: 0,
    lockstep: true,
    heartbeatMs: 0,
    allowTopics: [jointStates.topic],
  });
  const raw = await RawClient.connect(server.url);
  try {
    assert.match(server.url, /^ws:\/\/127\.0\.0\.1:\d+$/);
    raw.send({ op: 'subscribe', id: 'ok', topic: jointStates.topic });
    raw.send({ op: 'subscribe', id: 'no', topic: robot.ros.images.scene!.topic });
    await raw.waitFor((m) => m.op === 'status' && m.id === 'no' && /allow-list/.test(String(m.msg)));
    assert.ok(!raw.received.some((m) => m.op === 'status' && m.id === 'ok'));
  } finally {
    raw.close();
    await server.close();
  }
});
