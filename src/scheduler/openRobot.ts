/** Opens a pool robot's env: the in-process simulator (paced like a robot) or a rosbridge robot. */
import type { RobotDescription } from '../core/robotDescription.ts';
import type { Env } from '../envs/env.ts';
import { makeEnv, makeSimEnv } from '../envs/makeEnv.ts';
import { PacedEnv } from './pacedEnv.ts';
import type { RobotConfig } from './robotConfig.ts';
import type { PoolRobot } from './robotPool.ts';

export async function openRobotEnv(
  config: RobotConfig,
  robot: RobotDescription,
  options: { imageSize?: number } = {},
): Promise<Env> {
  if (config.kind === 'rosbridge')
    return makeEnv(robot, { env: 'rosbridge', url: config.url!, speed: config.speed, ...options });
  const sim = await makeSimEnv(robot, options);
  return Number.isFinite(config.speed) ? new PacedEnv(sim, { speed: config.speed }) : sim;
}

export function poolRobots(
  configs: RobotConfig[],
  robot: RobotDescription,
  options: { imageSize?: number } = {},
): PoolRobot[] {
  return configs.map((config) => ({ config, open: () => openRobotEnv(config, robot, options) }));
}
