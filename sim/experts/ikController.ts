/**
 * Cartesian controller for the scripted experts: drives the end effector toward a target
 * position with the gripper's approach axis pointing straight down and its closing axis along a given yaw, by
 * damped-least-squares inverse kinematics on MuJoCo Jacobians. Output is a normalised action.
 */
import type { RobotDescription } from '../../src/core/robotDescription.ts';
import { type ArmKinematics, dampedLeastSquares } from '../armKinematics.ts';
import { approachDirection, closingDirection } from '../endEffectorFrame.ts';

export interface CartesianTarget {
  pos: readonly [number, number, number];
  /** Direction of the closing axis (between the jaws) in the table plane, radians. */
  yaw: number;
  /** Yaw symmetry of the grasp: π/2 for a square block, π for a paddle. */
  yawPeriod: number;
  close: boolean;
}

/** Largest Cartesian correction asked for in one tick (m): keeps paths close to straight lines,
 * and small, smooth steps are what a cloned policy learns best (0.06 halved BC success). */
const MAX_CARTESIAN_STEP = 0.03;
const DAMPING = 0.04;
/** Damping of the position rows' null-space projector: small, so that turning never undoes the position. */
const PROJECTOR_DAMPING = 1e-4;
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
    const approach = approachDirection(mat, this.kinematics.axes);
    const fingers = closingDirection(mat, this.kinematics.axes);
    const yaw = nearestSymmetricYaw(target.yaw, target.yawPeriod, Math.atan2(fingers[1]!, fingers[0]!));
    const er = add(cross(approach, [0, 0, -1]), cross(fingers, [Math.cos(yaw), Math.sin(yaw), 0])).map((v) => 0.5 * v);
    const joints = this.robot.arm.joints;
    const step = (dq: Float64Array) => stepScale(dq, joints);
    const dq = holdingLimits(
      dampedLeastSquares(jacobian, n, [...ep, ...er], DAMPING),
      jacobian,
      q,
      joints,
      ep,
      er,
      step,
    );
    const scale = step(dq);
    const action = new Float32Array(n + 1);
    for (let i = 0; i < n; i++) action[i] = dq[i]! / scale / joints[i]!.maxStep;
    action[n] = target.close ? 1 : -1;
    return action;
  }
}

/**
 * The step that reaches the position first and turns toward the orientation only with what the position leaves
 * free (its null space): once a joint is held at its limit, a short arm whose wrist cannot point straight down
 * there (a 5-joint arm near its base) tilts the gripper and still gets there.
 */
export function positionFirst(jacobian: Float64Array, n: number, ep: number[], er: number[]): Float64Array {
  const jp = jacobian.subarray(0, 3 * n);
  const jo = jacobian.subarray(3 * n, 6 * n);
  const dq1 = dampedLeastSquares(jp, n, ep, DAMPING);
  // Null-space projector N = I − J⁺J of the position rows, column by column.
  const nullSpace = new Float64Array(n * n);
  for (let k = 0; k < n; k++) {
    const column = dampedLeastSquares(jp, n, [jp[k]!, jp[n + k]!, jp[2 * n + k]!], PROJECTOR_DAMPING);
    for (let r = 0; r < n; r++) nullSpace[r * n + k] = (r === k ? 1 : 0) - column[r]!;
  }
  const joN = new Float64Array(3 * n);
  for (let r = 0; r < 3; r++)
    for (let c = 0; c < n; c++) {
      let s = 0;
      for (let k = 0; k < n; k++) s += jo[r * n + k]! * nullSpace[k * n + c]!;
      joN[r * n + c] = s;
    }
  const rest = er.map((e, r) => {
    let s = 0;
    for (let k = 0; k < n; k++) s += jo[r * n + k]! * dq1[k]!;
    return e - s;
  });
  const dq2 = dampedLeastSquares(joN, n, rest, DAMPING);
  return dq1.map((v, r) => {
    let s = v;
    for (let k = 0; k < n; k++) s += nullSpace[r * n + k]! * dq2[k]!;
    return s;
  });
}

/**
 * The step `dq` with every joint it would push past its command limit held there, and the others taking its share
 * (position first: positionFirst). `scaleOf` is the divisor the caller will apply to the step before taking it.
 */
export function holdingLimits(
  dq: Float64Array,
  jacobian: Float64Array,
  q: ArrayLike<number>,
  joints: RobotDescription['arm']['joints'],
  ep: number[],
  er: number[],
  scaleOf: (dq: Float64Array) => number,
): Float64Array {
  const n = joints.length;
  const held = new Set<number>();
  for (let round = 0; round < n; round++) {
    const scale = scaleOf(dq);
    const past = joints.flatMap((j, i) => {
      const next = q[i]! + dq[i]! / scale;
      return !held.has(i) && ((next > j.upper && dq[i]! > 0) || (next < j.lower && dq[i]! < 0)) ? [i] : [];
    });
    if (past.length === 0) break;
    for (const i of past) held.add(i);
    dq = positionFirst(
      Float64Array.from(jacobian, (v, k) => (held.has(k % n) ? 0 : v)),
      n,
      ep,
      er,
    );
  }
  return dq;
}

/** Divisor that brings the largest joint step within that joint's maximum step (1 when all are within). */
function stepScale(dq: Float64Array, joints: RobotDescription['arm']['joints']): number {
  let scale = 1;
  for (let i = 0; i < dq.length; i++) scale = Math.max(scale, Math.abs(dq[i]!) / joints[i]!.maxStep);
  return scale;
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
