/**
 * Forward kinematics and end-effector Jacobians of a robot arm, computed by MuJoCo on a private
 * copy of the robot's model (no objects), so experts can plan from observations alone.
 */
import type { DoubleBuffer, MjData, MjModel } from 'mujoco';
import type { RobotDescription } from '../src/core/robotDescription.ts';
import { armReach } from './armReach.ts';
import { getMujoco, type Mujoco } from './mujocoRuntime.ts';
import { compileRobotScene } from './robotModel.ts';
import { buildSceneXml } from './sceneBuilder.ts';
import { type EndEffectorAxes, endEffectorAxes } from './endEffectorFrame.ts';

export interface EndEffectorPose {
  pos: Float64Array;
  /** Row-major 3×3, the site's axes as columns (which is the approach and which the closing: `axes`). */
  mat: Float64Array;
  /** 6 × nArm, rows: linear xyz then angular xyz; row-major. */
  jacobian: Float64Array;
}

let instance = 0;

export class ArmKinematics {
  readonly nArm: number;
  /** The end-effector frame's approach and closing axes (declared, or derived from the model). */
  readonly axes: EndEffectorAxes;
  /** The arm's reach (m, armReach.ts), from which its task layout scale follows. */
  readonly reach: number;
  #mj: Mujoco;
  #model: MjModel;
  /** Whether close() deletes the model (not when it was lent: forModel). */
  #ownsModel: boolean;
  #data: MjData;
  #qposAdr: number[];
  #dofAdr: number[];
  #site: number;
  #jacp: DoubleBuffer;
  #jacr: DoubleBuffer;

  private constructor(mj: Mujoco, robot: RobotDescription, model?: MjModel) {
    this.#mj = mj;
    this.#ownsModel = model === undefined;
    this.#model =
      model ??
      compileRobotScene(
        mj,
        robot,
        (robotFile) => buildSceneXml(robot, { objects: [], zones: 0 }, { robotFile }),
        `kinematics${instance++}`,
      );
    this.#data = new mj.MjData(this.#model);
    const jnt = robot.arm.joints.map((j) => mj.mj_name2id(this.#model, mj.mjtObj.mjOBJ_JOINT.value, j.name));
    this.#qposAdr = jnt.map((j) => (this.#model.jnt_qposadr as Int32Array)[j]!);
    this.#dofAdr = jnt.map((j) => (this.#model.jnt_dofadr as Int32Array)[j]!);
    this.#site = mj.mj_name2id(this.#model, mj.mjtObj.mjOBJ_SITE.value, robot.endEffectorSite);
    this.nArm = jnt.length;
    this.axes = endEffectorAxes(mj, this.#model, robot);
    this.reach = armReach(mj, this.#model, robot);
    const nv = this.#model.nv;
    this.#jacp = new mj.DoubleBuffer(3 * nv);
    this.#jacr = new mj.DoubleBuffer(3 * nv);
  }

  static async create(robot: RobotDescription): Promise<ArmKinematics> {
    return new ArmKinematics(await getMujoco(), robot);
  }

  /**
   * Kinematics on a model already compiled from the robot's scene (a mesh arm takes seconds to compile), whose
   * every name the description gives is known to be there; close() leaves the model to its owner.
   */
  static forModel(mj: Mujoco, model: MjModel, robot: RobotDescription): ArmKinematics {
    return new ArmKinematics(mj, robot, model);
  }

  /** End-effector pose and Jacobian at arm joint positions `q`. */
  pose(q: ArrayLike<number>): EndEffectorPose {
    const qpos = this.#data.qpos as Float64Array;
    for (let i = 0; i < this.nArm; i++) qpos[this.#qposAdr[i]!] = q[i]!;
    this.#mj.mj_kinematics(this.#model, this.#data);
    this.#mj.mj_comPos(this.#model, this.#data);
    this.#mj.mj_jacSite(this.#model, this.#data, this.#jacp, this.#jacr, this.#site);
    const nv = this.#model.nv;
    const jp = this.#jacp.GetView() as Float64Array;
    const jr = this.#jacr.GetView() as Float64Array;
    const jacobian = new Float64Array(6 * this.nArm);
    for (let r = 0; r < 3; r++) {
      for (let c = 0; c < this.nArm; c++) {
        jacobian[r * this.nArm + c] = jp[r * nv + this.#dofAdr[c]!]!;
        jacobian[(r + 3) * this.nArm + c] = jr[r * nv + this.#dofAdr[c]!]!;
      }
    }
    const s = this.#site;
    return {
      pos: (this.#data.site_xpos as Float64Array).slice(3 * s, 3 * s + 3),
      mat: (this.#data.site_xmat as Float64Array).slice(9 * s, 9 * s + 9),
      jacobian,
    };
  }

  close(): void {
    this.#jacp.delete();
    this.#jacr.delete();
    this.#data.delete();
    if (this.#ownsModel) this.#model.delete();
  }
}

/**
 * Damped least squares: dq = Jᵀ (J Jᵀ + λ² I)⁻¹ e, for a 6 × n Jacobian (row-major).
 */
export function dampedLeastSquares(
  jacobian: Float64Array,
  n: number,
  error: ArrayLike<number>,
  lambda: number,
): Float64Array {
  const m = error.length;
  // A = J Jᵀ + λ² I  (m × m), solved by Gaussian elimination with partial pivoting.
  const a = new Float64Array(m * m);
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < m; j++) {
      let s = 0;
      for (let k = 0; k < n; k++) s += jacobian[i * n + k]! * jacobian[j * n + k]!;
      a[i * m + j] = s + (i === j ? lambda * lambda : 0);
    }
  }
  const y = Float64Array.from(error);
  for (let col = 0; col < m; col++) {
    let pivot = col;
    for (let r = col + 1; r < m; r++) if (Math.abs(a[r * m + col]!) > Math.abs(a[pivot * m + col]!)) pivot = r;
    if (pivot !== col) {
      for (let c = 0; c < m; c++) [a[col * m + c], a[pivot * m + c]] = [a[pivot * m + c]!, a[col * m + c]!];
      [y[col], y[pivot]] = [y[pivot]!, y[col]!];
    }
    const d = a[col * m + col]!;
    for (let r = col + 1; r < m; r++) {
      const f = a[r * m + col]! / d;
      if (f === 0) continue;
      for (let c = col; c < m; c++) a[r * m + c]! -= f * a[col * m + c]!;
      y[r]! -= f * y[col]!;
    }
  }
  for (let r = m - 1; r >= 0; r--) {
    let s = y[r]!;
    for (let c = r + 1; c < m; c++) s -= a[r * m + c]! * y[c]!;
    y[r] = s / a[r * m + r]!;
  }
  const dq = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    let s = 0;
    for (let i = 0; i < m; i++) s += jacobian[i * n + k]! * y[i]!;
    dq[k] = s;
  }
  return dq;
}
