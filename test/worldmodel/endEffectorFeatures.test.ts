/** End-effector features: forward kinematics of the recorded joints appended to the world model's state. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadRobot } from '../../src/core/robotDescription.ts';
import { EndEffectorFeatures, END_EFFECTOR_DIM } from '../../src/worldmodel/endEffectorFeatures.ts';
import { ArmKinematics } from '../../sim/armKinematics.ts';
import { KEYFRAME_DIM, type KeyframeLocaliser } from '../../src/worldmodel/keyframes.ts';
import { featureSources, layoutOf } from '../../src/worldmodel/perceptionWorldModel.ts';
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
    const features = new EndEffectorFeatures(robot.name, await ArmKinematics.create(robot));
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

test(
  'EndEffectorFeatures with keyframes: then each keyframe minus the end effector and which the family shows, read ' +
    "from the first step's perception and held for the episode; the layout records and restores them",
  async () => {
    const robot = loadRobot('vx300');
    const qposDim = robot.arm.joints.length + 1;
    const recorded = makeTestEpisode({ robot: 'vx300', steps: 2, qposDim, stateDim: 5 });
    recorded.qpos.forEach((_, i) => (recorded.qpos[i] = 0.2 * Math.cos(i)));
    // What the world model's episodes hold before the features: the perception, 2 numbers a step.
    const perceived = { ...recorded, state: new Float32Array(3 * 2).fill(7), stateDim: 2 };
    // The localiser reads from the first step's perception ([7, 7]) a close and an end keyframe, no open.
    const keyframes = {
      latentDim: 2,
      estimate: (z: ArrayLike<number>) => ({ close: [0.1 * z[0]!, 0, 0.05], open: undefined, end: [0.3, -0.1, 0.2] }),
      toJSON: () => ({ latentDim: 2, events: {} }),
    } as unknown as KeyframeLocaliser;
    const features = new EndEffectorFeatures(robot.name, await ArmKinematics.create(robot), { keyframes });
    try {
      assert.equal(features.dim, END_EFFECTOR_DIM + KEYFRAME_DIM);
      const [out] = features.append([perceived]);
      const W = 2 + END_EFFECTOR_DIM + KEYFRAME_DIM;
      assert.equal(out!.stateDim, W);
      for (let t = 0; t <= 2; t++) {
        const row = out!.state.subarray(t * W, (t + 1) * W);
        assert.deepEqual(Array.from(row.subarray(0, 2)), [7, 7], 'the perception first, unchanged');
        const ee = row.subarray(2, 5);
        // close, then open (not shown: the end's), then end; then the flags.
        const expected = [0.7, 0, 0.05, 0.3, -0.1, 0.2, 0.3, -0.1, 0.2];
        expected.forEach((k, j) => assert.ok(Math.abs(row[5 + j]! - (k - ee[j % 3]!)) < 1e-6, `${t}, ${j}`));
        assert.deepEqual(Array.from(row.subarray(14)), [1, 0, 1]);
      }
      const layout = layoutOf(features);
      assert.deepEqual(layout, { endEffector: true, keyframes: { latentDim: 2, events: {} } });
      assert.ok(featureSources(layout).keyframes, 'restored from the layout');
    } finally {
      features.close();
    }
  },
);
