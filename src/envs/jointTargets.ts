/**
 * Turns normalised actions into joint position targets: each arm value in [-1, 1] moves the
 * target by that fraction of the joint's maximum step per tick; the gripper value maps
 * -1 → open … +1 → closed. Targets stay inside the joint limits and never run ahead of the
 * measured position by more than two steps (no wind-up when the arm is blocked).
 */
import type { RobotDescription } from '../core/robotDescription.ts';

export class NonFiniteActionError extends Error {
  override name = 'NonFiniteActionError';
}

export class JointTargets {
  readonly robot: RobotDescription;
  readonly arm: Float64Array;
  gripper: number;

  constructor(robot: RobotDescription, armStart: ArrayLike<number>, gripperStart: number) {
    this.robot = robot;
    this.arm = Float64Array.from(armStart);
    this.gripper = gripperStart;
  }

  /** Apply one action; returns the new targets (this object's own arrays). */
  apply(action: ArrayLike<number>, measuredArm: ArrayLike<number>): { arm: Float64Array; gripper: number } {
    const joints = this.robot.arm.joints;
    if (action.length !== joints.length + 1) {
      throw new Error(
        `action has ${action.length} values; robot '${this.robot.name}' ` +
          `needs ${joints.length + 1} (arm joints + gripper)`,
      );
    }
    for (let i = 0; i < action.length; i++) {
      if (!Number.isFinite(action[i]))
        throw new NonFiniteActionError(`action[${i}] is ${action[i]}: refused, not applied`);
    }
    joints.forEach((j, i) => {
      const step = clamp(action[i]!, -1, 1) * j.maxStep;
      const measured = measuredArm[i]!;
      const next = clamp(this.arm[i]! + step, measured - 2 * j.maxStep, measured + 2 * j.maxStep);
      this.arm[i] = clamp(next, j.lower, j.upper);
    });
    const g = this.robot.gripper;
    const closeness = (clamp(action[joints.length]!, -1, 1) + 1) / 2;
    const wanted = g.open + (g.closed - g.open) * closeness;
    this.gripper = clamp(wanted, this.gripper - g.maxStep, this.gripper + g.maxStep);
    return { arm: this.arm, gripper: this.gripper };
  }
}

export function clamp(x: number, lo: number, hi: number): number {
  return x < lo ? lo : x > hi ? hi : x;
}
