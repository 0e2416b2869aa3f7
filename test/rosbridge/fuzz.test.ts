import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadRobot } from '../../src/core/robotDescription.ts';
import { Rng } from '../../src/core/rng.ts';
import { withImageSize } from '../../src/envs/makeEnv.ts';
import { RosbridgeEnv } from '../../src/envs/rosbridgeEnv.ts';
import { planEpisodes } from '../../src/tasks/episodePlan.ts';
import { RosbridgeSimServer } from '../../sim/rosbridge/simServer.ts';
import { RawClient } from './rawClient.ts';

const robot = withImageSize(loadRobot('vx300'), 16);
const TOPICS = [
  robot.ros.command.topic,
  robot.ros.gripperCommand.topic,
  robot.ros.jointStates.topic,
  '/camera/scene/image_raw',
  '/nope',
  '',
  'no-slash',
  '/' + 'x'.repeat(300),
];
const SERVICES = [robot.ros.services.reset.name, robot.ros.services.taskStatus.name, '/rosapi/topics', '/x', 42];
const OPS = [
  'publish',
  'subscribe',
  'unsubscribe',
  'advertise',
  'unadvertise',
  'call_service',
  'set_level',
  'service_response',
  'auth',
  'fragment',
  'png',
  'advertise_service',
  'send_action_goal',
  'PUBLISH',
  '',
  '__proto__',
  'constructor',
];

/** One hostile message (a string, or bytes for binary frames), drawn from several families. */
function hostile(rng: Rng, cap: number): string | Buffer {
  const pick = <T>(xs: readonly T[]): T => xs[rng.int(xs.length)]!;
  const junk = (): unknown =>
    pick<() => unknown>([
      () => null,
      () => rng.uniform(-1e308, 1e308),
      () => 'str',
      () => [],
      () => ({}),
      () => [1, 'a', null],
      () => ({ data: 'abc' }),
      () => true,
      () => -0,
      () => ({ __proto__: { polluted: true } }),
      () => ({ data: Array.from({ length: rng.int(20) }, () => rng.uniform(-100, 100)) }),
    ])();
  switch (rng.int(10)) {
    case 0: // not JSON at all
      return pick([
        '',
        '{',
        '}',
        'null',
        '[]',
        '"op"',
        '{"op":',
        'NaN',
        '\u0000\u0001',
        '{"op":"publish"',
        "{'op':'publish'}",
        '[{"op":"publish"}]',
        '{"op":"publish","topic":"/a","msg":{}}}',
      ]);
    case 1: // random bytes as text
      return Buffer.from(Array.from({ length: 1 + rng.int(200) }, () => rng.int(256))).toString('latin1');
    case 2: // binary frames
      return Buffer.from(Array.from({ length: 1 + rng.int(64) }, () => rng.int(256)));
    case 3: // unknown / weird ops
      return JSON.stringify({
        op: pick(OPS),
        id: pick([undefined, 'id', 5, {}, 'x'.repeat(300)]),
        topic: pick(TOPICS),
        service: pick(SERVICES),
      });
    case 4: // wrong types in known ops
      return JSON.stringify({
        op: pick(['publish', 'subscribe', 'advertise', 'call_service']),
        topic: junk(),
        type: junk(),
        msg: junk(),
        service: junk(),
        args: junk(),
        compression: pick(['none', 'cbor', 'png', 7]),
        throttle_rate: junk(),
      });
    case 5: // plausible commands with bad payloads
      return JSON.stringify({
        op: 'publish',
        topic: pick(TOPICS.slice(0, 2)),
        msg: { data: Array.from({ length: rng.int(10) }, () => pick([rng.uniform(-50, 50), 'x', null, [], 1e300])) },
      });
    case 6: // Python-json non-finite values
      return (
        `{"op":"publish","topic":"${robot.ros.command.topic}","msg":{"data":[` +
        `${Array.from({ length: 6 }, () => pick(['NaN', 'Infinity', '-Infinity', '0.1'])).join(',')}]}}`
      );
    case 7: // hostile service calls
      return JSON.stringify({
        op: 'call_service',
        id: `c${rng.int(1000)}`,
        service: pick(SERVICES),
        args: pick([
          junk(),
          { task: junk(), seed: junk() },
          { task: '{"family":"reach"}', seed: 1 },
          {
            task: JSON.stringify({
              family: 'pick',
              color: 'red',
              object: 'block',
              template: 99,
              split: 'train',
              instruction: 'x',
            }),
            seed: -1,
          },
        ]),
      });
    case 8: // deep nesting
      return '['.repeat(1 + rng.int(5000)) + ']'.repeat(rng.int(5000));
    default: // oversized: over the cap (answered with a status error) or past the hard cap (socket closed)
      return JSON.stringify({
        op: 'publish',
        topic: robot.ros.command.topic,
        msg: { data: [], pad: 'x'.repeat(rng.next() < 0.05 ? 4 * cap + 10 : cap + rng.int(cap)) },
      });
  }
}

