/**
 * Cartesian controller for the scripted experts: drives the end effector toward a target
 * position with the gripper pointing straight down and the fingers along a given yaw, by
 * damped-least-squares inverse kinematics on MuJoCo Jacobians. Output is a normalised action.
 */
import type { RobotDescription } from '../../src/core/robotDescription.ts';
import { type ArmKinematics, dampedLeastSquares } from '../armKinematics.ts';

export interface CartesianTarget {
  pos: readonly [number, number, number];
  /** Finger axis direction in the table plane, radians. */
  yaw: number;
  /** Yaw symmetry of the grasp: π/2 for a square block, π for a paddle. */
  yawPeriod: number;
  close: boolean;
}

/** Largest Cartesian correction asked for in one tick (m): keeps paths close to straight lines,
 * and small, smooth steps are what a cloned policy learns best (0.06 halved BC success). */
const MAX_CARTESIAN_STEP = 0.03;
const DAMPING = 0.04;

export class IkController {
  readonly robot: RobotDescription;
  readonly kinematics: ArmKinematics;

  constructor(robot: RobotDescription, kinematics: ArmKinematics) {
    this.robot = robot;
    this.kinematics = kinematics;
  }

  /** End-effector position at arm joint positions q. */
  endEffector(q: ArrayLike<number>): { pos: Float64Array; mat: Float64Array } {
    return this.kinematics.pose(q);
  }

  /** Action (normalised arm deltas + gripper) moving from joint positions q toward the target. */
  act(q: ArrayLike<number>, target: CartesianTarget): Float32Array {
    const { pos, mat, jacobian } = this.kinematics.pose(q);
    const n = this.kinematics.nArm;
    const ep = [target.pos[0] - pos[0]!, target.pos[1] - pos[1]!, target.pos[2] - pos[2]!];
    const norm = Math.hypot(ep[0]!, ep[1]!, ep[2]!);
    if (norm > MAX_CARTESIAN_STEP) for (let i = 0; i < 3; i++) ep[i]! *= MAX_CARTESIAN_STEP / norm;
    // Current axes are the columns of the row-major site matrix.
    const approach = [mat[0]!, mat[3]!, mat[6]!];
    const fingers = [mat[1]!, mat[4]!, mat[7]!];
    const yaw = nearestSymmetricYaw(target.yaw, target.yawPeriod, Math.atan2(fingers[1]!, fingers[0]!));
    const er = add(cross(approach, [0, 0, -1]), cross(fingers, [Math.cos(yaw), Math.sin(yaw), 0])).map((v) => 0.5 * v);
    const dq = dampedLeastSquares(jacobian, n, [...ep, ...er], DAMPING);
    const joints = this.robot.arm.joints;
    // Scale the whole step uniformly so no joint exceeds its maximum step (keeps the direction).
    let scale = 1;
    for (let i = 0; i < n; i++) scale = Math.max(scale, Math.abs(dq[i]!) / joints[i]!.maxStep);
    const action = new Float32Array(n + 1);
    for (let i = 0; i < n; i++) action[i] = dq[i]! / scale / joints[i]!.maxStep;
    action[n] = target.close ? 1 : -1;
    return action;
  }
}

/** The yaw among yaw + k·period closest to the current yaw. */
export function nearestSymmetricYaw(yaw: number, period: number, current: number): number {
  const k = Math.round((current - yaw) / period);
  return yaw + k * period;
}

function cross(a: number[], b: number[]): number[] {
  return [a[1]! * b[2]! - a[2]! * b[1]!, a[2]! * b[0]! - a[0]! * b[2]!, a[0]! * b[1]! - a[1]! * b[0]!];
}

function add(a: number[], b: number[]): number[] {
  return a.map((v, i) => v + b[i]!);
}
