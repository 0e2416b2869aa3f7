/** Build the env and controllers named on the command line. */
import type { RobotDescription } from '../core/robotDescription.ts';
import { actionDim } from '../core/robotDescription.ts';
import { ScriptedExpert } from '../../sim/experts/scriptedExpert.ts';
import type { Controller } from './controller.ts';
import { RandomController } from './randomController.ts';
import { SimEnv } from './simEnv.ts';

/** A copy of the description with every camera rendered at size × size. */
export function withImageSize(robot: RobotDescription, size: number | undefined): RobotDescription {
  if (size === undefined) return robot;
  return { ...robot, cameras: robot.cameras.map((c) => ({ ...c, width: size, height: size })) };
}

export async function makeSimEnv(robot: RobotDescription, options: { cameras?: string[]; imageSize?: number } = {}): Promise<SimEnv> {
  return SimEnv.create({ robot: withImageSize(robot, options.imageSize), cameras: options.cameras });
}

export const CONTROLLERS = ['expert', 'random'] as const;
export type ControllerName = (typeof CONTROLLERS)[number];

export async function makeController(name: ControllerName, robot: RobotDescription, options: { noise?: number } = {}): Promise<Controller> {
  if (name === 'expert') return ScriptedExpert.create({ robot, noise: options.noise });
  return new RandomController(actionDim(robot));
}
