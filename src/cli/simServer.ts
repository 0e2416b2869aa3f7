/** `wmrl sim-server`: the simulator as a rosbridge robot (what `--env rosbridge` connects to). */
import { DEFAULT_ROBOT } from '../core/robotDescription.ts';
import { loadRobotWithTasks } from '../tasks/robotTasks.ts';
import { withImageSize } from '../envs/makeEnv.ts';
import { RosbridgeSimServer } from '../../sim/rosbridge/simServer.ts';
import { intFlag, numberFlag, parseFlags, UsageError } from './args.ts';
import { untilStopped } from './untilStopped.ts';

const HELP = `usage: wmrl sim-server [options]

  --robot R             a name under robots/, a folder holding robot.yaml, or a .yaml (default ${DEFAULT_ROBOT});
                        topics and services from its ros: section
  --port N              websocket port (default 9090; 0 picks a free one, printed at start)
  --host H              interface to bind (default 127.0.0.1; 0.0.0.0 exposes the robot to the network)
  --speed X             pacing: X times real time (default 1: a robot runs in real time)
  --lockstep            tick once per arm command instead of on a clock (sim time; for tests)
  --image-size N        render cameras at N×N (default: the robot description's size)
  --watchdog-ticks N    ticks a command stays in force before the arm holds position (default 3)
  --max-step-factor X   commands may lead the measured position by X joint maxSteps (default 2)
  --max-message-bytes N larger messages get a status error (default 262144; 4× closes the socket)
  --heartbeat-ms N      ping interval; silent clients are dropped (default 10000; 0 = off)
  --allow-topics A,B    only these topics may be used (default: all of the robot's)
  --allow-services A,B  only these services may be called (rosapi's always may)
  --ros 1|2             the rosbridge dialect: 2 = rosbridge_suite 1.x/2.x (default), 1 = ROS 1's 0.11.x
                        (ROS 1 type names only, refusals only logged, ROS 1 headers, no get_ros_version)
  --quiet               no connection log

Stops on SIGINT/SIGTERM.`;

export const command = {
  summary: 'serve the simulator as a rosbridge robot (ROS 2, or ROS 1 with --ros 1) over websockets',
  async run(argv: string[]): Promise<number> {
    const { values } = parseFlags(argv, {
      robot: { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
      speed: { type: 'string' },
      lockstep: { type: 'boolean' },
      'image-size': { type: 'string' },
      'watchdog-ticks': { type: 'string' },
      'max-step-factor': { type: 'string' },
      'max-message-bytes': { type: 'string' },
      'heartbeat-ms': { type: 'string' },
      'allow-topics': { type: 'string' },
      'allow-services': { type: 'string' },
      ros: { type: 'string' },
      quiet: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    });
    if (values.help) {
      console.log(HELP);
      return 0;
    }
    const robot = withImageSize(
      loadRobotWithTasks(values.robot ?? DEFAULT_ROBOT),
      values['image-size'] === undefined ? undefined : intFlag(values['image-size'], 'image-size', 64, 8),
    );
    const list = (v: string | undefined) =>
      v
        ?.split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    if (values.ros !== undefined && values.ros !== '1' && values.ros !== '2')
      throw new UsageError(`--ros must be 1 or 2, got '${values.ros}'`);
    const log = values.quiet ? undefined : (line: string) => console.error(`[sim-server] ${line}`);
    const server = await RosbridgeSimServer.start({
      robot,
      host: values.host ?? '127.0.0.1',
      port: intFlag(values.port, 'port', 9090, 0),
      speed: numberFlag(values.speed, 'speed', 1, 1e-3, 1e6),
      lockstep: values.lockstep ?? false,
      watchdogTicks: intFlag(values['watchdog-ticks'], 'watchdog-ticks', 3, 1),
      maxStepFactor: numberFlag(values['max-step-factor'], 'max-step-factor', 2, 0.01, 100),
      maxMessageBytes: intFlag(values['max-message-bytes'], 'max-message-bytes', 256 * 1024, 1024),
      heartbeatMs: intFlag(values['heartbeat-ms'], 'heartbeat-ms', 10_000, 0),
      allowTopics: list(values['allow-topics']),
      allowServices: list(values['allow-services']),
      ros: values.ros === '1' ? 1 : 2,
      log,
    });
    // Tests and scripts read this line for the port.
    console.log(
      `wmrl sim-server: robot ${robot.name} listening on ${server.url} ` +
        `(ROS ${server.dialect.version}, ${server.lockstep ? 'lockstep' : `${robot.controlHz * server.speed} Hz`})`,
    );
    await untilStopped();
    await server.close();
    return 0;
  },
};