test('fuzz: 10,000 malformed or hostile messages; the server stays up and still serves a good client', async () => {
  const cap = 8 * 1024;
  const server = await RosbridgeSimServer.start({ robot, port: 0, speed: 5, heartbeatMs: 0, maxMessageBytes: cap });
  const rng = new Rng(20260);
  const raw = await RawClient.connect(server.url);
  let sent = 0;
  let closedByCap = 0;
  try {
    const N = 10_000;
    for (let i = 0; i < N; i++) {
      const m = hostile(rng, cap);
      if (m.length > 4 * cap) {
        // Past the hard cap ws closes the offender's socket (1009): send those on their own socket.
        const offender = await RawClient.connect(server.url);
        const code = new Promise<number>((resolve) => offender.socket.once('close', (c) => resolve(c)));
        offender.send(m);
        assert.equal(await code, 1009);
        closedByCap++;
        continue;
      }
      raw.socket.send(m, { binary: Buffer.isBuffer(m) });
      sent++;
      if (i % 500 === 499) await raw.sendAndSettle({ op: 'set_level', level: 'error' });
    }
    await raw.sendAndSettle({ op: 'set_level', level: 'error' });
    assert.equal(raw.closed, false, 'the fuzzing connection lived on');
    assert.ok(sent + closedByCap >= 10_000 && closedByCap > 0);
    assert.ok(server.stats.messages >= sent, `the server read ${server.stats.messages} of ${sent} messages`);
    assert.ok(server.stats.errors > 5_000, `most were reported as errors (${server.stats.errors})`);
    const statuses = raw.received.filter((m) => m.op === 'status');
    assert.ok(statuses.length > 0 && statuses.every((s) => s.level === 'error' || s.level === 'warning'));
    assert.equal(({} as Record<string, unknown>).polluted, undefined, 'no prototype pollution');
    // The arm never left its limits, whatever was published.
    const q = server.simRobot.sim.armQpos();
    robot.arm.joints.forEach((j, i) =>
      assert.ok(q[i]! >= j.lower - 0.02 && q[i]! <= j.upper + 0.02, `${j.name} at ${q[i]}`),
    );

    // A well-behaved client still gets served: reset, steps, fresh observations.
    const env = await RosbridgeEnv.create({ robot, url: server.url, speed: 5 });
    try {
      const [p] = planEpisodes([{ family: 'reach' }], 'train', 1, 5);
      const first = await env.reset(p!);
      assert.equal(first.images.scene!.width, 16);
      for (let k = 0; k < 3; k++) {
        const r = await env.step(Float32Array.from([0.5, 0, 0, 0, 0, 0, -1]));
        assert.ok(Number.isFinite(r.reward));
      }
    } finally {
      await env.close();
    }
  } finally {
    raw.close();
    await server.close();
  }
});
