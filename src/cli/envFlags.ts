/** The `--env sim|rosbridge --url ws://… --speed X --connect-timeout S` flags that collect, eval and train share. */
import { ENVS, type EnvChoice } from '../envs/makeEnv.ts';
import { choiceFlag, numberFlag, UsageError } from './args.ts';

export const ENV_FLAGS = {
  env: { type: 'string' },
  url: { type: 'string' },
  speed: { type: 'string' },
  'connect-timeout': { type: 'string' },
} as const;

export const ENV_HELP =
  `  --env E           sim (the in-process simulator; ` +
  `default) | rosbridge (a robot's rosbridge server)
  --url URL         with --env rosbridge: ws://host:9090 (a real robot, or \`wmrl sim-server\`)
  --speed X         with --env rosbridge: the robot runs X times real time (a sim-server's --speed;
                    'max' for a --lockstep sim-server); default 1, as for a real robot
  --connect-timeout S  with --env rosbridge: seconds to wait for the robot: its rosbridge server at
                    the start, and the robot serving again after an aborted episode (which then
                    runs again; 3 aborts in a row stop the command). Default 30; a robot still
                    booting may need more`;

export function envChoice(values: {
  env?: string;
  url?: string;
  speed?: string;
  'connect-timeout'?: string;
}): Pick<EnvChoice, 'env' | 'url' | 'speed' | 'connectTimeoutMs'> {
  const env = choiceFlag(values.env, 'env', ENVS, 'sim');
  if (
    env === 'sim' &&
    (values.url !== undefined || values.speed !== undefined || values['connect-timeout'] !== undefined)
  )
    throw new UsageError('--url, --speed and --connect-timeout are for --env rosbridge');
  if (env === 'rosbridge' && !values.url) throw new UsageError('--env rosbridge needs --url ws://host:port');
  const speed = values.speed === 'max' ? Infinity : numberFlag(values.speed, 'speed', 1, 1e-3, 1e6);
  const connectTimeoutMs = 1000 * numberFlag(values['connect-timeout'], 'connect-timeout', 30, 0.1, 86_400);
  return env === 'sim' ? { env } : { env, url: values.url, speed, connectTimeoutMs };
}
