/** End-effector features: forward kinematics of the recorded joints appended to the world model's state. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadRobot } from '../../src/core/robotDescription.ts';
import { EndEffectorFeatures, END_EFFECTOR_DIM } from '../../src/worldmodel/endEffectorFeatures.ts';
import { ArmKinematics } from '../../sim/armKinematics.ts';
import { makeTestEpisode } from '../helpers/episodes.ts';

test(
  'EndEffectorFeatures.append: [state, end-effector xyz] per step, ' +
    'the xyz what MuJoCo computes for the recorded joints; another robot is refused',
  async () => {
    const robot = loadRobot('vx300');
    const nArm = robot.arm.joints.length;
    const qposDim = nArm + 1;
    const e = makeTestEpisode({ robot: 'vx300', steps: 3, qposDim, stateDim: 4 });
    // Joint positions inside the limits (the helper draws them in [-1, 1]).
    e.qpos.forEach((_, i) => (e.qpos[i] = 0.3 * Math.sin(i)));
    const features = await EndEffectorFeatures.forRobot(robot);
    const kin = await ArmKinematics.create(robot);
    try {
      const [out] = features.append([e]);
      assert.equal(out!.stateDim, 4 + END_EFFECTOR_DIM);
      for (let t = 0; t <= 3; t++) {
        const row = out!.state.subarray(t * 7, (t + 1) * 7);
        assert.deepEqual(
          Array.from(row.subarray(0, 4)),
          Array.from(e.state.subarray(t * 4, (t + 1) * 4)),
          'the state comes first, unchanged',
        );
        const pos = kin.pose(e.qpos.subarray(t * qposDim, t * qposDim + nArm)).pos;
        assert.deepEqual(Array.from(row.subarray(4)), Array.from(Float32Array.from(pos)));
      }
      // Different joints, different positions: the features carry the arm's pose.
      assert.notDeepEqual(Array.from(out!.state.subarray(4, 7)), Array.from(out!.state.subarray(3 * 7 + 4, 3 * 7 + 7)));
      assert.throws(() => features.append([{ ...e, robot: 'other-arm' }]), /robot 'other-arm'.*vx300/);
    } finally {
      features.close();
      kin.close();
    }
  },
);
