/**
 * wmrl's normalised actions ⇄ LeRobot's absolute joint targets.
 *
 * A wmrl action moves each arm joint's target by a fraction of its maximum step per tick and sets the
 * gripper (-1 open … +1 closed); JointTargets turns it into targets, clipped to the limits and kept
 * within two steps of the measured position. LeRobot's `action` is the target itself, in the units of
 * `observation.state`: radians for the arm, and here the gripper opening in [0, 1] (1 open), as wmrl
 * observes it. Both directions replay JointTargets from the episode's first measured position.
 */
import type { RobotDescription } from '../../core/robotDescription.ts';
import { clamp, JointTargets } from '../../envs/jointTargets.ts';

function openingOf(robot: RobotDescription, actuator: number): number {
  const g = robot.gripper;
  return (actuator - g.closed) / (g.open - g.closed);
}

function actuatorOf(robot: RobotDescription, opening: number): number {
  const g = robot.gripper;
  return g.closed + (g.open - g.closed) * opening;
}

function startTargets(robot: RobotDescription, qpos: Float32Array, dim: number): JointTargets {
  const arm = robot.arm.joints.length;
  return new JointTargets(robot, qpos.subarray(0, arm), actuatorOf(robot, qpos[dim - 1]!));
}

/**
 * The absolute targets of an episode's `steps` actions, one row per observation (`steps + 1` rows):
 * row t is what action t asked for; the last row holds the last targets (LeRobot stores an action
 * with every frame, wmrl has none after the last observation).
 */
export function targetsFromActions(
  robot: RobotDescription,
  episode: { steps: number; qpos: Float32Array; qposDim: number; actions: Float32Array; actionDim: number },
): Float32Array {
  const { steps, qpos, qposDim: dim, actions, actionDim } = episode;
  const arm = robot.arm.joints.length;
  const out = new Float32Array((steps + 1) * dim);
  const targets = startTargets(robot, qpos, dim);
  const row = new Float32Array(dim);
  row.set(qpos.subarray(0, dim));
  for (let t = 0; t < steps; t++) {
    const next = targets.apply(
      actions.subarray(t * actionDim, (t + 1) * actionDim),
      qpos.subarray(t * dim, t * dim + arm),
    );
    row.set(next.arm);
    row[dim - 1] = openingOf(robot, next.gripper);
    out.set(row, t * dim);
  }
  out.set(row, steps * dim);
  return out;
}

export interface ConvertedActions {
  actions: Float32Array;
  /** Arm values whose step to the target was larger than the joint's maximum step (clipped to ±1). */
  clipped: number;
}

/**
 * Normalised actions from absolute targets (`steps` rows of the observation's layout). Each arm value
 * is the step from wmrl's running target to the dataset's, over the joint's maximum step, clipped to
 * [-1, 1]; the running target then moves as JointTargets moves it, so a clipped step is made up later
 * instead of drifting. The gripper is 1 − 2 × opening target.
 */
export function actionsFromTargets(
  robot: RobotDescription,
  episode: { steps: number; qpos: Float32Array; qposDim: number; targets: Float32Array },
): ConvertedActions {
  const { steps, qpos, qposDim: dim, targets } = episode;
  const joints = robot.arm.joints;
  const arm = joints.length;
  const actions = new Float32Array(steps * dim);
  const running = startTargets(robot, qpos, dim);
  const action = new Float64Array(dim);
  let clipped = 0;
  for (let t = 0; t < steps; t++) {
    for (let i = 0; i < arm; i++) {
      const raw = (targets[t * dim + i]! - running.arm[i]!) / joints[i]!.maxStep;
      if (Math.abs(raw) > 1 + 1e-6) clipped++;
      action[i] = clamp(raw, -1, 1);
    }
    action[arm] = clamp(1 - 2 * targets[t * dim + arm]!, -1, 1);
    actions.set(action, t * dim);
    running.apply(actions.subarray(t * dim, (t + 1) * dim), qpos.subarray(t * dim, t * dim + arm));
  }
  return { actions, clipped };
}
