/**
 * The end-effector frame the experts plan with: which axis of the end-effector site points out
 * of the gripper, toward what it grasps (approach), and which runs between the jaws, the way they
 * close (closing). A description may declare them (`endEffectorAxes`); otherwise they are derived
 * from the model at the home pose:
 *
 * - approach: the site axis nearest the direction from the last arm joint to the site;
 * - closing: the site axis nearest the way the gripper's first joint moves the site's point (a
 *   slide joint's axis; for a hinge, a revolute jaw, the direction the point turns), across the
 *   approach.
 */
import type { MjData, MjModel } from 'mujoco';
import type { Axis, RobotDescription, SignedAxis } from '../src/core/robotDescription.ts';
import type { Mujoco } from './mujocoRuntime.ts';

export interface EndEffectorAxes {
  approach: SignedAxis;
  closing: Axis;
}

export interface DerivedAxes extends EndEffectorAxes {
  /** Cosine between each derived direction and the site axis chosen for it (1: exactly along it). */
  fit: { approach: number; closing: number };
  /** What the gripper's first joint is: a slide joint (parallel fingers) or a hinge (a revolute jaw). */
  gripper: 'slide' | 'hinge';
}

const AXIS_INDEX: Record<Axis, number> = { x: 0, y: 1, z: 2 };
const AXIS_NAMES: readonly Axis[] = ['x', 'y', 'z'];

/** The approach axis in the world, from the site's row-major 3×3 matrix (its axes are the columns). */
export function approachDirection(mat: ArrayLike<number>, axes: EndEffectorAxes): [number, number, number] {
  const c = AXIS_INDEX[axes.approach[1] as Axis];
  const s = axes.approach[0] === '-' ? -1 : 1;
  return [s * mat[c]!, s * mat[3 + c]!, s * mat[6 + c]!];
}

/** The closing axis in the world (its sign is arbitrary: the jaws close from both sides). */
export function closingDirection(mat: ArrayLike<number>, axes: EndEffectorAxes): [number, number, number] {
  const c = AXIS_INDEX[axes.closing];
  return [mat[c]!, mat[3 + c]!, mat[6 + c]!];
}

/** The declared axes, else those derived from the model. */
export function endEffectorAxes(mj: Mujoco, model: MjModel, robot: RobotDescription): EndEffectorAxes {
  return robot.endEffectorAxes ?? deriveEndEffectorAxes(mj, model, robot);
}

/** Derive the axes from the model at the arm's home pose (gripper open). */
export function deriveEndEffectorAxes(mj: Mujoco, model: MjModel, robot: RobotDescription): DerivedAxes {
  const data = new mj.MjData(model);
  try {
    const T = mj.mjtObj;
    const jointId = (name: string) => mj.mj_name2id(model, T.mjOBJ_JOINT.value, name);
    const qpos = data.qpos as Float64Array;
    const qposAdr = model.jnt_qposadr as Int32Array;
    robot.arm.joints.forEach((j, i) => {
      qpos[qposAdr[jointId(j.name)]!] = robot.arm.home[i]!;
    });
    mj.mj_kinematics(model, data);
    const site = mj.mj_name2id(model, T.mjOBJ_SITE.value, robot.endEffectorSite);
    const sitePos = vec(data.site_xpos as Float64Array, site);
    const mat = (data.site_xmat as Float64Array).slice(9 * site, 9 * site + 9);
    const lastArm = jointId(robot.arm.joints.at(-1)!.name);
    const outward = sub(sitePos, anchorOf(data, lastArm));
    const approach = nearestAxis(mat, outward, []);
    const jaw = jointId(robot.gripper.joints[0]!);
    const slide = (model.jnt_type as Int32Array)[jaw] === mj.mjtJoint.mjJNT_SLIDE.value;
    const jawAxis = vec(data.xaxis as Float64Array, jaw);
    const motion = slide ? jawAxis : cross(jawAxis, sub(sitePos, anchorOf(data, jaw)));
    const closing = nearestAxis(mat, motion, [approach.index]);
    return {
      approach: `${approach.sign > 0 ? '+' : '-'}${AXIS_NAMES[approach.index]!}` as SignedAxis,
      closing: AXIS_NAMES[closing.index]!,
      fit: { approach: approach.cosine, closing: closing.cosine },
      gripper: slide ? 'slide' : 'hinge',
    };
  } finally {
    data.delete();
  }
}

function anchorOf(data: MjData, joint: number): number[] {
  return vec(data.xanchor as Float64Array, joint);
}

/** The site axis (a column of its matrix) nearest a direction, skipping some; with its sign and |cosine|. */
function nearestAxis(
  mat: Float64Array,
  direction: number[],
  skip: number[],
): { index: number; sign: number; cosine: number } {
  const norm = Math.hypot(...direction) || 1;
  let best = { index: -1, sign: 1, cosine: -1 };
  for (let c = 0; c < 3; c++) {
    if (skip.includes(c)) continue;
    const dot = (mat[c]! * direction[0]! + mat[3 + c]! * direction[1]! + mat[6 + c]! * direction[2]!) / norm;
    if (Math.abs(dot) > best.cosine) best = { index: c, sign: dot >= 0 ? 1 : -1, cosine: Math.abs(dot) };
  }
  return best;
}

function vec(buffer: Float64Array, i: number): number[] {
  return [buffer[3 * i]!, buffer[3 * i + 1]!, buffer[3 * i + 2]!];
}

function sub(a: number[], b: number[]): number[] {
  return a.map((v, i) => v - b[i]!);
}

function cross(a: number[], b: number[]): number[] {
  return [a[1]! * b[2]! - a[2]! * b[1]!, a[2]! * b[0]! - a[0]! * b[2]!, a[0]! * b[1]! - a[1]! * b[0]!];
}
