/** End-effector features: forward kinematics of the recorded joints appended to the world model's state. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadRobot } from '../../src/core/robotDescription.ts';
import {
  EndEffectorFeatures,
  END_EFFECTOR_DIM,
  GOAL_DIM,
  OBJECT_DIM,
} from '../../src/worldmodel/endEffectorFeatures.ts';
import { ArmKinematics } from '../../sim/armKinematics.ts';
import type { GoalLocaliser } from '../../src/worldmodel/goalLocaliser.ts';
import type { ObjectLocaliser } from '../../src/worldmodel/objectLocaliser.ts';
import { layoutOf, objectOfLayout } from '../../src/worldmodel/perceptionWorldModel.ts';
import { makeTestEpisode } from '../helpers/episodes.ts';
import { STATE_DIM } from '../../sim/privilegedState.ts';

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
  'EndEffectorFeatures.append with a goal: then the goal minus the end effector, the goal read by a localiser ' +
    "from the first step's perception and held for the episode",
  async () => {
    const robot = loadRobot('vx300');
    const qposDim = robot.arm.joints.length + 1;
    const recorded = makeTestEpisode({ robot: 'vx300', steps: 2, qposDim, stateDim: 5 });
    recorded.qpos.forEach((_, i) => (recorded.qpos[i] = 0.2 * Math.cos(i)));
    // What the world model's episodes hold before the features: the perception, 2 numbers a step.
    const perceived = { ...recorded, state: new Float32Array(3 * 2).fill(7), stateDim: 2 };
    // A localiser reads the goal from the first step's perception ([7, 7]) and holds it for the episode.
    const localiser = { latentDim: 2, estimate: (z: ArrayLike<number>) => [0.1 * z[0]!, 0, 0.5] };
    const localised = new EndEffectorFeatures(robot.name, await ArmKinematics.create(robot), {
      goal: localiser as unknown as GoalLocaliser,
    });
    try {
      assert.equal(localised.dim, END_EFFECTOR_DIM + GOAL_DIM);
      assert.equal(localised.goalKind, 'localised');
      const [l] = localised.append([perceived]);
      assert.equal(l!.stateDim, 2 + 6);
      for (let t = 0; t <= 2; t++) {
        const row = l!.state.subarray(t * 8, (t + 1) * 8);
        assert.deepEqual(Array.from(row.subarray(0, 2)), [7, 7], 'the perception first, unchanged');
        [0.7, 0, 0.5].forEach((g, j) => assert.ok(Math.abs(row[5 + j]! - (g - row[2 + j]!)) < 1e-6, `${t}, ${j}`));
      }
    } finally {
      localised.close();
    }
  },
);

test(
  'EndEffectorFeatures with a localised object: each step the object the localiser reads minus the end effector, ' +
    'then its lift above where it stood at the start, after any goal; the layout records and restores it, and a ' +
    'layout of a removed kind is refused with what to do',
  async () => {
    const robot = loadRobot('vx300');
    const qposDim = robot.arm.joints.length + 1;
    const recorded = makeTestEpisode({ robot: 'vx300', steps: 2, qposDim, stateDim: STATE_DIM });
    recorded.qpos.forEach((_, i) => (recorded.qpos[i] = 0.2 * Math.cos(i)));
    // Each step's perception [t, 0]; the localiser reads the block at (0.25 + 0.01·t, 0.05, 0.02 + 0.03·t).
    const perceived = { ...recorded, state: Float32Array.from([0, 0, 1, 0, 2, 0]), stateDim: 2 };
    const localiser = {
      latentDim: 2,
      estimate: (e: { state: Float32Array }, t: number) => [
        0.25 + 0.01 * e.state[t * 2]!,
        0.05,
        0.02 + 0.03 * e.state[t * 2]!,
      ],
      toJSON: () => ({ latentDim: 2, families: {} }),
    } as unknown as ObjectLocaliser;
    const goal = {
      latentDim: 2,
      estimate: () => [0.3, -0.1, 0.2],
      toJSON: () => ({ latentDim: 2, families: {} }),
    } as unknown as GoalLocaliser;
    const features = new EndEffectorFeatures(robot.name, await ArmKinematics.create(robot), {
      goal,
      object: localiser,
    });
    try {
      assert.equal(features.dim, END_EFFECTOR_DIM + GOAL_DIM + OBJECT_DIM);
      assert.equal(features.objectKind, 'localised');
      const [out] = features.append([perceived]);
      const W = 2 + 10;
      assert.equal(out!.stateDim, W);
      for (let t = 0; t <= 2; t++) {
        const row = out!.state.subarray(t * W, (t + 1) * W);
        const ee = row.subarray(2, 5);
        [0.3, -0.1, 0.2].forEach((g, j) => assert.ok(Math.abs(row[5 + j]! - (g - ee[j]!)) < 1e-6, `goal ${j}`));
        const block = [0.25 + 0.01 * t, 0.05, 0.02 + 0.03 * t];
        block.forEach((o, j) => assert.ok(Math.abs(row[8 + j]! - (o - ee[j]!)) < 1e-6, `object ${t}, ${j}`));
        assert.ok(Math.abs(row[11]! - 0.03 * t) < 1e-6, `lift at ${t}: ${row[11]}`);
      }
      const layout = layoutOf(features);
      assert.equal(layout.object, 'localised');
      assert.ok(objectOfLayout(layout).object, 'restored from the layout');
      assert.throws(
        () => objectOfLayout({ ...layout, object: 'localisedStart' }),
        /worldModel\.object=localisedStart, which this version no longer reads: train a new world model/,
      );
    } finally {
      features.close();
    }
  },
);
