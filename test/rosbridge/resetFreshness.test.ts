/**
 * The observation `reset` returns is the robot after its reset, never a message that was already
 * on its way before the reset reply. Against a real ROS 1 rosbridge (rosbridge_suite 0.11 and a rospy
 * arm publishing at 10 Hz) 3 of 8 episodes started from the previous episode's last pose, and their
 * first commands led the real arm by up to 7 × maxStep; the sim server's `resetLagMs` fault reproduces
 * that ordering deterministically.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadRobot } from '../../src/core/robotDescription.ts';
import { withImageSize } from '../../src/envs/makeEnv.ts';
import { RosbridgeEnv } from '../../src/envs/rosbridgeEnv.ts';
import { planEpisodes } from '../../src/tasks/episodePlan.ts';
import { RosbridgeSimServer } from '../../sim/rosbridge/simServer.ts';

const robot = withImageSize(loadRobot('vx300'), 16);
const armJoints = robot.arm.joints.map((j) => j.name);

for (const ros of [1, 2] as const) {
  test(`ROS ${ros}: the reset observation is the reset pose, not the pose in flight before the reply`, async () => {
    const server = await RosbridgeSimServer.start({ robot, port: 0, lockstep: true, heartbeatMs: 0, ros });
    const env = await RosbridgeEnv.create({ robot, url: server.url, speed: Infinity, maxBackoffMs: 200 });
    try {
      server.testFaults.resetLagMs = 30;
      const [first, second] = planEpisodes([{ family: 'reach' }], 'train', 2, 5);
      await env.reset(first!);
      // Move the arm well away from where the next reset puts it.
      const push = new Float32Array(7).fill(1);
      for (let i = 0; i < 8; i++) await env.step(push);
      const before = server.simRobot.jointState();
      const observation = await env.reset(second!);
      const after = server.simRobot.jointState();
      const position = (state: typeof after, joint: string) => state.position[state.names.indexOf(joint)] ?? NaN;
      armJoints.forEach((joint, i) => {
        const observed = observation.qpos[i] ?? NaN;
        assert.ok(
          Math.abs(observed - position(after, joint)) < 1e-6,
          `${joint}: observed ${observed}, reset pose ${position(after, joint)}, pose before the reset ` +
            `${position(before, joint)}`,
        );
      });
      // The first command starts from the reset pose: within the step the description allows.
      await env.step(push);
      const command = env.lastCommand!.arm;
      robot.arm.joints.forEach((j, i) => {
        const lead = Math.abs((command[i] ?? NaN) - position(after, j.name));
        assert.ok(lead <= j.maxStep + 1e-9, `${j.name} command leads the reset pose by ${lead}`);
      });
    } finally {
      await env.close();
      await server.close();
    }
  });
}
