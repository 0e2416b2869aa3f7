/** Build the env and controllers named on the command line. */
import type { RobotDescription } from '../core/robotDescription.ts';
import { actionDim } from '../core/robotDescription.ts';
import { ScriptedExpert } from '../../sim/experts/scriptedExpert.ts';
import type { Controller } from '../core/controller.ts';
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
  if (name === 'expert') return ScriptedExpert.create({ robot, noise: options.noise, miss: options.miss });
  return new RandomController(actionDim(robot));
}
