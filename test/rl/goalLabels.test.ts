/** Goal labels: where each recorded episode's goal was, from the simulator's state or the gripper. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadRobot } from '../../src/core/robotDescription.ts';
import type { Episode } from '../../src/core/types.ts';
import { goalLabels, goalLabelsOfRobot } from '../../src/rl/corrections/goalLabels.ts';
import { ArmKinematics } from '../../sim/armKinematics.ts';
import { makeTestEpisode } from '../helpers/episodes.ts';

/** A 4-step episode whose joint positions are (t, 10 t, 100 t, …) and whose success held at `succeeded`. */
function episode(seed: number, succeeded: number[], stateGoal?: number[]): Episode {
  const e = makeTestEpisode({ seed, steps: 4, qposDim: 3, stateDim: stateGoal ? 5 : 0, success: succeeded.length > 0 });
  e.qpos = Float32Array.from({ length: 5 * 3 }, (_, i) => Math.floor(i / 3) * 10 ** (i % 3));
  e.successes = Uint8Array.from({ length: 5 }, (_, t) => (succeeded.includes(t) ? 1 : 0));
  if (stateGoal) for (let t = 0; t <= 4; t++) e.state.set([9, 9, ...stateGoal], t * 5);
  return e;
}
/** The "gripper" is the first three joint positions here: the labels' arithmetic without a robot. */
const joints = (qpos: Float32Array) => qpos.subarray(0, 3);

test('goalLabels: the state records the goal; a successful episode shows it where its gripper last succeeded', () => {
  const episodes = [
    episode(1, [2, 3], [0.4, -0.1, 0.2]), // the simulator's: state and success
    episode(2, [1, 2]), // an arm's demonstration: succeeded at steps 1–2, moved on after
    episode(3, []), // failed, no state: no goal
  ];
  // Auto: the state's goal where recorded, else the gripper at step 2 (joints 2, 20, 200).
  const auto = goalLabels(episodes, 'auto', joints);
  assert.deepEqual(auto[0], { xyz: [0.4, -0.1, 0.2].map(Math.fround), from: 'state' });
  assert.deepEqual(auto[1], { xyz: [2, 20, 200], from: 'gripper' });
  assert.equal(auto[2], undefined);
  // Gripper only: the first episode's gripper at step 3, its state left aside.
  assert.deepEqual(
    goalLabels(episodes, 'gripper', joints).map((l) => l?.xyz),
    [[3, 30, 300], [2, 20, 200], undefined],
  );
  // State only: the arm's demonstration gives none.
  assert.deepEqual(
    goalLabels(episodes, 'state', joints).map((l) => l?.from),
    ['state', undefined, undefined],
  );
  // An outcome labelled without per-step flags (an operator's): the gripper at the last step.
  const labelled = { ...episode(4, []), success: true };
  assert.deepEqual(goalLabels([labelled], 'gripper', joints)[0]?.xyz, [4, 40, 400]);
});

test("goalLabelsOfRobot: the gripper's goal is the robot's forward kinematics at the step that succeeded", async () => {
  const robot = loadRobot('vx300');
  const kinematics = await ArmKinematics.create(robot);
  try {
    const home = [0.0, -0.35, 0.55, 0.0, 1.35, 0.0, 0.02, 0.02];
    const D = home.length;
    const e = makeTestEpisode({ seed: 5, steps: 2, qposDim: D, stateDim: 0, success: true, robot: robot.name });
    e.qpos = Float32Array.from([...home, ...home.map((q, i) => (i === 0 ? 0.5 : q)), ...home]);
    e.successes = Uint8Array.from([0, 1, 0]);
    const [label] = await goalLabelsOfRobot([e], 'auto', robot);
    const expected = kinematics.pose(e.qpos.subarray(D, D + kinematics.nArm)).pos;
    assert.equal(label?.from, 'gripper');
    label!.xyz.forEach((v, j) => assert.ok(Math.abs(v - expected[j]!) < 1e-9, `coordinate ${j}`));
    // Step 1 turns the base joint by 0.5 rad: not where the arm started or ended.
    const start = kinematics.pose(e.qpos.subarray(0, kinematics.nArm)).pos;
    assert.ok(Math.hypot(label!.xyz[0] - start[0]!, label!.xyz[1] - start[1]!) > 0.1);
  } finally {
    kinematics.close();
  }
});
