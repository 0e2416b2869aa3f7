/**
 * Robot descriptions: `robots/<name>/robot.yaml` beside its MJCF. Adding a robot means adding
 * a folder (in this package's robots/ or anywhere else); nothing in the code names a robot.
 */
import { readFileSync, readdirSync, existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { collectModelFiles, ModelFileError, type ModelFiles } from './modelFiles.ts';

const vec3 = z.tuple([z.number(), z.number(), z.number()]);
/** Axes of a frame: closing has no sign (the jaws close from both sides), approach has. */
export const AXES = ['x', 'y', 'z'] as const;
export const SIGNED_AXES = ['+x', '-x', '+y', '-y', '+z', '-z'] as const;
export type Axis = (typeof AXES)[number];
export type SignedAxis = (typeof SIGNED_AXES)[number];
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
    /** MJCF joint name. */
    name: z.string().min(1),
    /** The position actuator driving it (default: the joint's name). */
    actuator: z.string().min(1).optional(),
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

const servoSchema = z
  .object({
    kp: z.number().positive(),
    kv: z.number().nonnegative(),
    /**
     * Rotor inertia the servo's gearbox adds to its joint (kg·m²), which a URDF has no element for. A small arm's
     * links are light: without it a stiff servo oscillates, with it the joint moves as the real servo does.
     */
    armature: z.number().nonnegative().optional(),
  })
  .strict();

/** What a URDF lacks and the scene needs; the toolkit adds it to the MJCF MuJoCo makes of the URDF. */
const urdfAdditionsSchema = z
  .object({
    /** Gains of the position servos added on every arm joint (named as the joint or its `actuator`). */
    servo: servoSchema.default({ kp: 150, kv: 15 }),
    /** Gains of the gripper's servo (named `gripper.actuator`, on its first joint). */
    gripperServo: servoSchema.default({ kp: 300, kv: 10 }),
    /** Gravity compensation on every link, as a real arm's controller provides. */
    gravityCompensation: z.boolean().default(true),
    /**
     * Whether the arm's links collide with each other. Turn it off when the URDF's collision meshes (simulated as
     * their convex hulls) touch at poses the real arm reaches: `wmrl robot check` reports links in contact.
     */
    selfCollision: z.boolean().default(true),
    /** Where the end-effector site goes: a link and the offset in its frame (m). */
    endEffector: z.object({ link: z.string().min(1), pos: vec3.default([0, 0, 0]) }).strict(),
    /** Cameras carried by links (every robot.yaml camera without pos/lookAt), MJCF camera frame conventions. */
    cameras: z
      .array(
        z
          .object({
            name: z.string().min(1),
            link: z.string().min(1),
            pos: vec3,
            /** Camera x (right) and y (up) axes in the link frame; it looks along -z. */
            xyaxes: z.tuple([z.number(), z.number(), z.number(), z.number(), z.number(), z.number()]),
          })
          .strict(),
      )
      .default([]),
  })
  .strict();

export type UrdfAdditions = z.infer<typeof urdfAdditionsSchema>;

export const robotDescriptionSchema = z
  .object({
    /** Must equal the folder name. */
    name: z.string().regex(/^[a-z0-9_-]+$/),
    description: z.string(),
    /** MJCF file, relative to the description (give this or `urdf`). */
    mjcf: z.string().optional(),
    /** URDF file, relative to the description; MuJoCo's compiler reads it (give this or `mjcf`). */
    urdf: z.string().optional(),
    /** With `urdf`: actuators, the end-effector site and cameras to add. */
    urdfAdditions: urdfAdditionsSchema.optional(),
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
    /**
     * Which axes of the end-effector site's frame point out of the gripper (toward what it grasps) and run
     * between the jaws (the way they close). Optional: derived from the wrist and the gripper joint when absent
     * (`wmrl robot check` shows what it derives).
     */
    endEffectorAxes: z
      .object({ approach: z.enum(SIGNED_AXES), closing: z.enum(AXES) })
      .strict()
      .refine((a) => a.approach[1] !== a.closing, { message: 'approach and closing must be different axes' })
      .optional(),
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
  .strict()
  .refine((d) => (d.mjcf === undefined) !== (d.urdf === undefined), { message: 'give either mjcf or urdf' })
  .refine((d) => (d.urdf === undefined) === (d.urdfAdditions === undefined), {
    message: 'urdfAdditions goes with urdf (a URDF has no actuators, sites or cameras), and only with it',
  });

export type RobotDescription = z.infer<typeof robotDescriptionSchema> & {
  /** Absolute folder of the description. */
  dir: string;
  /** Absolute path of the description's YAML file. */
  file: string;
  /** Text of the main model file (MJCF, or URDF), read at load. */
  mjcfXml: string;
  /** The main model file and every file it reads (includes, meshes, textures), read at load. */
  model: ModelFiles;
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

const ROBOT_NAME = /^[a-z0-9_-]+$/;

/**
 * Load and validate a robot. `ref` is a robot name (robots/NAME of this package), a folder that
 * holds a robot.yaml (absolute, or relative to the working directory: `./myarm`, `lab/myarm`),
 * or the path of a .yaml description. A bare name always means robots/NAME.
 */
export function loadRobot(ref: string, robotsDir = ROBOTS_DIR): RobotDescription {
  const file = robotFile(ref, robotsDir);
  return parseRobotDescription(readFileSync(file, 'utf8'), file);
}

/** The description file `ref` names (see loadRobot); an error naming what is missing when there is none. */
function robotFile(ref: string, robotsDir: string): string {
  if (ROBOT_NAME.test(ref)) {
    const file = join(robotsDir, ref, 'robot.yaml');
    if (existsSync(file)) return file;
    const known = existsSync(robotsDir) ? listRobots(robotsDir).join(', ') : '(none)';
    const local = existsSync(join(ref, 'robot.yaml')) ? ` (./${ref} holds one: pass ./${ref} for that folder)` : '';
    throw new RobotDescriptionError(`unknown robot '${ref}': no ${file}${local}. Known robots: ${known}`);
  }
  const path = resolve(ref);
  if (!existsSync(path)) throw new RobotDescriptionError(`robot description ${ref}: no such file or folder (${path})`);
  if (!statSync(path).isDirectory()) return path;
  const file = join(path, 'robot.yaml');
  if (!existsSync(file)) throw new RobotDescriptionError(`robot folder ${ref} holds no robot.yaml (${file})`);
  return file;
}

/**
 * How a later command finds this robot again (what datasets and runs record): its name when it is
 * this package's robots/NAME, else the absolute path of its description file.
 */
export function robotRef(robot: RobotDescription, robotsDir = ROBOTS_DIR): string {
  return robot.file === join(robotsDir, robot.name, 'robot.yaml') ? robot.name : robot.file;
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
  const { mjcf, urdf, urdfAdditions } = parsed.data;
  const format = urdf === undefined ? 'mjcf' : 'urdf';
  const modelPath = join(dir, (mjcf ?? urdf)!);
  if (!existsSync(modelPath) || !statSync(modelPath).isFile()) {
    throw new RobotDescriptionError(`${file}: ${format} file '${mjcf ?? urdf}' not found at ${modelPath}`);
  }
  let model: ModelFiles;
  try {
    model = collectModelFiles(modelPath, format);
  } catch (err) {
    if (err instanceof ModelFileError) throw new RobotDescriptionError(`${file}: ${err.message}`, { cause: err });
    throw err;
  }
  // Names are checked over the main file and everything it includes.
  const xml = model.xml;
  const source = format === 'urdf' ? 'URDF' : 'MJCF';
  for (const j of parsed.data.arm.joints) requireName(xml, 'joint', j.name, file, source);
  for (const j of parsed.data.gripper.joints) requireName(xml, 'joint', j, file, source);
  if (urdfAdditions) {
    requireName(xml, 'link', urdfAdditions.endEffector.link, file, source);
    for (const c of urdfAdditions.cameras) requireName(xml, 'link', c.link, file, source);
    for (const c of parsed.data.cameras)
      if (!c.pos && !urdfAdditions.cameras.some((m) => m.name === c.name))
        throw new RobotDescriptionError(
          `${file}: camera '${c.name}' has no pos/lookAt and is not in urdfAdditions.cameras (a URDF has no cameras)`,
        );
  } else {
    requireName(xml, 'site', parsed.data.endEffectorSite, file, source);
    for (const c of parsed.data.cameras) if (!c.pos) requireName(xml, 'camera', c.name, file, source);
  }
  return {
    ...parsed.data,
    dir,
    file: resolve(file),
    mjcfXml: new TextDecoder().decode(model.files.get(model.main)),
    model,
  };
}

/** Cheap early check that a name the description relies on exists in the model (MuJoCo checks again at compile). */
function requireName(xml: string, element: string, name: string, file: string, source: string): void {
  const re = new RegExp(`<${element}\\b[^>]*\\bname=["']${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}["']`);
  if (!re.test(xml)) throw new RobotDescriptionError(`${file}: ${element} '${name}' is not defined in the ${source}`);
}

/** Number of values in the normalised action: arm joints + gripper. */
export function actionDim(robot: RobotDescription): number {
  return robot.arm.joints.length + 1;
}
