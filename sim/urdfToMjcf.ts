/**
 * URDF robots: MuJoCo's own compiler reads the URDF (`mj_loadXML` accepts one) and writes it
 * back as MJCF (`mj_saveLastXML`); the toolkit then adds what a URDF cannot say and the scene
 * needs, from the description's `urdfAdditions`: position servos on the arm and gripper joints,
 * equality constraints for `<mimic>` joints (MuJoCo's URDF reader ignores them), the
 * end-effector site and link-mounted cameras, gravity compensation, and the contact options the
 * grasping tasks need. The URDF is read with `discardvisual="false"` (visual meshes are what the
 * cameras see; collision-only geoms then move to group 3, hidden as in MuJoCo's viewer) and
 * `fusestatic="false"` (a fixed-joint tool link stays a body the site can be put on).
 */
import { basename, dirname, join } from 'node:path';
import type { RobotDescription } from '../src/core/robotDescription.ts';
import { scanTags } from '../src/core/modelFiles.ts';
import { compileModel, type Mujoco, vfsPath, writeVirtualFiles } from './mujocoRuntime.ts';

const converted = new WeakMap<RobotDescription, string>();

/** The robot's URDF as MJCF with the additions; converted once per description. */
export function convertUrdf(mj: Mujoco, robot: RobotDescription): string {
  const cached = converted.get(robot);
  if (cached) return cached;
  const additions = robot.urdfAdditions;
  if (robot.model.format !== 'urdf' || !additions) throw new Error(`robot '${robot.name}' is not described by a URDF`);
  const urdfText = new TextDecoder().decode(robot.model.files.get(robot.model.main));
  // Written beside the original so its meshdir resolves the same way.
  const dir = dirname(robot.model.main);
  const staged = join(dir, `.wmrl-${basename(robot.model.main)}`);
  const saved = join(dir, `.wmrl-${basename(robot.model.main)}.saved.xml`);
  writeVirtualFiles(mj, robot.model.files);
  writeVirtualFiles(mj, [[staged, withCompilerOptions(urdfText)]]);
  const model = compileModel(mj, vfsPath(staged));
  let mjcf: string;
  try {
    if (mj.mj_saveLastXML(vfsPath(saved), model) !== 1)
      throw new Error(`MuJoCo could not write the MJCF of ${robot.model.main}`);
    mjcf = new TextDecoder().decode(mj.FS.readFile(vfsPath(saved)));
  } finally {
    model.delete();
    mj.FS.unlink(vfsPath(staged));
  }
  const text = addToConvertedMjcf(mjcf, robot, mimicJoints(urdfText, robot.model.main));
  converted.set(robot, text);
  return text;
}

