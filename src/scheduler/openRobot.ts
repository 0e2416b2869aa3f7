/** Opens a pool robot's env: the in-process simulator (paced like a robot) or a rosbridge robot. */
import type { RobotDescription } from '../core/robotDescription.ts';
import type { Env } from '../envs/env.ts';
import type { ConfirmReset } from '../envs/operatorReset.ts';
import { makeEnv, makeSimEnv } from '../envs/makeEnv.ts';
import { PacedEnv } from './pacedEnv.ts';
import type { RobotConfig } from './robotConfig.ts';
import type { PoolRobot } from './robotPool.ts';

export interface OpenRobotOptions {
  imageSize?: number;
  /** Who sets the scene up for robots with `reset: operator`. */
  confirmReset?: ConfirmReset;
}

export async function openRobotEnv(
  config: RobotConfig,
  robot: RobotDescription,
  options: OpenRobotOptions = {},
): Promise<Env> {
  if (config.kind === 'rosbridge') {
    if (config.reset === 'operator' && !options.confirmReset)
      throw new Error(`robot '${config.name}' is reset by an operator, and no operator desk was given to ask`);
    return makeEnv(robot, {
      env: 'rosbridge',
      url: config.url!,
      speed: config.speed,
      ...(options.imageSize !== undefined ? { imageSize: options.imageSize } : {}),
      ...(config.reset === 'operator' ? { confirmReset: options.confirmReset! } : {}),
      taskStatus: config.taskStatus,
    });
  }
  const sim = await makeSimEnv(robot, options);
  return Number.isFinite(config.speed) ? new PacedEnv(sim, { speed: config.speed }) : sim;
}

export function poolRobots(
  configs: RobotConfig[],
  robot: RobotDescription,
  options: OpenRobotOptions = {},
): PoolRobot[] {
  return configs.map((config) => ({ config, open: () => openRobotEnv(config, robot, options) }));
}
