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

test(
  'EndEffectorFeatures.append with a goal: then the goal minus the end effector, from the recorded privileged ' +
    "state's last three numbers or from a localiser of the first step's perception; no privileged state refused",
  async () => {
    const robot = loadRobot('vx300');
    const nArm = robot.arm.joints.length;
    const qposDim = nArm + 1;
    const recorded = makeTestEpisode({ robot: 'vx300', steps: 2, qposDim, stateDim: 5 });
    recorded.qpos.forEach((_, i) => (recorded.qpos[i] = 0.2 * Math.cos(i)));
    // Privileged state: two numbers, then the goal (0.3, −0.1, 0.2) at every step.
    for (let t = 0; t <= 2; t++) recorded.state.set([9, 9, 0.3, -0.1, 0.2], t * 5);
    // What the world model's episodes hold before the features: the perception, 2 numbers a step.
    const perceived = { ...recorded, state: new Float32Array(3 * 2).fill(7), stateDim: 2 };
    const features = await EndEffectorFeatures.forRobot(robot, { goal: 'privileged' });
    try {
      assert.equal(features.dim, END_EFFECTOR_DIM + GOAL_DIM);
      const [out] = features.append([perceived], [recorded]);
      assert.equal(out!.stateDim, 2 + 6);
      for (let t = 0; t <= 2; t++) {
        const row = out!.state.subarray(t * 8, (t + 1) * 8);
        assert.deepEqual(Array.from(row.subarray(0, 2)), [7, 7], 'the perception first, unchanged');
        const ee = row.subarray(2, 5);
        // Then the goal relative to the gripper (float32 rounding apart).
        [0.3, -0.1, 0.2].forEach((g, j) => assert.ok(Math.abs(row[5 + j]! - (g - ee[j]!)) < 1e-6, `coordinate ${j}`));
      }
      assert.throws(
        () => features.append([perceived], [{ ...recorded, state: new Float32Array(0), stateDim: 0 }]),
        /no privileged state to read the goal from/,
      );
      assert.throws(() => features.append([perceived], []), /1 episodes but 0 recorded/);
      // A localiser reads the goal from the first step's perception ([7, 7]) and holds it for the episode.
      const localiser = { latentDim: 2, estimate: (z: ArrayLike<number>) => [0.1 * z[0]!, 0, 0.5] };
      const localised = await EndEffectorFeatures.forRobot(robot, { goal: localiser as unknown as GoalLocaliser });
      try {
        assert.equal(localised.goalKind, 'localised');
        const [l] = localised.append([perceived], [{ ...recorded, state: new Float32Array(0), stateDim: 0 }]);
        for (let t = 0; t <= 2; t++) {
          const row = l!.state.subarray(t * 8, (t + 1) * 8);
          [0.7, 0, 0.5].forEach((g, j) => assert.ok(Math.abs(row[5 + j]! - (g - row[2 + j]!)) < 1e-6, `${t}, ${j}`));
        }
      } finally {
        localised.close();
      }
    } finally {
      features.close();
    }
  },
);

