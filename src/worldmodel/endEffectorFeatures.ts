/**
 * The end effector's position as world-model features: forward kinematics of the recorded joint
 * positions, computed by the caller's ArmPoses (MuJoCo's from the robot description, `sim/armKinematics.ts`, which
 * is also what a real arm's workspace check uses), appended to the perception state. Whether a reach succeeds
 * is decided by a centimetre or two of gripper position; a score head that must infer it from
 * joint angles through a small MLP ranks the policy's near misses no better than chance, one
 * that is given it does (`wmrl wm rank`; README "Is the world model any use?").
 *
 * With a goal, three more features follow: the task's goal minus the end effector. The goal comes from
 * a GoalLocaliser (the policy's perception of the episode's first frame). Told the goal, the score head
 * ranks reach's near misses.
 *
 * With an object, four more follow: the instructed object minus the end effector, and the object's
 * height above where it stood at the episode's start. Pick succeeds by a lift: the perception latent
 * holds the block only implicitly. The object comes from an ObjectLocaliser (each step's perception,
 * gripper and fingers).
 *
 * With keyframes, KEYFRAME_DIM more follow: where the family's successful demonstrations had the gripper at each of
 * their events (close, open, end), read from the first frame's perception, minus the end effector, and which events
 * the family shows (keyframes.ts).
 */
import type { Episode } from '../core/types.ts';
import { OBJECT_FEATURES } from '../tasks/familyDef.ts';
import type { GoalLocaliser } from './goalLocaliser.ts';
import { KEYFRAME_DIM, type KeyframeLocaliser, keyframeFeatures } from './keyframes.ts';
import type { GripperReading, ObjectLocaliser } from './objectLocaliser.ts';

/** Features appended per step: the end-effector site's position xyz (metres, world frame). */
export const END_EFFECTOR_DIM = 3;
/** Features a goal appends after those: the goal minus the end effector (metres). */
export const GOAL_DIM = 3;

/** Features an object appends after those: the object minus the end effector (metres), its lift (metres). */
export const OBJECT_DIM = OBJECT_FEATURES;

/** The arm's forward kinematics: the end effector's position for its joint positions (the caller's, e.g. MuJoCo's). */
export interface ArmPoses {
  /** Arm joints (the first joint positions); the finger joints follow them. */
  readonly nArm: number;
  pose(q: ArrayLike<number>): { pos: ArrayLike<number> };
  close(): void;
}

export interface EndEffectorOptions {
  /** Also append the goal relative to the end effector, read by this localiser. */
  goal?: GoalLocaliser;
  /** Also append the instructed object relative to the end effector and its lift, read by this localiser. */
  object?: ObjectLocaliser;
  /** Also append each demonstration keyframe relative to the end effector and which ones the family shows. */
  keyframes?: KeyframeLocaliser;
}

export class EndEffectorFeatures {
  readonly robot: string;
  readonly goal: GoalLocaliser | undefined;
  readonly object: ObjectLocaliser | undefined;
  readonly keyframes: KeyframeLocaliser | undefined;
  #kinematics: ArmPoses;

  /** Features of `robot`'s episodes computed with `kinematics`, which they own (close() closes it). */
  constructor(robot: string, kinematics: ArmPoses, options: EndEffectorOptions = {}) {
    this.robot = robot;
    this.#kinematics = kinematics;
    this.goal = options.goal;
    this.object = options.object;
    this.keyframes = options.keyframes;
  }

  /** 'localised' or undefined: what the world model's layout records of the goal. */
  get goalKind(): 'localised' | undefined {
    return this.goal === undefined ? undefined : 'localised';
  }

  /** 'localised' or undefined: what the world model's layout records of the object. */
  get objectKind(): 'localised' | undefined {
    return this.object === undefined ? undefined : 'localised';
  }

  /** The gripper of a recorded episode at step t: its position (forward kinematics) and first finger joint. */
  gripperAt(e: Episode, t: number): GripperReading {
    return { xyz: this.#endEffectorAt(e, t), finger: this.#fingerAt(e, t) };
  }

  #endEffectorAt(e: Episode, t: number): ArrayLike<number> {
    return this.#kinematics.pose(e.qpos.subarray(t * e.qposDim, t * e.qposDim + this.#kinematics.nArm)).pos;
  }

  /** The first finger joint (the joint after the arm's). */
  #fingerAt(e: Episode, t: number): number {
    return e.qpos[t * e.qposDim + this.fingerJoint]!;
  }

  /** The first finger joint's index in the joint positions: the joint after the arm's. */
  get fingerJoint(): number {
    return this.#kinematics.nArm;
  }

  /** How many features `append` adds per step. */
  get dim(): number {
    return (
      END_EFFECTOR_DIM +
      (this.goal ? GOAL_DIM : 0) +
      (this.object ? OBJECT_DIM : 0) +
      (this.keyframes ? KEYFRAME_DIM : 0)
    );
  }

  /**
   * `perceived` (episodes with their state replaced by the policy's perception, Z per step) widened to
   * Z + dim: [state, end-effector xyz], with a goal [goal − end effector], with an object [object − end
   * effector, lift].
   * A localised goal is read from the first step's perception, so every step of an episode (and every
   * imagined step from it) sees the same goal; a localised object is read from every step's.
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
      const goal = this.#goalOf(e);
      const object = this.#objectOf(e);
      const objectAt = Z + END_EFFECTOR_DIM + (goal ? GOAL_DIM : 0);
      const keyframes = this.keyframes?.estimate(e.state.subarray(0, this.keyframes.latentDim), e.task);
      const keyframesAt = objectAt + (object ? OBJECT_DIM : 0);
      // The object's height at the first step, which its lift is measured from.
      let rest = 0;
      for (let t = 0; t < count; t++) {
        state.set(e.state.subarray(t * Z, (t + 1) * Z), t * W);
        const ee = this.#endEffectorAt(e, t);
        state.set(ee, t * W + Z);
        const g = goal?.(t);
        if (g) for (let j = 0; j < GOAL_DIM; j++) state[t * W + Z + END_EFFECTOR_DIM + j] = g[j]! - ee[j]!;
        const o = object?.(t, ee);
        if (o) {
          if (t === 0) rest = o[2]!;
          for (let j = 0; j < 3; j++) state[t * W + objectAt + j] = o[j]! - ee[j]!;
          state[t * W + objectAt + 3] = o[2]! - rest;
        }
        if (keyframes) keyframeFeatures(keyframes, ee, state, t * W + keyframesAt);
      }
      return { ...e, state, stateDim: W };
    });
  }

  close(): void {
    this.#kinematics.close();
  }

  /** The object at step t, given the end effector then (the localiser reads it with the finger). */
  #objectOf(perceived: Episode): ((t: number, ee: ArrayLike<number>) => ArrayLike<number>) | undefined {
    const localiser = this.object;
    if (localiser === undefined) return undefined;
    return (t, ee) => localiser.estimate(perceived, t, { xyz: ee, finger: this.#fingerAt(perceived, t) });
  }

  #goalOf(perceived: Episode): ((t: number) => ArrayLike<number>) | undefined {
    if (this.goal === undefined) return undefined;
    const xyz = this.goal.estimate(perceived.state.subarray(0, this.goal.latentDim), perceived.task);
    return () => xyz;
  }
}
