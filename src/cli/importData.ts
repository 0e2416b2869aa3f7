/** `wmrl import lerobot DIR --out DIR`: a LeRobot dataset (v2.1 or v3.0) as a wmrl dataset. */
import { DEFAULT_ROBOT, JOINT_UNITS, listRobots, loadRobot } from '../core/robotDescription.ts';
import { loadRobotWithTasks } from '../tasks/robotTasks.ts';
import { parseMapFlags } from '../data/lerobot/jointMapping.ts';
import { importLerobot } from '../data/lerobot/lerobotImport.ts';
import { readLerobotInfo } from '../data/lerobot/lerobotInfo.ts';
import { choiceFlag, conversionTarget, parseFlags, UsageError } from './args.ts';

const HELP = `usage: wmrl import lerobot DIR --out DIR [options]

  DIR               a LeRobot dataset folder (meta/info.json, codebase v2.1 or v3.0)
  --out DIR         the wmrl dataset to create (absent or empty; written whole or not at all)
  --robot R         robot description (default: the robot whose name or lerobot.robotType is the dataset's
                    robot_type, else ${DEFAULT_ROBOT})
  --map A=B         wmrl joint, 'gripper' or camera A takes the dataset's dimension or feature B, e.g.
                    --map waist=shoulder_pan.pos --map scene=observation.images.top (repeatable);
                    by default a joint takes the dimension named like it or <name>.pos, a camera
                    observation.images.<camera>
  --task SPEC       family:colour:object[:zone] for episodes whose task text no task family phrases (to run
                    them in the simulator); without it they keep their text, under a family of the
                    dataset's own texts declared in DIR/tasks/ (docs/tasks.md)
  --family NAME     that family's name (default: the dataset folder's name)
  --units U         the joints' units: radians, degrees (LeRobot's DEGREES: from the middle of the
                    calibrated range) or range100 (LeRobot's RANGE_M100_100: -100..100 across it);
                    detected from the values when not given (the report says which and why)
  --degrees         the same as --units degrees
  --gripper-range C,O  the dataset's gripper value fully closed and fully open (default 0,1 in radians,
                    else 0,100 as LeRobot's RANGE_0_100)

A dataset recorded at k times the robot's controlHz keeps every k-th frame; another ratio is refused.

Actions are read as absolute joint targets (LeRobot's convention) and turned into wmrl's normalised
steps; what does not map is listed. A dataset written by 'wmrl export lerobot' imports exactly.`;

export const command = {
  summary: 'import a LeRobot dataset: wmrl import lerobot DIR --out DIR',
  async run(argv: string[]): Promise<number> {
    const { values, positionals } = parseFlags(
      argv,
      {
        out: { type: 'string' },
        robot: { type: 'string' },
        map: { type: 'string', multiple: true },
        task: { type: 'string' },
        family: { type: 'string' },
        units: { type: 'string' },
        degrees: { type: 'boolean' },
        'gripper-range': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      true,
    );
    if (values.help) {
      console.log(HELP);
      return 0;
    }
    const { source, out } = conversionTarget('imports', positionals, values.out, HELP);
    let gripperRange: { closed: number; open: number } | undefined;
    if (values['gripper-range'] !== undefined) {
      const [closed, open, ...rest] = values['gripper-range'].split(',').map(Number);
      if (
        closed === undefined ||
        open === undefined ||
        rest.length ||
        !Number.isFinite(closed + open) ||
        closed === open
      ) {
        throw new UsageError(
          `--gripper-range must be CLOSED,OPEN (two different numbers), got '${values['gripper-range']}'`,
        );
      }
      gripperRange = { closed, open };
    }
    if (values.degrees && values.units && values.units !== 'degrees') {
      throw new UsageError(`--degrees and --units ${values.units} disagree: give one`);
    }
    const units = values.degrees
      ? 'degrees'
      : values.units
        ? choiceFlag(values.units, 'units', JOINT_UNITS, 'radians')
        : undefined;
    let robotRef = values.robot;
    if (!robotRef) {
      const type = (await readLerobotInfo(source)).robot_type;
      const named = listRobots().find((r) => r === type || (type && loadRobot(r).lerobot?.robotType === type));
      robotRef = named ?? DEFAULT_ROBOT;
    }
    const robot = loadRobotWithTasks(robotRef);
    const report = await importLerobot({
      source,
      out,
      robot,
      map: parseMapFlags(values.map ?? []),
      ...(values.task ? { task: values.task } : {}),
      ...(values.family ? { family: values.family } : {}),
      ...(units ? { units } : {}),
      ...(gripperRange ? { gripperRange } : {}),
      onEpisode: (i) => process.stderr.write(`\rimported episode ${i + 1}`),
    });
    process.stderr.write('\n');
    console.log(
      `imported ${report.episodes} episodes (${report.steps} steps) of LeRobot ${report.version} ` +
        `${source} into ${out} for robot ${robot.name}` +
        (report.exact ? ' (written by wmrl: restored exactly)' : ''),
    );
    console.log(`units: ${report.units.units} (${report.units.how})`);
    console.log(`mapped: ${report.mapped.join(', ')}`);
    for (const u of report.unused) console.log(`not imported: ${u}`);
    for (const n of report.notes) console.log(`note: ${n}`);
    return 0;
  },
};
