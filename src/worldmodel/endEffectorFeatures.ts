/**
 * The end effector's position as world-model features: forward kinematics of the recorded joint
 * positions, computed by MuJoCo from the robot description (`sim/armKinematics.ts`, also what a
 * real arm's workspace check uses), appended to the perception state. Whether a reach succeeds
 * is decided by a centimetre or two of gripper position; a score head that must infer it from
 * joint angles through a small MLP ranks the policy's near misses no better than chance, one
 * that is given it does (`wmrl wm rank`; README "Is the world model any use?").
 */
import type { Episode } from '../core/types.ts';
import type { RobotDescription } from '../core/robotDescription.ts';
import { ArmKinematics } from '../../sim/armKinematics.ts';

/** Features appended per step: the end-effector site's position xyz (metres, world frame). */
export const END_EFFECTOR_DIM = 3;

export class EndEffectorFeatures {
  readonly robot: string;
  #kinematics: ArmKinematics;

  private constructor(robot: string, kinematics: ArmKinematics) {
    this.robot = robot;
    this.#kinematics = kinematics;
  }

  static async forRobot(robot: RobotDescription): Promise<EndEffectorFeatures> {
    return new EndEffectorFeatures(robot.name, await ArmKinematics.create(robot));
  }

  /** Each episode with `state` widened from Z to Z + 3 per step: [state, end-effector xyz]. */
  append(episodes: Episode[]): Episode[] {
    return episodes.map((e) => {
      if (e.robot !== this.robot)
        throw new Error(
          `episode ${e.id} is of robot '${e.robot}'; these end-effector features compute ${this.robot}'s kinematics`,
        );
      const count = e.steps + 1;
      const Z = e.stateDim;
      const W = Z + END_EFFECTOR_DIM;
      const state = new Float32Array(count * W);
      const n = this.#kinematics.nArm;
      for (let t = 0; t < count; t++) {
        state.set(e.state.subarray(t * Z, (t + 1) * Z), t * W);
        state.set(this.#kinematics.pose(e.qpos.subarray(t * e.qposDim, t * e.qposDim + n)).pos, t * W + Z);
      }
      return { ...e, state, stateDim: W };
    });
  }

  close(): void {
    this.#kinematics.close();
  }
}
