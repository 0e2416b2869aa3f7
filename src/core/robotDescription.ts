/**
 * Robot descriptions: `robots/<name>/robot.yaml` beside its MJCF. Adding a robot means adding
 * a folder (in this package's robots/ or anywhere else); nothing in the code names a robot.
 */
import { readFileSync, readdirSync, existsSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Document, isMap, isNode, isScalar, isSeq, LineCounter, parseDocument } from 'yaml';
import { z } from 'zod';
import { closestName } from './editDistance.ts';
import { collectModelFiles, ModelFileError, type ModelFiles, scanTags } from './modelFiles.ts';

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
  .refine((j) => j.lower < j.upper, {
    message: 'lower limit must be below upper limit',
    params: { fix: 'write lower < upper (radians): swap them, or correct the one that is wrong' },
  });

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
    params: { fix: 'add the missing one (pos: where it is, lookAt: the point it looks at, metres), or remove both' },
  })
  // Its up direction is world z turned into the image plane: undefined when it looks straight up or down.
  .refine((c) => !c.pos || !c.lookAt || Math.hypot(c.lookAt[0] - c.pos[0], c.lookAt[1] - c.pos[1]) > 1e-6, {
    message: 'lookAt is straight below or above pos: which way is up in its image is undefined',
    params: { fix: 'move lookAt (or pos) a little along x or y' },
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

/**
 * Units of joint positions in a LeRobot dataset: radians; degrees from the middle of the joint's calibrated
 * range (LeRobot's `MotorNormMode.DEGREES`); or LeRobot's calibrated range, −100…100 across it
 * (`MotorNormMode.RANGE_M100_100`). The gripper is 0 (closed)…100 (open) in the last two (`RANGE_0_100`).
 */
export const JOINT_UNITS = ['radians', 'degrees', 'range100'] as const;
export type JointUnits = (typeof JOINT_UNITS)[number];

/** How LeRobot's driver for this robot names and scales it (`wmrl import/export lerobot`). */
const lerobotSchema = z
  .object({
    /** LeRobot's `robot_type` (info.json), e.g. so101_follower. */
    robotType: z.string().min(1),
    /** Dimension names of observation.state and action: the arm joints in order, then the gripper. */
    names: z.array(z.string().min(1)),
    /** The units LeRobot's driver records joints in (what an export writes). */
    units: z.enum(JOINT_UNITS),
    /**
     * Per arm joint, the radians LeRobot's calibrated range spans (−100 and 100; degrees count from its
     * middle). Default: the joint's limits.
     */
    calibratedRange: z.array(z.tuple([z.number(), z.number()])).optional(),
  })
  .strict();
export type LerobotNaming = z.infer<typeof lerobotSchema>;

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
        /** Home pose, one value per arm joint, within their limits (checked with the model: checkRobotDescription). */
        home: z.array(z.number()),
      })
      .strict(),
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
      .strict()
      .refine((g) => g.open !== g.closed, {
        message: 'open and closed are the same: the gripper would never move',
        params: { fix: "write the actuator's target when fully open and when fully closed" },
      }),
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
      .refine((a) => a.approach[1] !== a.closing, {
        message: 'approach and closing must be different axes',
        params: { fix: 'write the axis the jaws close along as closing, one other than the approach axis' },
      })
      .optional(),
    /** Box the end effector must stay in (safety layer). */
    workspace: z
      .object({ min: vec3, max: vec3 })
      .strict()
      .refine((w) => w.min.every((v, i) => v < w.max[i]!), {
        message: 'min must be below max on every axis',
        params: { fix: 'write min: [x, y, z] below max: [x, y, z] (metres, world frame)' },
      }),
    cameras: z.array(cameraSchema).min(1),
    /** Optional: how LeRobot names and scales this robot (its robot_type, `.pos` names, units). */
    lerobot: lerobotSchema.optional(),
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
              params: { fix: 'write type: wmrl_interfaces/srv/ResetEpisode, or a type with its fields' },
            }),
            /** wmrl_interfaces/srv/TaskStatus, or std_srvs/srv/Trigger with the status as JSON in `message`. */
            taskStatus: rosService,
          })
          .strict(),
        /**
         * ROS version of the robot's rosbridge: 1, 2, or auto (default: ask the server's rosapi).
         * Type names are sent in that version's spelling.
         */
        version: z.literal([1, 2, 'auto']).optional(),
      })
      .strict(),
  })
  .strict()
  .refine((d) => (d.mjcf === undefined) !== (d.urdf === undefined), {
    message: 'give either mjcf or urdf',
    params: { fix: 'keep one line: mjcf: FILE.xml or urdf: FILE.urdf (relative to robot.yaml)' },
  })
  .refine((d) => !d.lerobot || d.lerobot.names.length === d.arm.joints.length + 1, {
    message: 'lerobot.names must name every arm joint and then the gripper',
    params: { fix: 'write one name per arm joint in order, then the gripper, e.g. [shoulder_pan.pos, …, gripper.pos]' },
  })
  .refine((d) => !d.lerobot?.calibratedRange || d.lerobot.calibratedRange.length === d.arm.joints.length, {
    message: 'lerobot.calibratedRange must give one [low, high] per arm joint',
    params: { fix: 'write [low, high] radians for each arm joint, in order' },
  })
  .refine((d) => (d.urdf === undefined) === (d.urdfAdditions === undefined), {
    message: 'urdfAdditions goes with urdf (a URDF has no actuators, sites or cameras), and only with it',
    params: {
      fix:
        'with urdf, add urdfAdditions: { endEffector: { link: LINK } } (docs/robots.md); ' +
        'with mjcf, remove urdfAdditions',
    },
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

/** A problem with a robot description: where it is, what is wrong, and what to write instead. */
export interface RobotProblem {
  /** The description's file, line and key (`robot.yaml:14 arm.joints.5.name`), or a model file's `path:line`. */
  where: string;
  what: string;
  /** One line: what to write instead, or what to change where. */
  fix: string;
}

export class RobotDescriptionError extends Error {
  override name = 'RobotDescriptionError';
  /** Every problem found, when the description was read (none when it could not be found). */
  readonly problems: readonly RobotProblem[];

  constructor(message: string, options: { cause?: unknown; problems?: readonly RobotProblem[] } = {}) {
    super(message, { cause: options.cause });
    this.problems = options.problems ?? [];
  }
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

/** What checking a description found: every problem, and the description itself when it could be built. */
export interface RobotCheck {
  /** The description file (absolute), once `ref` named one. */
  file?: string;
  problems: RobotProblem[];
  /** Where a key of the description is, as problems say it (`robot.yaml:14 arm.joints.5.name`). */
  where: (path: readonly PropertyKey[]) => string;
  /**
   * The description, when the problems leave it whole: valid against the schema (unknown keys left out), its
   * model read with every file, every name it relies on found in the model, one home value per arm joint.
   */
  robot?: RobotDescription;
}

/** Check the description `ref` names (as loadRobot resolves it), gathering every problem rather than the first. */
export function checkRobot(ref: string, robotsDir = ROBOTS_DIR): RobotCheck {
  let file: string;
  try {
    file = robotFile(ref, robotsDir);
  } catch (err) {
    if (!(err instanceof RobotDescriptionError)) throw err;
    const known = existsSync(robotsDir) ? listRobots(robotsDir).join(', ') : 'none';
    const fix = `pass a robot name (${known}), a folder holding robot.yaml, or a .yaml file`;
    return { problems: [{ where: ref, what: err.message, fix }], where: () => ref };
  }
  return checkRobotDescription(readFileSync(file, 'utf8'), file);
}

/** Validate description text; `file` names the source in errors and locates the model. Throws with every problem. */
export function parseRobotDescription(text: string, file: string): RobotDescription {
  const check = checkRobotDescription(text, file);
  if (check.problems.length > 0 || !check.robot)
    throw new RobotDescriptionError(describeProblems(file, check.problems), { problems: check.problems });
  return check.robot;
}

/** The loader's error text: the file, then each problem with its fix. */
export function describeProblems(file: string, problems: readonly RobotProblem[]): string {
  const count = problems.length === 1 ? '1 problem' : `${problems.length} problems`;
  return `${file}: invalid robot description, ${count}:\n${problems.map((p) => formatProblem(p)).join('\n')}`;
}

/** A problem as two lines: where and what, then the fix. */
export function formatProblem(p: RobotProblem, indent = '  '): string {
  return `${indent}${p.where}: ${p.what}\n${indent}  fix: ${p.fix}`;
}

/**
 * Check description text against the schema and its model, gathering every problem: YAML syntax, unknown keys,
 * schema violations, the name and folder, the model file and every file it reads, every joint, site, camera and
 * link name the model lacks, and the home pose against the joint limits. MuJoCo's compile and what needs the
 * compiled model (actuators, reach, cameras, tasks) are for the simulator's side: `wmrl robot check`.
 */
export function checkRobotDescription(text: string, file: string): RobotCheck {
  const absolute = resolve(file);
  const yamlName = basename(file);
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter });
  if (doc.errors.length > 0) {
    const problems = doc.errors.map((e) => ({
      where: `${yamlName}:${e.linePos?.[0].line ?? 1}`,
      what: `not valid YAML: ${e.message.split('\n')[0]}`,
      fix: 'correct the YAML there: indentation, closing brackets, a colon and a space after each key',
    }));
    return { file: absolute, problems, where: () => yamlName };
  }
  const at = (path: readonly PropertyKey[]) =>
    path.length === 0 ? yamlName : `${yamlName}:${lineOf(doc, lineCounter, path)} ${path.map(String).join('.')}`;
  const problems: RobotProblem[] = [];
  // Unknown keys are reported and left out, so that the rest is still checked (and the model still read).
  const data: unknown = doc.toJS();
  let parsed = robotDescriptionSchema.safeParse(data);
  const misspelt = new Set<string>();
  for (let round = 0; !parsed.success && round < 4; round++) {
    const unknown = parsed.error.issues.filter((i) => i.code === 'unrecognized_keys');
    if (unknown.length === 0) break;
    for (const issue of unknown) {
      const holder = valueAt(data, issue.path) as Record<string, unknown>;
      for (const key of issue.keys) {
        problems.push(unknownKeyProblem(key, issue.path, holder, at([...issue.path, key])));
        const near = intendedKey(key, issue.path);
        if (near !== undefined) misspelt.add([...issue.path, near].join('.'));
        delete holder[key];
      }
    }
    parsed = robotDescriptionSchema.safeParse(data);
  }
  if (!parsed.success)
    for (const issue of parsed.error.issues) {
      // A key missing because it is misspelt is one problem, the misspelling.
      if (issue.code === 'invalid_type' && misspelt.has(issue.path.join('.'))) continue;
      problems.push(schemaProblem(issue, data, at));
    }
  const before = problems.length;
  const model = checkModel(data, dirname(file), at, problems);
  // A name the model lacks leaves nothing to simulate; a home outside the limits or a wrong folder name do not.
  const namesFound = problems.length === before;
  const homeFits = checkHome(data, at, problems);
  checkFolderName(data, dirname(absolute), at, problems);
  if (!parsed.success || !model || !namesFound || !homeFits) return { file: absolute, problems, where: at };
  const robot: RobotDescription = {
    ...parsed.data,
    dir: dirname(file),
    file: absolute,
    mjcfXml: new TextDecoder().decode(model.files.get(model.main)),
    model,
  };
  return { file: absolute, problems, where: at, robot };
}

/** The 1-based line of a key (or list item) in the YAML, else of the nearest enclosing one that is there. */
function lineOf(doc: Document, lineCounter: LineCounter, path: readonly PropertyKey[]): number {
  for (let n = path.length; n > 0; n--) {
    const parent = n === 1 ? doc.contents : doc.getIn(path.slice(0, n - 1), true);
    const key = path[n - 1];
    let offset: number | undefined;
    if (isMap(parent)) {
      const pair = parent.items.find((p) => (isScalar(p.key) ? p.key.value : p.key) === key);
      offset = isScalar(pair?.key) ? pair.key.range?.[0] : undefined;
    } else if (isSeq(parent) && typeof key === 'number') {
      const item = parent.items[key];
      offset = isNode(item) ? item.range?.[0] : undefined;
    }
    if (offset !== undefined) return lineCounter.linePos(offset).line;
  }
  return 1;
}

function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let v = data;
  for (const key of path) v = isRecord(v) || Array.isArray(v) ? (v as Record<PropertyKey, unknown>)[key] : undefined;
  return v;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The schema of the value at `path` (optional and default wrappers removed), where the schema says. */
function schemaAt(path: readonly PropertyKey[]): z.ZodType | undefined {
  let s: z.ZodType | undefined = robotDescriptionSchema;
  for (const key of path) {
    s = s && unwrapSchema(s);
    if (s instanceof z.ZodObject) s = (s.shape as Record<string, z.ZodType>)[String(key)];
    else if (s instanceof z.ZodArray) s = s.element as z.ZodType;
    else if (s instanceof z.ZodRecord) s = s.valueType as z.ZodType;
    else if (s instanceof z.ZodTuple) s = (s.def.items as z.ZodType[])[Number(key)];
    else return undefined;
  }
  return s && unwrapSchema(s);
}

function unwrapSchema(s: z.ZodType): z.ZodType {
  let u = s;
  while (u instanceof z.ZodOptional || u instanceof z.ZodDefault) u = u.unwrap() as z.ZodType;
  return u;
}

/** The known key an unknown one is a misspelling of, if any. */
function intendedKey(key: string, path: readonly PropertyKey[]): string | undefined {
  const holder = schemaAt(path);
  return holder instanceof z.ZodObject ? closestName(key, Object.keys(holder.shape)) : undefined;
}

function unknownKeyProblem(key: string, path: readonly PropertyKey[], given: object, where: string): RobotProblem {
  const holder = schemaAt(path);
  const known = holder instanceof z.ZodObject ? Object.keys(holder.shape) : [];
  const near = intendedKey(key, path);
  const keys = known.length > 0 ? ` (keys here: ${known.join(', ')})` : '';
  const fix = !near
    ? `remove it${keys}`
    : near in given
      ? `remove it (${near} is given already)`
      : `write ${near} instead${keys}`;
  return { where, what: `unknown key '${key}'`, fix };
}

const EXPECTED: Record<string, string> = {
  number: 'a number',
  string: 'a string',
  boolean: 'true or false',
  array: 'a list, [a, b, …]',
  tuple: 'a list, [a, b, …]',
  object: 'a mapping of keys to values',
};

/** A zod issue as a problem with a fix: what to write there instead. */
function schemaProblem(issue: z.core.$ZodIssue, data: unknown, at: (path: readonly PropertyKey[]) => string) {
  const where = at(issue.path);
  const key = String(issue.path.at(-1) ?? 'robot.yaml');
  const entries = (n: number | bigint) => `${n} ${Number(n) === 1 ? 'entry' : 'entries'}`;
  switch (issue.code) {
    case 'invalid_type': {
      const expected = EXPECTED[issue.expected] ?? issue.expected;
      if (issue.path.length === 0)
        return { where, what: issue.message, fix: 'write a robot description: a mapping of keys (docs/robots.md)' };
      if (valueAt(data, issue.path) === undefined)
        return { where, what: `${key} is missing`, fix: `add ${key}: ${expected} (docs/robots.md describes each key)` };
      return { where, what: issue.message, fix: `write ${expected} here` };
    }
    case 'too_small':
      return {
        where,
        what: issue.message,
        fix:
          issue.origin === 'array'
            ? `give at least ${entries(issue.minimum)}`
            : issue.origin === 'string'
              ? 'write a non-empty string'
              : `write a number ${issue.inclusive ? '≥' : '>'} ${issue.minimum}`,
      };
    case 'too_big':
      return {
        where,
        what: issue.message,
        fix:
          issue.origin === 'array'
            ? `give at most ${entries(issue.maximum)}`
            : `write a number ${issue.inclusive ? '≤' : '<'} ${issue.maximum}`,
      };
    case 'invalid_value':
      return { where, what: issue.message, fix: `write one of: ${issue.values.map(String).join(', ')}` };
    case 'invalid_format': {
      let fix = `write a value matching ${'pattern' in issue ? issue.pattern : issue.format}`;
      if (issue.format === 'starts_with' && 'prefix' in issue) fix = `start it with '${issue.prefix}'`;
      else if (key === 'type' && issue.path.includes('services'))
        fix = 'write a service type such as wmrl_interfaces/srv/TaskStatus (ROS 2) or wmrl_interfaces/TaskStatus';
      else if (key === 'type')
        fix = 'write a message type such as sensor_msgs/msg/JointState (ROS 2) or sensor_msgs/JointState';
      else if (issue.path.length === 1 && key === 'name')
        fix = "write the folder's name: lower-case letters, digits, _ or -";
      return { where, what: issue.message, fix };
    }
    case 'custom': {
      const fix = (issue.params as { fix?: string } | undefined)?.fix;
      return { where, what: issue.message, fix: fix ?? 'see docs/robots.md for this key' };
    }
    default:
      return { where, what: issue.message, fix: 'see docs/robots.md for this key' };
  }
}

/** A list at `path` in loosely checked data (entries of any type), or none. */
function listAt(data: unknown, path: readonly PropertyKey[]): unknown[] {
  const v = valueAt(data, path);
  return Array.isArray(v) ? v : [];
}

function stringAt(data: unknown, path: readonly PropertyKey[]): string | undefined {
  const v = valueAt(data, path);
  return typeof v === 'string' ? v : undefined;
}

/**
 * Read the model (mjcf or urdf) and check every name the description relies on; on loosely checked data, so that
 * a schema problem elsewhere does not hide these. Returns the model when every file it reads was found.
 */
function checkModel(
  data: unknown,
  dir: string,
  at: (path: readonly PropertyKey[]) => string,
  problems: RobotProblem[],
): ModelFiles | undefined {
  const mjcf = stringAt(data, ['mjcf']);
  const urdf = stringAt(data, ['urdf']);
  if ((mjcf === undefined) === (urdf === undefined)) return undefined;
  const format = urdf === undefined ? 'mjcf' : 'urdf';
  const modelPath = join(dir, (mjcf ?? urdf)!);
  if (!existsSync(modelPath) || !statSync(modelPath).isFile()) {
    const here = existsSync(dir)
      ? readdirSync(dir).filter((f) => f.endsWith(format === 'urdf' ? '.urdf' : '.xml'))
      : [];
    const near = closestName((mjcf ?? urdf)!, here);
    problems.push({
      where: at([format]),
      what: `${format} file '${mjcf ?? urdf}' not found at ${modelPath}`,
      fix: near
        ? `write ${format}: ${near}`
        : here.length > 0
          ? `write ${format}: one of ${here.join(', ')}, or put the file at ${modelPath}`
          : `put the ${format === 'urdf' ? 'URDF' : 'MJCF'} file at ${modelPath}`,
    });
    return undefined;
  }
  const missing: ModelFileError[] = [];
  let model: ModelFiles;
  try {
    model = collectModelFiles(modelPath, format, missing);
  } catch (err) {
    if (!(err instanceof ModelFileError)) throw err;
    problems.push({ where: err.where ?? at([format]), what: err.what, fix: err.fix });
    return undefined;
  }
  // Model files are named relative to the description's folder, as its keys name them.
  const local = (where: string | undefined) => {
    if (where === undefined) return at([format]);
    const path = relative(dir, where);
    return path.startsWith('..') || isAbsolute(path) ? where : path;
  };
  for (const e of missing) problems.push({ where: local(e.where), what: e.what, fix: e.fix });
  // Names are checked over the main file and everything it includes.
  const names = modelNames(model);
  const source = format === 'urdf' ? 'URDF' : 'MJCF';
  const require = (element: string, name: string, path: readonly PropertyKey[], hint = '') => {
    const known = names.get(element) ?? [];
    if (known.includes(name)) return;
    const near = closestName(name, known);
    const list = known.length > 12 ? `${known.slice(0, 12).join(', ')}, …` : known.join(', ');
    const fix = near
      ? `write ${near} (the ${source}'s closest ${element} name; it has ${list})`
      : known.length > 0
        ? `write one of the ${source}'s ${element}s: ${list}${hint}`
        : `the ${source} names no ${element}${hint}`;
    problems.push({ where: at(path), what: `${element} '${name}' is not defined in the ${source}`, fix });
  };
  listAt(data, ['arm', 'joints']).forEach((j, i) => {
    const name = stringAt(j, ['name']);
    if (name !== undefined) require('joint', name, ['arm', 'joints', i, 'name']);
  });
  listAt(data, ['gripper', 'joints']).forEach((j, i) => {
    if (typeof j === 'string') require('joint', j, ['gripper', 'joints', i]);
  });
  const cameras = listAt(data, ['cameras']);
  if (format === 'urdf') {
    const link = stringAt(data, ['urdfAdditions', 'endEffector', 'link']);
    if (link !== undefined) require('link', link, ['urdfAdditions', 'endEffector', 'link']);
    const mounted = listAt(data, ['urdfAdditions', 'cameras']);
    mounted.forEach((c, i) => {
      const link = stringAt(c, ['link']);
      if (link !== undefined) require('link', link, ['urdfAdditions', 'cameras', i, 'link']);
    });
    cameras.forEach((c, i) => {
      const name = stringAt(c, ['name']);
      if (name === undefined || valueAt(c, ['pos']) !== undefined) return;
      if (mounted.some((m) => stringAt(m, ['name']) === name)) return;
      problems.push({
        where: at(['cameras', i, 'name']),
        what: `camera '${name}' has no pos/lookAt and is not in urdfAdditions.cameras (a URDF has no cameras)`,
        fix:
          `add { name: ${name}, link: LINK, pos: [x, y, z], xyaxes: [x1, x2, x3, y1, y2, y3] } to ` +
          'urdfAdditions.cameras, or give the camera pos and lookAt (fixed in the world)',
      });
    });
  } else {
    const site = stringAt(data, ['endEffectorSite']);
    const siteHint = `, or add <site name="${site}"/> to the gripper's body, between the fingertips`;
    if (site !== undefined) require('site', site, ['endEffectorSite'], siteHint);
    cameras.forEach((c, i) => {
      const name = stringAt(c, ['name']);
      if (name !== undefined && valueAt(c, ['pos']) === undefined)
        require('camera', name, ['cameras', i, 'name'], ', or give the camera pos and lookAt (fixed in the world)');
    });
  }
  return missing.length === 0 ? model : undefined;
}

/** The names a model defines, by element (joint, site, camera, body; a URDF's joint and link). */
function modelNames(model: ModelFiles): Map<string, string[]> {
  const names = new Map<string, string[]>();
  for (const tag of scanTags(model.xml, model.main)) {
    const name = tag.attrs.get('name');
    if (name === undefined) continue;
    // A URDF's <transmission> names its joints too, without a type: only joints with one are defined.
    if (model.format === 'urdf' && tag.name === 'joint' && (tag.attrs.get('type') ?? 'fixed') === 'fixed') continue;
    names.set(tag.name, [...(names.get(tag.name) ?? []), name]);
  }
  return names;
}

/** Check the home pose against the arm's joints and their limits; false when it has the wrong length. */
function checkHome(data: unknown, at: (path: readonly PropertyKey[]) => string, problems: RobotProblem[]): boolean {
  const joints = listAt(data, ['arm', 'joints']);
  const home = valueAt(data, ['arm', 'home']);
  const limits = joints.map((j) => ({
    name: stringAt(j, ['name']),
    lower: valueAt(j, ['lower']),
    upper: valueAt(j, ['upper']),
  }));
  if (!Array.isArray(home) || !home.every((h) => typeof h === 'number')) return true;
  if (limits.length === 0 || !limits.every((l) => typeof l.lower === 'number' && typeof l.upper === 'number'))
    return true;
  const range = limits as { name?: string; lower: number; upper: number }[];
  const clamped = range.map((l, i) => Math.min(l.upper, Math.max(l.lower, (home[i] as number | undefined) ?? 0)));
  if (home.length !== range.length) {
    problems.push({
      where: at(['arm', 'home']),
      what: `home must have one value per arm joint: ${home.length} values for ${range.length} joints`,
      fix: `write home: [${clamped.map(formatNumber).join(', ')}] (one value per joint, in the joints' order)`,
    });
    return false;
  }
  const outside = range.flatMap((l, i) => {
    const h = home[i] as number;
    if (h < l.lower) return [`${l.name ?? `joint ${i}`} ${formatNumber(h)} < lower ${formatNumber(l.lower)}`];
    if (h > l.upper) return [`${l.name ?? `joint ${i}`} ${formatNumber(h)} > upper ${formatNumber(l.upper)}`];
    return [];
  });
  if (outside.length > 0)
    problems.push({
      where: at(['arm', 'home']),
      what: `home pose is outside the joint limits: ${outside.join(', ')}`,
      fix:
        `write home: [${clamped.map(formatNumber).join(', ')}] (inside the limits), ` +
        'or `wmrl robot check --propose-home` for one above the table',
    });
  return true;
}

function checkFolderName(
  data: unknown,
  dir: string,
  at: (path: readonly PropertyKey[]) => string,
  problems: RobotProblem[],
): void {
  const name = stringAt(data, ['name']);
  const folder = basename(dir);
  if (name === undefined || !ROBOT_NAME.test(name) || name === folder) return;
  problems.push({
    where: at(['name']),
    what: `name '${name}' must match its folder '${folder}'`,
    fix: ROBOT_NAME.test(folder)
      ? `write name: ${folder}, or rename the folder to ${name}`
      : `rename the folder to ${name}`,
  });
}

/** A number as robot.yaml would say it: at most 3 decimals, no trailing zeros. */
export function formatNumber(v: number): string {
  return String(+v.toFixed(3));
}
/** Number of values in the normalised action: arm joints + gripper. */
export function actionDim(robot: RobotDescription): number {
  return robot.arm.joints.length + 1;
}
