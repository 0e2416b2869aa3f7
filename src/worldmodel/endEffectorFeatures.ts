/**
 * The end effector's position as world-model features: forward kinematics of the recorded joint
 * positions, computed by the caller's ArmPoses (MuJoCo's from the robot description, `sim/armKinematics.ts`, which
 * is also what a real arm's workspace check uses), appended to the perception state. Whether a reach succeeds
 * is decided by a centimetre or two of gripper position; a score head that must infer it from
 * joint angles through a small MLP ranks the policy's near misses no better than chance, one
 * that is given it does (`wmrl wm rank`; README "Is the world model any use?").
 *
 * With keyframes, KEYFRAME_DIM more follow: where the family's successful demonstrations had the gripper at each of
 * their events (close, open, end), read from the first frame's perception, minus the end effector, and which events
 * the family shows (keyframes.ts).
 */
import type { Episode } from '../core/types.ts';
import { KEYFRAME_DIM, type KeyframeLocaliser, keyframeFeatures } from './keyframes.ts';

/** Features appended per step: the end-effector site's position xyz (metres, world frame). */
export const END_EFFECTOR_DIM = 3;

/** The arm's forward kinematics: the end effector's position for its joint positions (the caller's, e.g. MuJoCo's). */
export interface ArmPoses {
  /** Arm joints (the first joint positions); the finger joints follow them. */
  readonly nArm: number;
  pose(q: ArrayLike<number>): { pos: ArrayLike<number> };
  close(): void;
}

/** The gripper's position in a recorded episode at step t: `kinematics` of its arm joints (world frame, metres). */
export function gripperPosition(kinematics: ArmPoses, e: Episode, t: number): ArrayLike<number> {
  return kinematics.pose(e.qpos.subarray(t * e.qposDim, t * e.qposDim + kinematics.nArm)).pos;
}

export interface EndEffectorOptions {
  /** Also append each demonstration keyframe relative to the end effector and which ones the family shows. */
  keyframes?: KeyframeLocaliser;
}

export class EndEffectorFeatures {
  readonly robot: string;
  readonly keyframes: KeyframeLocaliser | undefined;
  #kinematics: ArmPoses;

  /** Features of `robot`'s episodes computed with `kinematics`, which they own (close() closes it). */
  constructor(robot: string, kinematics: ArmPoses, options: EndEffectorOptions = {}) {
    this.robot = robot;
    this.#kinematics = kinematics;
    this.keyframes = options.keyframes;
  }

  /** The gripper's position in a recorded episode at step t (forward kinematics, world frame, metres). */
  gripperAt(e: Episode, t: number): ArrayLike<number> {
    return gripperPosition(this.#kinematics, e, t);
  }

  /** The first finger joint's index in the joint positions: the joint after the arm's. */
  get fingerJoint(): number {
    return this.#kinematics.nArm;
  }

  /** How many features `append` adds per step. */
  get dim(): number {
    return END_EFFECTOR_DIM + (this.keyframes ? KEYFRAME_DIM : 0);
  }

  /**
   * `perceived` (episodes with their state replaced by the policy's perception, Z per step) widened to
   * Z + dim: [state, end-effector xyz], with keyframes [each keyframe − end effector, which the family shows].
   * The keyframes are read from the first step's perception, so every step of an episode (and every imagined
   * step from it) sees the same ones.
   */
  append(perceived: Episode[]): Episode[] {
    return perceived.map((e) => {
      if (e.robot !== this.robot)
        throw new Error(
          `episode ${e.id} is of robot '${e.robot}'; these end-effector features compute ${this.robot}'s kinematics`,
        );
      const count = e.steps + 1;
      const Z = e.stateDim;
      const W = Z + this.dim;
      const state = new Float32Array(count * W);
      const keyframes = this.keyframes?.estimate(e.state.subarray(0, this.keyframes.latentDim), e.task);
      for (let t = 0; t < count; t++) {
        state.set(e.state.subarray(t * Z, (t + 1) * Z), t * W);
        const ee = this.gripperAt(e, t);
        state.set(ee, t * W + Z);
        if (keyframes) keyframeFeatures(keyframes, ee, state, t * W + Z + END_EFFECTOR_DIM);
      }
      return { ...e, state, stateDim: W };
    });
  }

  close(): void {
    this.#kinematics.close();
  }
}
