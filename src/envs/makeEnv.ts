/** Build the env and controllers named on the command line. */
import type { RobotDescription } from '../core/robotDescription.ts';
import { actionDim } from '../core/robotDescription.ts';
import { ScriptedExpert } from '../../sim/experts/scriptedExpert.ts';
import type { Controller } from '../core/controller.ts';
import type { Action, Observation, TaskSpec } from '../core/types.ts';
import type { ConfirmReset } from './operatorReset.ts';
import { RandomController } from './randomController.ts';
import { RosbridgeEnv } from './rosbridgeEnv.ts';
import { SimEnv } from './simEnv.ts';

/** A copy of the description with every camera rendered at size × size. */
export function withImageSize(robot: RobotDescription, size: number | undefined): RobotDescription {
  if (size === undefined) return robot;
  return { ...robot, cameras: robot.cameras.map((c) => ({ ...c, width: size, height: size })) };
}

export async function makeSimEnv(
  robot: RobotDescription,
  options: { cameras?: string[]; imageSize?: number } = {},
): Promise<SimEnv> {
  return SimEnv.create({ robot: withImageSize(robot, options.imageSize), cameras: options.cameras });
}

export const ENVS = ['sim', 'rosbridge'] as const;
export type EnvName = (typeof ENVS)[number];

export interface EnvChoice {
  env: EnvName;
  /** rosbridge server (with env 'rosbridge'), e.g. ws://robot.local:9090 */
  url?: string;
  /** rosbridge: the robot runs this many times real time (a sim-server's --speed; Infinity for --lockstep). */
  speed?: number;
  /** rosbridge: how long to wait for the server before giving up (default 30 s). */
  connectTimeoutMs?: number;
  cameras?: string[];
  imageSize?: number;
  /** rosbridge: a person resets the scene (no reset service is called). */
  confirmReset?: ConfirmReset;
  /** rosbridge: false for a robot without a task-status service (outcomes from the operator). */
  taskStatus?: boolean;
}

/**
 * The env named on the command line: the in-process simulator, or a robot over rosbridge
 * (frames are resized to the description's size, or imageSize). Both report `cameras` and the
 * `status()` of the state after reset.
 */
export async function makeEnv(robot: RobotDescription, choice: EnvChoice): Promise<SimEnv | RosbridgeEnv> {
  if (choice.env === 'sim') {
    if (choice.url !== undefined)
      throw new Error(`--url is for --env rosbridge; --env sim runs the simulator in-process`);
    return makeSimEnv(robot, choice);
  }
  if (!choice.url)
    throw new Error("--env rosbridge needs --url ws://host:port (the robot's rosbridge server, or `wmrl sim-server`)");
  return RosbridgeEnv.create({
    robot: withImageSize(robot, choice.imageSize),
    url: choice.url,
    cameras: choice.cameras,
    speed: choice.speed ?? 1,
    ...(choice.connectTimeoutMs !== undefined ? { connectTimeoutMs: choice.connectTimeoutMs } : {}),
    ...(choice.confirmReset ? { confirmReset: choice.confirmReset } : {}),
    ...(choice.taskStatus === false ? { taskStatus: false } : {}),
  });
}

export const CONTROLLERS = ['expert', 'random'] as const;
export type ControllerName = (typeof CONTROLLERS)[number];

export async function makeController(
  name: ControllerName,
  robot: RobotDescription,
  options: { noise?: number; miss?: number } = {},
): Promise<Controller> {
  if (name === 'expert')
    return new ExpertNeedingState(
      await ScriptedExpert.create({ robot, noise: options.noise, miss: options.miss }),
      robot,
    );
  return new RandomController(actionDim(robot));
}

/** What robot.yaml needs for the experts to run over rosbridge. */
export const OBJECT_STATE_LINE = 'ros.objectState: { topic: /wmrl/object_state, type: std_msgs/msg/Float64MultiArray }';

/**
 * A scripted expert steers by the objects' poses (the privileged state). The simulator always has them; over
 * rosbridge they come from the robot's `ros.objectState` topic, which `wmrl sim-server` publishes only when the
 * description names it: without it the first observation says where to add it.
 */
export class ExpertNeedingState implements Controller {
  readonly name: string;

  constructor(
    /** The expert itself (what `wmrl collect` checks the task families against). */
    readonly expert: ScriptedExpert,
    private readonly robot: RobotDescription,
  ) {
    this.name = expert.name;
  }

  reset(task: TaskSpec, seed: number): void {
    this.expert.reset(task, seed);
  }

  act(observation: Observation): Action {
    if (observation.state === undefined && !this.robot.ros.objectState)
      throw new Error(
        "scripted experts need the objects' poses (privileged object state) in observations; over rosbridge " +
          `they come from the robot's ros.objectState topic, and robot '${this.robot.name}' names none: ` +
          `add \`${OBJECT_STATE_LINE}\` to ${this.robot.file} (wmrl sim-server publishes it; a real robot ` +
          'needs the poses from e.g. motion capture)',
      );
    return this.expert.act(observation);
  }

  close(): void {
    this.expert.close?.();
  }
}