/** Set discardvisual/fusestatic in the URDF's `<mujoco><compiler>` extension, keeping the user's other settings. */
export function withCompilerOptions(urdf: string): string {
  const options = 'discardvisual="false" fusestatic="false"';
  const compiler = /<compiler\b([^>]*?)(\/?)>/;
  if (/<mujoco\b[^>]*>/.test(urdf) && compiler.test(urdf)) {
    return urdf.replace(compiler, (_, attrs: string, close: string) => {
      const kept = attrs.replace(/\s(discardvisual|fusestatic)\s*=\s*("[^"]*"|'[^']*')/g, '');
      return `<compiler${kept} ${options}${close}>`;
    });
  }
  if (/<mujoco\b[^>]*\/>/.test(urdf))
    return urdf.replace(/<mujoco\b[^>]*\/>/, `<mujoco><compiler ${options}/></mujoco>`);
  if (/<mujoco\b[^>]*>/.test(urdf)) return urdf.replace(/<mujoco\b[^>]*>/, (m) => `${m}<compiler ${options}/>`);
  return urdf.replace(/<robot\b[^>]*>/, (m) => `${m}<mujoco><compiler ${options}/></mujoco>`);
}

export interface MimicJoint {
  joint: string;
  /** The joint it follows: joint = multiplier · source + offset. */
  source: string;
  multiplier: number;
  offset: number;
}

/** The `<mimic>` joints of a URDF. */
export function mimicJoints(urdf: string, file: string): MimicJoint[] {
  const out: MimicJoint[] = [];
  let joint: string | undefined;
  for (const tag of scanTags(urdf, file)) {
    if (tag.name === 'joint' && tag.attrs.has('name') && tag.attrs.has('type')) joint = tag.attrs.get('name');
    if (tag.name === 'mimic' && joint && tag.attrs.has('joint')) {
      out.push({
        joint,
        source: tag.attrs.get('joint')!,
        multiplier: Number(tag.attrs.get('multiplier') ?? 1),
        offset: Number(tag.attrs.get('offset') ?? 0),
      });
    }
  }
  return out;
}

/** Add servos, mimic equalities, the site, cameras and options to the MJCF MuJoCo wrote for the URDF. */
export function addToConvertedMjcf(mjcf: string, robot: RobotDescription, mimics: MimicJoint[]): string {
  const add = robot.urdfAdditions!;
  const fmt = (v: readonly number[]) => v.map((n) => +n.toFixed(6)).join(' ');
  let text = mjcf;
  if (add.gravityCompensation) text = text.replace(/<body /g, '<body gravcomp="1" ');
  // Visual geoms come out contype/conaffinity 0 in group 1; with any, the collision geoms are hidden.
  if (/<geom\b[^>]*\bgroup="1"/.test(text)) text = text.replace(/<geom\b(?![^>]*\bgroup=)/g, '<geom group="3"');
  // Without self-collision the arm's geoms touch the table and objects but not each other: a URDF's collision meshes
  // become convex hulls, and the hulls of links a joint apart can overlap where the real parts do not.
  if (!add.selfCollision) text = text.replace(/<geom\b(?![^>]*\bcontype=)/g, '<geom contype="2" conaffinity="1"');
  const armature = (joint: string, value: number | undefined) => {
    if (value === undefined) return;
    const element = new RegExp(`<joint\\b(?=[^>]*\\bname="${escapeRegExp(joint)}")`);
    text = text.replace(element, `<joint armature="${value}"`);
  };
  for (const j of robot.arm.joints) armature(j.name, add.servo.armature);
  armature(robot.gripper.joints[0]!, add.gripperServo.armature);
  const mounts = new Map<string, string[]>();
  const mount = (link: string, element: string) => mounts.set(link, [...(mounts.get(link) ?? []), element]);
  mount(
    add.endEffector.link,
    `<site name="${robot.endEffectorSite}" pos="${fmt(add.endEffector.pos)}" size="0.005" rgba="1 0 1 0"/>`,
  );
  for (const c of add.cameras) {
    const fovy = robot.cameras.find((cam) => cam.name === c.name)?.fovy ?? 45;
    mount(c.link, `<camera name="${c.name}" pos="${fmt(c.pos)}" xyaxes="${fmt(c.xyaxes)}" fovy="${fovy}"/>`);
  }
  for (const [link, elements] of mounts) {
    const body = new RegExp(`<body\\b([^>]*\\bname="${escapeRegExp(link)}"[^>]*?)(/?)>`);
    if (!body.test(text))
      throw new Error(`robot '${robot.name}': link '${link}' (urdfAdditions) is not a body of the converted URDF`);
    // A link without geoms comes out as <body .../>: open it to hold the additions.
    text = text.replace(body, (_, attrs: string, selfClosing: string) =>
      [`<body${attrs}>`, ...elements, ...(selfClosing ? ['</body>'] : [])].join('\n'),
    );
  }
  const { servo, gripperServo } = add;
  const { gripper } = robot;
  const actuators = robot.arm.joints.map(
    (j) =>
      `<position name="${j.actuator ?? j.name}" joint="${j.name}" kp="${servo.kp}" kv="${servo.kv}" ` +
      `ctrlrange="${j.lower} ${j.upper}"/>`,
  );
  actuators.push(
    `<position name="${gripper.actuator}" joint="${gripper.joints[0]}" kp="${gripperServo.kp}" ` +
      `kv="${gripperServo.kv}" ctrlrange="${Math.min(gripper.open, gripper.closed)} ` +
      `${Math.max(gripper.open, gripper.closed)}"/>`,
  );
  const equalities = mimics.map(
    (m) => `<joint joint1="${m.joint}" joint2="${m.source}" polycoef="${m.offset} ${m.multiplier} 0 0 0"/>`,
  );
  const extra = [
    '<option integrator="implicitfast" cone="elliptic" impratio="10"/>',
    equalities.length ? `<equality>\n${equalities.join('\n')}\n</equality>` : '',
    `<actuator>\n${actuators.join('\n')}\n</actuator>`,
  ].filter(Boolean);
  return text.replace(/<\/mujoco>\s*$/, `${extra.join('\n')}\n</mujoco>\n`);
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
