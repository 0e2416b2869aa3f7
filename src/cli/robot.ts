/**
 * `wmrl robot add|remove|list`: the robot pool file that `wmrl train --robots` and `wmrl worker` use;
 * `wmrl robot check PATH`: a robot description's every problem, and what the toolkit makes of the arm.
 */
import { readPoolFile, writePoolFile } from '../scheduler/poolFile.ts';
import { robotConfigSchema, type RobotConfig } from '../scheduler/robotConfig.ts';
import { numberFlag, parseFlags, UsageError } from './args.ts';
import { checkRobotReport, formatReport } from './robotCheck.ts';

const HELP =
  `usage: wmrl robot check PATH [--propose-home]
       wmrl robot add NAME (--sim | --url ws://host:9090) [options]
       wmrl robot remove NAME
       wmrl robot list

check PATH: check a robot description (PATH: a robot name under robots/, a folder holding robot.yaml, or a
  .yaml file) and list every problem at once, each with its fix: unknown keys and bad values, a missing model
  or mesh file, joint/site/camera/link/actuator names the model lacks, MuJoCo's compile errors, a home pose
  outside the limits or away from the table. Then what it found: the arm's joints, the gripper (slide or
  hinge, and its units), the end-effector frame, reach and table layout, the home pose, whether each fixed
  camera sees the table, which task families the scripted expert can run, the ROS topics and services.
  Exits 1 when there are problems (docs/robots.md).
  --propose-home       propose a home pose above the table even when the description's is there

add, remove, list: the robot pool file of \`wmrl train --robots\` and \`wmrl worker\`

  --pool FILE          the pool file (default robots.json)
  --sim                an in-process simulator robot (paced by --speed)
  --url URL            a rosbridge robot (or \`wmrl sim-server\`)
  --speed X            robot speed: 1 = real time (default); ` +
  `'max' = as fast as it goes (sim, or a --lockstep sim-server)
  --window HH:MM-HH:MM daily UTC time range when the robot may run episodes (repeatable; default always)
  --reset-seconds S    reset / operator time between episodes (default 0)
  --reset WHO          rosbridge: service (the robot's reset service; default) | operator (a person, prompted
                       in \`wmrl view --run\` and the trainer's terminal: docs/operator.md)
  --no-task-status     rosbridge: the robot has no task-status service (train with --outcome operator)
  --backoff-seconds S  rest after a failure, doubling with each further failure (default 30)`;

export const command = {
  summary: 'check a robot description (check PATH); manage the robot pool: add | remove | list',
  async run(argv: string[]): Promise<number> {
    const { values, positionals } = parseFlags(
      argv,
      {
        pool: { type: 'string' },
        sim: { type: 'boolean' },
        url: { type: 'string' },
        speed: { type: 'string' },
        window: { type: 'string', multiple: true },
        'reset-seconds': { type: 'string' },
        reset: { type: 'string' },
        'no-task-status': { type: 'boolean' },
        'backoff-seconds': { type: 'string' },
        'propose-home': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      true,
    );
    if (values.help) {
      console.log(HELP);
      return 0;
    }
    const [action, name, ...extra] = positionals;
    if (extra.length > 0) throw new UsageError(`unexpected arguments: ${extra.join(' ')}\n\n${HELP}`);
    if (action === 'check') {
      if (!name)
        throw new UsageError(`wmrl robot check needs a PATH: a robot name, a folder or a .yaml file\n\n${HELP}`);
      const report = await checkRobotReport(name, { proposeHome: values['propose-home'] });
      console.log(formatReport(name, report));
      return report.problems.length > 0 ? 1 : 0;
    }
    if (values['propose-home']) throw new UsageError('--propose-home goes with wmrl robot check');
    const file = values.pool ?? 'robots.json';
    if (action === 'list') {
      const pool = readPoolFile(file, { mustExist: false });
      if (pool.robots.length === 0) console.log(`no robots in ${file}`);
      for (const r of pool.robots) console.log(describe(r));
      return 0;
    }
    if (!name) throw new UsageError(`wmrl robot ${action ?? ''} needs a robot NAME\n\n${HELP}`);
    if (action === 'add') {
      if (Boolean(values.sim) === (values.url !== undefined))
        throw new UsageError('give exactly one of --sim or --url');
      const pool = readPoolFile(file, { mustExist: false });
      if (pool.robots.some((r) => r.name === name))
        throw new UsageError(`robot '${name}' is already in ${file}; remove it first`);
      const parsed = robotConfigSchema.safeParse({
        name,
        kind: values.sim ? 'sim' : 'rosbridge',
        ...(values.url ? { url: values.url } : {}),
        speed: values.speed === 'max' ? 'max' : numberFlag(values.speed, 'speed', 1, 1e-3, 1e6),
        windows: values.window ?? [],
        resetSeconds: numberFlag(values['reset-seconds'], 'reset-seconds', 0, 0),
        ...(values.reset ? { reset: values.reset } : {}),
        ...(values['no-task-status'] ? { taskStatus: false } : {}),
        backoffSeconds: numberFlag(values['backoff-seconds'], 'backoff-seconds', 30, 1e-3),
      });
      if (!parsed.success)
        throw new UsageError(
          parsed.error.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; '),
        );
      await writePoolFile(file, { ...pool, robots: [...pool.robots, parsed.data] });
      console.log(`added ${describe(parsed.data)} to ${file}`);
      return 0;
    }
    if (action === 'remove') {
      const pool = readPoolFile(file);
      if (!pool.robots.some((r) => r.name === name))
        throw new UsageError(
          `no robot '${name}' in ${file} (it holds ${pool.robots.map((r) => r.name).join(', ') || 'none'})`,
        );
      await writePoolFile(file, { ...pool, robots: pool.robots.filter((r) => r.name !== name) });
      console.log(`removed ${name} from ${file}`);
      return 0;
    }
    throw new UsageError(`unknown action '${action ?? ''}': use check, add, remove or list\n\n${HELP}`);
  },
};

function describe(r: RobotConfig): string {
  const where = r.kind === 'sim' ? 'sim (in-process)' : r.url!;
  const speed = Number.isFinite(r.speed) ? `${r.speed}×` : 'max';
  return (
    `${r.name.padEnd(12)} ${where}  speed ${speed}  windows ${r.windows.join(',') || 'always'}  ` +
    `reset ${r.resetSeconds} s${r.reset === 'operator' ? ' by operator' : ''}` +
    `${r.taskStatus ? '' : '  no task status'}  backoff ${r.backoffSeconds} s`
  );
}