test(
  "EndEffectorFeatures.append with an object: the instructed object (the privileged state's first three numbers) " +
    'minus the end effector, then its lift above where it stood at the start, after any goal; none refused',
  async () => {
    const robot = loadRobot('vx300');
    const qposDim = robot.arm.joints.length + 1;
    const recorded = makeTestEpisode({ robot: 'vx300', steps: 2, qposDim, stateDim: STATE_DIM });
    recorded.qpos.forEach((_, i) => (recorded.qpos[i] = 0.2 * Math.cos(i)));
    // The block rises 0, 3 and 8 cm; the goal (the state's last three) stays at (0.3, −0.1, 0.2).
    for (let t = 0; t <= 2; t++) {
      recorded.state.fill(0, t * STATE_DIM, (t + 1) * STATE_DIM);
      recorded.state.set([0.25, 0.05, 0.02 + [0, 0.03, 0.08][t]!], t * STATE_DIM);
      recorded.state.set([0.3, -0.1, 0.2], (t + 1) * STATE_DIM - 3);
    }
    const perceived = { ...recorded, state: new Float32Array(3 * 2).fill(7), stateDim: 2 };
    const features = await EndEffectorFeatures.forRobot(robot, { goal: 'privileged', object: 'privileged' });
    try {
      assert.equal(features.dim, END_EFFECTOR_DIM + GOAL_DIM + OBJECT_DIM);
      const [out] = features.append([perceived], [recorded]);
      const W = 2 + 10;
      assert.equal(out!.stateDim, W);
      for (let t = 0; t <= 2; t++) {
        const row = out!.state.subarray(t * W, (t + 1) * W);
        const ee = row.subarray(2, 5);
        [0.3, -0.1, 0.2].forEach((g, j) => assert.ok(Math.abs(row[5 + j]! - (g - ee[j]!)) < 1e-6, `goal ${j}`));
        const block = [0.25, 0.05, 0.02 + [0, 0.03, 0.08][t]!];
        block.forEach((o, j) => assert.ok(Math.abs(row[8 + j]! - (o - ee[j]!)) < 1e-6, `object ${t}, ${j}`));
        assert.ok(Math.abs(row[11]! - [0, 0.03, 0.08][t]!) < 1e-6, `lift at ${t}: ${row[11]}`);
      }
      assert.throws(
        () => features.append([perceived], [{ ...recorded, state: new Float32Array(3 * 5), stateDim: 5 }]),
        /no privileged state to read the object from/,
      );
    } finally {
      features.close();
    }
  },
);

test(
  "EndEffectorFeatures with a localised object held from the start: every step reads the first step's object " +
    "(minus that step's end effector), its lift 0; the layout records it and restores it; privileged refused",
  async () => {
    const robot = loadRobot('vx300');
    const qposDim = robot.arm.joints.length + 1;
    const recorded = makeTestEpisode({ robot: 'vx300', steps: 2, qposDim, stateDim: STATE_DIM });
    recorded.qpos.forEach((_, i) => (recorded.qpos[i] = 0.2 * Math.cos(i)));
    // Each step's perception [t, 0]; the localiser reads the block at (0.25 + 0.01·t, 0.05, 0.02): it moves.
    const perceived = { ...recorded, state: Float32Array.from([0, 0, 1, 0, 2, 0]), stateDim: 2 };
    const localiser = {
      latentDim: 2,
      estimate: (e: { state: Float32Array }, t: number) => [0.25 + 0.01 * e.state[t * 2]!, 0.05, 0.02],
      toJSON: () => ({ latentDim: 2, families: {} }),
    } as unknown as ObjectLocaliser;
    const each = await EndEffectorFeatures.forRobot(robot, { object: localiser });
    const held = await EndEffectorFeatures.forRobot(robot, { object: localiser, objectAtStart: true });
    try {
      assert.equal(each.objectKind, 'localised');
      assert.equal(held.objectKind, 'localisedStart');
      const [a] = each.append([perceived], [recorded]);
      const [b] = held.append([perceived], [recorded]);
      const W = 2 + END_EFFECTOR_DIM + OBJECT_DIM;
      for (let t = 0; t <= 2; t++) {
        const ra = a!.state.subarray(t * W, (t + 1) * W);
        const rb = b!.state.subarray(t * W, (t + 1) * W);
        const ee = rb.subarray(2, 5);
        // Read each step: the block where the localiser puts it then; held: where it was read at the start.
        assert.ok(Math.abs(ra[5]! - (0.25 + 0.01 * t - ee[0]!)) < 1e-6, `each step's x at ${t}`);
        assert.ok(Math.abs(rb[5]! - (0.25 - ee[0]!)) < 1e-6, `held x at ${t}`);
        [0.05, 0.02].forEach((o, j) => assert.ok(Math.abs(rb[6 + j]! - (o - ee[1 + j]!)) < 1e-6, `held ${j + 1}`));
        assert.equal(rb[8], 0, 'the held block never lifts');
      }
      const layout = layoutOf(held);
      assert.equal(layout.object, 'localisedStart');
      assert.equal(objectOfLayout(layout).objectAtStart, true);
      assert.equal(objectOfLayout(layoutOf(each)).objectAtStart, undefined);
      await assert.rejects(
        EndEffectorFeatures.forRobot(robot, { object: 'privileged', objectAtStart: true }),
        /holds a localised object/,
      );
    } finally {
      each.close();
      held.close();
    }
  },
);
