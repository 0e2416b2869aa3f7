/**
 * The last check before a joint command reaches an arm, run by the rosbridge client and,
 * independently, by the sim server (as a real robot's controller would): a non-finite value is
 * refused (never clamped into something plausible), positions are clamped to the joint limits
 * and to a maximum step from the measured position, and an optional workspace box stops the
 * end effector from leaving the region the robot may work in.
 */
import type { RobotDescription } from '../core/robotDescription.ts';

export class UnsafeCommandError extends Error {
  override name = 'UnsafeCommandError';
}

export interface WorkspaceGuard {
  min: readonly [number, number, number];
  max: readonly [number, number, number];
  /** End-effector position (world) at arm joint positions q: forward kinematics of the robot. */
  endEffector: (q: ArrayLike<number>) => ArrayLike<number>;
}

export interface SafetyFilterOptions {
  robot: RobotDescription;
  /**
   * How far a commanded position may lead the measured one, in multiples of the joint's
   * maxStep. JointTargets lets targets lead by two steps (so the arm still moves a full step
   * per tick under load); 2 therefore passes every command it makes unchanged.
   */
  maxStepFactor?: number;
  /** End-effector box (off when absent). */
  workspace?: WorkspaceGuard;
}

export interface FilteredCommand {
  arm: Float64Array;
  gripper: number;
  /** Which limits changed the command (empty when it passed unchanged). */
  clipped: ('joint-limit' | 'max-step' | 'gripper-range' | 'workspace')[];
}

export class SafetyFilter {
  readonly robot: RobotDescription;
  readonly maxStepFactor: number;
  readonly workspace: WorkspaceGuard | undefined;

  constructor(options: SafetyFilterOptions) {
    this.robot = options.robot;
    this.maxStepFactor = options.maxStepFactor ?? 2;
    if (!(this.maxStepFactor > 0)) throw new Error(`maxStepFactor must be > 0, got ${this.maxStepFactor}`);
    this.workspace = options.workspace;
  }

  /**
   * Filter one command: `arm` joint positions (radians, description order) and the gripper
   * target, given the measured arm positions. Throws UnsafeCommandError for a wrong length or a
   * non-finite value: such a command is refused as a whole, the caller keeps the last safe one.
   */
  filter(arm: ArrayLike<number>, gripper: number, measured: ArrayLike<number>): FilteredCommand {
    const joints = this.robot.arm.joints;
    if (arm.length !== joints.length)
      throw new UnsafeCommandError(
        `arm command has ${arm.length} values; robot '${this.robot.name}' has ${joints.length} arm joints`,
      );
    if (measured.length !== joints.length)
      throw new UnsafeCommandError(`measured arm state has ${measured.length} values; expected ${joints.length}`);
    for (let i = 0; i < arm.length; i++) {
      if (!Number.isFinite(arm[i]))
        throw new UnsafeCommandError(`arm command for joint '${joints[i]!.name}' is ${arm[i]}: refused`);
      if (!Number.isFinite(measured[i]))
        throw new UnsafeCommandError(
          `measured position of joint '${joints[i]!.name}' is ${measured[i]}: refusing to move`,
        );
    }
    if (!Number.isFinite(gripper)) throw new UnsafeCommandError(`gripper command is ${gripper}: refused`);
    const clipped = new Set<FilteredCommand['clipped'][number]>();
    const out = new Float64Array(joints.length);
    joints.forEach((j, i) => {
      let q = arm[i]!;
      const reach = this.maxStepFactor * j.maxStep;
      const m = measured[i]!;
      if (q > m + reach || q < m - reach) {
        q = Math.min(m + reach, Math.max(m - reach, q));
        clipped.add('max-step');
      }
      if (q > j.upper || q < j.lower) {
        q = Math.min(j.upper, Math.max(j.lower, q));
        clipped.add('joint-limit');
      }
      out[i] = q;
    });
    const g = this.robot.gripper;
    const lo = Math.min(g.open, g.closed);
    const hi = Math.max(g.open, g.closed);
    let grip = gripper;
    if (grip < lo || grip > hi) {
      grip = Math.min(hi, Math.max(lo, grip));
      clipped.add('gripper-range');
    }
    if (this.workspace && !this.#insideOrCloser(out, measured)) {
      // Leaving the box: hold the arm where it is measured (the gripper may still act).
      out.set(Array.from(measured, (m, i) => Math.min(joints[i]!.upper, Math.max(joints[i]!.lower, m))));
      clipped.add('workspace');
    }
    return { arm: out, gripper: grip, clipped: [...clipped] };
  }

  /** A target is allowed inside the box, or outside it if it brings the end effector no further out. */
  #insideOrCloser(target: ArrayLike<number>, measured: ArrayLike<number>): boolean {
    const w = this.workspace!;
    const outside = (p: ArrayLike<number>) => {
      let d = 0;
      for (let k = 0; k < 3; k++) d += Math.max(0, w.min[k]! - p[k]!) ** 2 + Math.max(0, p[k]! - w.max[k]!) ** 2;
      return Math.sqrt(d);
    };
    const next = outside(w.endEffector(target));
    return next === 0 || next <= outside(w.endEffector(measured)) + 1e-9;
  }
}
