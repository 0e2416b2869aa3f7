/**
 * The end effector's position as world-model features: forward kinematics of the recorded joint
 * positions, computed by MuJoCo from the robot description (`sim/armKinematics.ts`, also what a
 * real arm's workspace check uses), appended to the perception state. Whether a reach succeeds
 * is decided by a centimetre or two of gripper position; a score head that must infer it from
 * joint angles through a small MLP ranks the policy's near misses no better than chance, one
 * that is given it does (`wmrl wm rank`; README "Is the world model any use?").
 *
 * With `privilegedGoal` (a probe, not for robots) three more features follow: the task's goal minus
 * the end effector, the goal read from the simulator's privileged state (its last three numbers,
 * `sim/privilegedState.ts`). It measures how much a goal localiser could give the score head: on
 * reach's anchors it lifts the replayed 8-step ranking from chance to about 0.8 (docs/benchmarks.md).
 */
import type { Episode } from '../core/types.ts';
import type { RobotDescription } from '../core/robotDescription.ts';
import { ArmKinematics } from '../../sim/armKinematics.ts';

/** Features appended per step: the end-effector site's position xyz (metres, world frame). */
export const END_EFFECTOR_DIM = 3;
/** Features `privilegedGoal` appends after those: the goal minus the end effector (metres). */
export const GOAL_DIM = 3;

export interface EndEffectorOptions {
  /** Also append the simulator's goal relative to the end effector (needs privileged state). */
  privilegedGoal?: boolean;
}

export class EndEffectorFeatures {
  readonly robot: string;
  readonly privilegedGoal: boolean;
  #kinematics: ArmKinematics;

  private constructor(robot: string, kinematics: ArmKinematics, privilegedGoal: boolean) {
    this.robot = robot;
    this.#kinematics = kinematics;
    this.privilegedGoal = privilegedGoal;
  }

  static async forRobot(robot: RobotDescription, options: EndEffectorOptions = {}): Promise<EndEffectorFeatures> {
    return new EndEffectorFeatures(robot.name, await ArmKinematics.create(robot), options.privilegedGoal ?? false);
  }

  /** How many features `append` adds per step. */
  get dim(): number {
    return END_EFFECTOR_DIM + (this.privilegedGoal ? GOAL_DIM : 0);
  }

  /**
   * `perceived` (episodes with their state replaced by the policy's perception, Z per step) widened to
   * Z + dim: [state, end-effector xyz] and with `privilegedGoal` [goal − end effector]; `recorded` are
   * the same episodes as recorded, whose privileged state holds the goal (only read with `privilegedGoal`).
   */
  append(perceived: Episode[], recorded: Episode[] = perceived): Episode[] {
    if (recorded.length !== perceived.length)
      throw new Error(`end-effector features: ${perceived.length} episodes but ${recorded.length} recorded ones`);
    return perceived.map((e, i) => {
      if (e.robot !== this.robot)
        throw new Error(
          `episode ${e.id} is of robot '${e.robot}'; these end-effector features compute ${this.robot}'s kinematics`,
        );
      const count = e.steps + 1;
      const Z = e.stateDim;
      const W = Z + this.dim;
      const state = new Float32Array(count * W);
      const n = this.#kinematics.nArm;
      const goal = this.privilegedGoal ? goalOf(recorded[i]!) : undefined;
      for (let t = 0; t < count; t++) {
        state.set(e.state.subarray(t * Z, (t + 1) * Z), t * W);
        const ee = this.#kinematics.pose(e.qpos.subarray(t * e.qposDim, t * e.qposDim + n)).pos;
        state.set(ee, t * W + Z);
        if (goal) for (let j = 0; j < GOAL_DIM; j++) state[t * W + Z + END_EFFECTOR_DIM + j] = goal(t, j) - ee[j]!;
      }
      return { ...e, state, stateDim: W };
    });
  }

  close(): void {
    this.#kinematics.close();
  }
}

/** The goal (the privileged state's last three numbers) of a recorded episode at step t, coordinate j. */
function goalOf(e: Episode): (t: number, j: number) => number {
  const D = e.stateDim;
  if (D < GOAL_DIM || e.state.length < (e.steps + 1) * D)
    throw new Error(
      `episode ${e.id} has no privileged state to read the goal from (privilegedGoal is a simulator ` +
        'probe: a robot over rosbridge reports none)',
    );
  return (t, j) => e.state[t * D + D - GOAL_DIM + j]!;
}
