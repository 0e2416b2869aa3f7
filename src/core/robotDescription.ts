/**
 * Robot descriptions: `robots/<name>/robot.yaml` beside its MJCF. Adding a robot means adding
 * a folder; nothing in the code names a robot.
 */
import { readFileSync, readdirSync, existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';

const vec3 = z.tuple([z.number(), z.number(), z.number()]);
// Either spelling, ROS 1 `pkg/Type` or ROS 2 `pkg/msg/Type`: the client sends the server's (src/ros/rosTypes.ts).
const rosTopic = z
  .object({
    topic: z.string().startsWith('/'),
    type: z
      .string()
      .regex(
        /^[A-Za-z]\w*\/(msg\/)?[A-Za-z]\w*$/,
        'expected a ROS message type such as sensor_msgs/msg/JointState (ROS 2) or sensor_msgs/JointState (ROS 1)',
      ),
  })
  .strict();
const rosService = z
  .object({
    name: z.string().startsWith('/'),
    type: z
      .string()
      .regex(
        /^[A-Za-z]\w*\/(srv\/)?[A-Za-z]\w*$/,
        'expected a ROS service type such as wmrl_interfaces/srv/TaskStatus (ROS 2) ' +
          'or wmrl_interfaces/TaskStatus (ROS 1)',
      ),
  })
  .strict();
/** Request-less standard services cannot carry the reset request's task and seed. */
const EMPTY_REQUEST = /^std_srvs\/(srv\/)?(Trigger|Empty)$/;

const jointSchema = z
  .object({
    /** MJCF joint name; the position actuator driving it has the same name. */
    name: z.string().min(1),
    /** Command limits in radians (inside the hard stops). */
    lower: z.number(),
    upper: z.number(),
    /** Largest change of the commanded position in one control tick, radians. */
    maxStep: z.number().positive(),
  })
  .strict()
  .refine((j) => j.lower < j.upper, { message: 'lower limit must be below upper limit' });

const cameraSchema = z
  .object({
    name: z.string().min(1),
    width: z.number().int().min(8).max(1024),
    height: z.number().int().min(8).max(1024),
    /** Vertical field of view in degrees. */
    fovy: z.number().gt(1).lt(179),
    /** World-fixed cameras give a position and a point to look at; others are defined in the MJCF. */
    pos: vec3.optional(),
    lookAt: vec3.optional(),
  })
  .strict()
  .refine((c) => (c.pos === undefined) === (c.lookAt === undefined), {
    message: 'give both pos and lookAt, or neither',
  });

export const robotDescriptionSchema = z
  .object({
    /** Must equal the folder name. */
    name: z.string().regex(/^[a-z0-9_-]+$/),
    description: z.string(),
    /** MJCF file, relative to the description. */
    mjcf: z.string(),
    /** Control ticks per second. */
    controlHz: z.number().positive().max(1000),
    arm: z
      .object({
        joints: z.array(jointSchema).min(1),
        /** Home pose, one value per arm joint. */
        home: z.array(z.number()),
      })
      .strict()
      .refine((a) => a.home.length === a.joints.length, { message: 'home must have one value per arm joint' })
      .refine((a) => a.home.every((h, i) => h >= a.joints[i]!.lower && h <= a.joints[i]!.upper), {
        message: 'home pose is outside the joint limits',
      }),
    gripper: z
      .object({
        actuator: z.string(),
        joints: z.array(z.string()).min(1),
        /** Actuator target when fully open / fully closed. */
        open: z.number(),
        closed: z.number(),
        /** Largest change of the gripper target in one tick. */
        maxStep: z.number().positive(),
      })
      .strict(),
    /** MJCF site between the fingertips: the point tasks and experts steer. */
    endEffectorSite: z.string(),
    /** Box the end effector must stay in (safety layer). */
    workspace: z.object({ min: vec3, max: vec3 }).strict(),
    cameras: z.array(cameraSchema).min(1),
    ros: z
      .object({
        jointStates: rosTopic,
        command: rosTopic,
        gripperCommand: rosTopic,
        images: z.record(z.string(), rosTopic),
        /**
         * Optional object poses (e.g. from motion capture), laid out
         * as the simulator's privileged state; absent on most robots.
         */
        objectState: rosTopic.optional(),
        services: z
          .object({
            /** wmrl_interfaces/srv/ResetEpisode (robots/ros/wmrl_interfaces) or a type with the same fields. */
            reset: rosService.refine((s) => !EMPTY_REQUEST.test(s.type), {
              message:
                'the reset request carries task and seed, which this type has no fields for; ' +
                'use wmrl_interfaces/srv/ResetEpisode (robots/ros/wmrl_interfaces)',
            }),
            /** wmrl_interfaces/srv/TaskStatus, or std_srvs/srv/Trigger with the status as JSON in `message`. */
            taskStatus: rosService,
          })
          .strict(),
        /**
         * ROS version of the robot's rosbridge: 1, 2, or auto (default: ask the server's rosapi).
         * Type names are sent in that version's spelling.
         */
        version: z.union([z.literal(1), z.literal(2), z.literal('auto')]).optional(),
      })
      .strict(),
  })
  .strict();

export type RobotDescription = z.infer<typeof robotDescriptionSchema> & {
  /** Absolute folder of the description. */
  dir: string;
  /** MJCF text, read at load. */
  mjcfXml: string;
};

export const ROBOTS_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../robots');
/** The presets shipped with wmrl (commands given relative paths resolve them from the working directory). */
/** The robot description commands use when no --robot is given. */
export const DEFAULT_ROBOT = 'vx300';

export const CONFIGS_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../configs');

export class RobotDescriptionError extends Error {
  override name = 'RobotDescriptionError';
}

/** Names of the robots under `robots/` (folders holding a robot.yaml). */
export function listRobots(robotsDir = ROBOTS_DIR): string[] {
  return readdirSync(robotsDir)
    .filter((d) => existsSync(join(robotsDir, d, 'robot.yaml')))
    .sort();
}

/** Load and validate a robot by name (a folder under `robots/`) or by a path to its robot.yaml. */
export function loadRobot(nameOrPath: string, robotsDir = ROBOTS_DIR): RobotDescription {
  const file = nameOrPath.endsWith('.yaml') ? resolve(nameOrPath) : join(robotsDir, nameOrPath, 'robot.yaml');
  if (!existsSync(file)) {
    const known = existsSync(robotsDir) ? listRobots(robotsDir).join(', ') : '(none)';
    throw new RobotDescriptionError(`unknown robot '${nameOrPath}': no ${file}. Known robots: ${known}`);
  }
  return parseRobotDescription(readFileSync(file, 'utf8'), file);
}

/** Validate description text; `file` names the source in errors and locates the MJCF. */
export function parseRobotDescription(text: string, file: string): RobotDescription {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (err) {
    throw new RobotDescriptionError(`${file}: not valid YAML: ${(err as Error).message}`);
  }
  const parsed = robotDescriptionSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `  ${i.path.join('.') || '(root)'}: ${i.message}`).join('\n');
    throw new RobotDescriptionError(`${file}: invalid robot description:\n${problems}`);
  }
  const dir = dirname(file);
  const folderName = dir.split(/[\\/]/).pop();
  if (folderName !== parsed.data.name) {
    throw new RobotDescriptionError(`${file}: name '${parsed.data.name}' must match its folder '${folderName}'`);
  }
  const mjcfPath = join(dir, parsed.data.mjcf);
  if (!existsSync(mjcfPath) || !statSync(mjcfPath).isFile()) {
    throw new RobotDescriptionError(`${file}: mjcf file '${parsed.data.mjcf}' not found at ${mjcfPath}`);
  }
  const mjcfXml = readFileSync(mjcfPath, 'utf8');
  for (const j of parsed.data.arm.joints) requireName(mjcfXml, 'joint', j.name, file);
  for (const j of parsed.data.gripper.joints) requireName(mjcfXml, 'joint', j, file);
  requireName(mjcfXml, 'site', parsed.data.endEffectorSite, file);
  for (const c of parsed.data.cameras) if (!c.pos) requireName(mjcfXml, 'camera', c.name, file);
  return { ...parsed.data, dir, mjcfXml };
}

/** Cheap early check that a name the description relies on exists in the MJCF (MuJoCo checks again at compile). */
function requireName(xml: string, element: string, name: string, file: string): void {
  const re = new RegExp(`<${element}\\b[^>]*\\bname="${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"`);
  if (!re.test(xml)) throw new RobotDescriptionError(`${file}: ${element} '${name}' is not defined in the MJCF`);
}

/** Number of values in the normalised action: arm joints + gripper. */
export function actionDim(robot: RobotDescription): number {
  return robot.arm.joints.length + 1;
}
