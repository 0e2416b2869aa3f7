/**
 * The end effector's position as world-model features: forward kinematics of the recorded joint
 * positions, computed by MuJoCo from the robot description (`sim/armKinematics.ts`, also what a
 * real arm's workspace check uses), appended to the perception state. Whether a reach succeeds
 * is decided by a centimetre or two of gripper position; a score head that must infer it from
 * joint angles through a small MLP ranks the policy's near misses no better than chance, one
 * that is given it does (`wmrl wm rank`; README "Is the world model any use?").
 *
 * With a goal, three more features follow: the task's goal minus the end effector. The goal comes from
 * a GoalLocaliser (the policy's perception of the episode's first frame), or, as a probe only, from
 * the simulator's privileged state (its last three numbers, `sim/privilegedState.ts`). Told the goal,
 * the score head ranks reach's near misses (docs/benchmarks.md, session 35).
 *
 * With an object, four more follow: the instructed object minus the end effector, and the object's
 * height above where it stood at the episode's start. Pick succeeds by a lift: the perception latent
 * holds the block only implicitly. The object comes from an ObjectLocaliser (each step's perception,
 * gripper and fingers), or, as a probe only, from the simulator's privileged state. Read at the start and held
 * (`objectAtStart`), a localised object is the block where it stood, seen before the gripper hides it: at the
 * clone's first close on pick each step's reading is off by 1.2–1.7 cm (sd, x and y) where the first frame's is off
 * by 0.4–0.6 cm, and a grasp tolerates about 2 cm (docs/worldmodel.md). Its lift is then always 0.
 */
import type { Episode } from '../core/types.ts';
import type { RobotDescription } from '../core/robotDescription.ts';
import { ArmKinematics } from '../../sim/armKinematics.ts';
import { GOAL_DIM, recordedGoal, recordedObject } from '../../sim/privilegedState.ts';
import type { GoalLocaliser } from './goalLocaliser.ts';
import type { GripperReading, ObjectLocaliser } from './objectLocaliser.ts';

/** Features appended per step: the end-effector site's position xyz (metres, world frame). */
export const END_EFFECTOR_DIM = 3;
/** Features a goal appends after those: the goal minus the end effector (metres). */
export { GOAL_DIM };

/** Features an object appends after those: the object minus the end effector (metres), its lift (metres). */
export const OBJECT_DIM = 4;

/** Where the goal features read the goal: a localiser, or the simulator's privileged state (a probe). */
export type GoalSource = GoalLocaliser | 'privileged';
/** Where the object features read the instructed object: a localiser, or the simulator's state (a probe). */
export type ObjectSource = ObjectLocaliser | 'privileged';
/** What a world model's layout records of its object features (worldModel.object). */
export type ObjectKind = 'localised' | 'localisedStart' | 'privileged';

export interface EndEffectorOptions {
  /** Also append the goal relative to the end effector, from this source. */
  goal?: GoalSource;
  /** Also append the instructed object relative to the end effector and its lift, from this source. */
  object?: ObjectSource;
  /** With a localised object: read it from the first step and hold it for the episode (its lift stays 0). */
  objectAtStart?: boolean;
}

export class EndEffectorFeatures {
  readonly robot: string;
  readonly goal: GoalSource | undefined;
  readonly object: ObjectSource | undefined;
  readonly objectAtStart: boolean;
  #kinematics: ArmKinematics;

  private constructor(robot: string, kinematics: ArmKinematics, options: EndEffectorOptions) {
    this.robot = robot;
    this.#kinematics = kinematics;
    this.goal = options.goal;
    this.object = options.object;
    this.objectAtStart = options.objectAtStart ?? false;
  }

  static async forRobot(robot: RobotDescription, options: EndEffectorOptions = {}): Promise<EndEffectorFeatures> {
    if (options.objectAtStart && (options.object === undefined || options.object === 'privileged'))
      throw new Error('objectAtStart holds a localised object: give an object localiser');
    return new EndEffectorFeatures(robot.name, await ArmKinematics.create(robot), options);
  }

  /** 'localised', 'privileged' or undefined: what the world model's layout records of the goal. */
  get goalKind(): 'localised' | 'privileged' | undefined {
    return this.goal === undefined ? undefined : this.goal === 'privileged' ? 'privileged' : 'localised';
  }

  /** 'localised', 'localisedStart', 'privileged' or undefined: what the world model's layout records of the object. */
  get objectKind(): ObjectKind | undefined {
    if (this.object === undefined) return undefined;
    if (this.object === 'privileged') return 'privileged';
    return this.objectAtStart ? 'localisedStart' : 'localised';
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
    return END_EFFECTOR_DIM + (this.goal ? GOAL_DIM : 0) + (this.object ? OBJECT_DIM : 0);
  }

  /**
   * `perceived` (episodes with their state replaced by the policy's perception, Z per step) widened to
   * Z + dim: [state, end-effector xyz], with a goal [goal − end effector], with an object [object − end
   * effector, lift]; `recorded` are the same episodes as recorded (read by the privileged goal and object).
   * A localised goal is read from the first step's perception, so every step of an episode (and every
   * imagined step from it) sees the same goal; a localised object is read from every step's.
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
      const goal = this.#goalOf(e, recorded[i]!);
      const object = this.#objectOf(e, recorded[i]!);
      const objectAt = Z + END_EFFECTOR_DIM + (goal ? GOAL_DIM : 0);
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
      }
      return { ...e, state, stateDim: W };
    });
  }

  close(): void {
    this.#kinematics.close();
  }

  /** The object at step t, given the end effector then (the localiser reads it with the finger). */
  #objectOf(
    perceived: Episode,
    recorded: Episode,
  ): ((t: number, ee: ArrayLike<number>) => ArrayLike<number>) | undefined {
    const source = this.object;
    if (source === undefined) return undefined;
    if (source === 'privileged') return privilegedObject(recorded);
    const read = (t: number, ee: ArrayLike<number>) =>
      source.estimate(perceived, t, { xyz: ee, finger: this.#fingerAt(perceived, t) });
    if (!this.objectAtStart) return read;
    const start = read(0, this.#endEffectorAt(perceived, 0));
    return () => start;
  }

  #goalOf(perceived: Episode, recorded: Episode): ((t: number) => ArrayLike<number>) | undefined {
    if (this.goal === undefined) return undefined;
    if (this.goal === 'privileged') return privilegedGoal(recorded);
    const xyz = this.goal.estimate(perceived.state.subarray(0, this.goal.latentDim), perceived.task);
    return () => xyz;
  }
}

/** The instructed object's position (the privileged state's first three numbers) of a recorded episode at step t. */
function privilegedObject(e: Episode): (t: number) => ArrayLike<number> {
  if (!recordedObject(e.state, e.stateDim, e.steps))
    throw new Error(
      `episode ${e.id} has no privileged state to read the object from (the privileged object is a ` +
        'simulator probe: a robot over rosbridge reports none)',
    );
  return (t) => recordedObject(e.state, e.stateDim, t)!;
}

/** The goal (the privileged state's last three numbers) of a recorded episode at step t. */
function privilegedGoal(e: Episode): (t: number) => ArrayLike<number> {
  if (!recordedGoal(e.state, e.stateDim, e.steps))
    throw new Error(
      `episode ${e.id} has no privileged state to read the goal from (the privileged goal is a simulator ` +
        'probe: a robot over rosbridge reports none)',
    );
  return (t) => recordedGoal(e.state, e.stateDim, t)!;
}
