/**
 * `wmrl robot check PATH`: every problem of a robot description at once, each with its fix, then what the toolkit
 * makes of the arm. The description's own checks (schema, files, names, home against the limits) are the loader's
 * (src/core/robotDescription.ts); here MuJoCo compiles the model, the compiled model is checked (actuators, joint
 * types, limits), and the arm is analysed: its gripper, end-effector frame, reach and task layout, home pose,
 * cameras, the task families its experts can run (sim/armFeasibility.ts) and its ROS interface.
 */
import { relative } from 'node:path';
import type { MjModel } from 'mujoco';
import {
  checkRobot,
  formatNumber,
  formatProblem,
  type RobotDescription,
  type RobotProblem,
} from '../core/robotDescription.ts';
import { closestName } from '../core/editDistance.ts';
import { ArmKinematics } from '../../sim/armKinematics.ts';
import { armFeasibility, armRegion, homePlacement, proposeHome } from '../../sim/armFeasibility.ts';
import { VX300_REACH } from '../../sim/armReach.ts';
import { proposeCameraPose, unseenTablePoints } from '../../sim/cameraView.ts';
import { deriveEndEffectorAxes } from '../../sim/endEffectorFrame.ts';
import { describeWasmError, getMujoco, type Mujoco } from '../../sim/mujocoRuntime.ts';
import { compileRobotScene } from '../../sim/robotModel.ts';
import { buildSceneXml } from '../../sim/sceneBuilder.ts';

/** Below this cosine between a derived end-effector axis and the model's direction, declaring them is suggested. */
export const POOR_AXIS_FIT = 0.9;

export interface RobotCheckReport {
  /** The description file, when `ref` named one. */
  file?: string;
  /** What must be fixed (the command exits 1): the description's, MuJoCo's, the compiled model's, the home pose's. */
  problems: RobotProblem[];
  /** What should be looked at (the command still exits 0): a camera that misses the table, a poorly fitting frame. */
  warnings: RobotProblem[];
  /** What was found, as lines to print; empty when the description could not be analysed. */
  facts: string[];
}

export interface RobotCheckOptions {
  /** Propose a home pose above the table even when the description's is there. */
  proposeHome?: boolean;
}

/** Check the description `ref` names and analyse the arm. */
export async function checkRobotReport(ref: string, options: RobotCheckOptions = {}): Promise<RobotCheckReport> {
  const check = checkRobot(ref);
  const report: RobotCheckReport = { file: check.file, problems: [...check.problems], warnings: [], facts: [] };
  const robot = check.robot;
  if (!robot) return report;
  const mj = await getMujoco();
  let model: MjModel;
  try {
    model = compileRobotScene(
      mj,
      robot,
      (robotFile) => buildSceneXml(robot, { objects: [], zones: 0 }, { robotFile }),
      'check',
    );
  } catch (err) {
    const message = mujocoMessage(err instanceof Error ? err.message : describeWasmError(mj, err));
    const element = /Element name '([^']+)'/.exec(message)?.[1];
    const file = relative(robot.dir, robot.model.main) + (robot.model.format === 'urdf' ? ' (or urdfAdditions)' : '');
    report.problems.push({
      where: relative(robot.dir, robot.model.main),
      what: `MuJoCo cannot compile it: ${message}`,
      fix: `correct ${element ? `the element named '${element}'` : 'what MuJoCo names'} in ${file} as MuJoCo says`,
    });
    return report;
  }
  try {
    const usable = checkCompiled(mj, model, robot, check.where, report);
    if (usable) analyse(mj, model, robot, check.where, report, options);
  } finally {
    model.delete();
  }
  return report;
}

const JOINT_TYPES = ['free', 'ball', 'slide', 'hinge'];

/**
 * What only the compiled model says: every actuator the description names, that it drives its joint, and that the
 * arm's joints are hinges or slides within the model's range. False when the kinematics cannot be analysed.
 */
function checkCompiled(
  mj: Mujoco,
  model: MjModel,
  robot: RobotDescription,
  where: (path: readonly PropertyKey[]) => string,
  report: RobotCheckReport,
): boolean {
  const T = mj.mjtObj;
  // By id ('' for an unnamed one), and the named ones.
  const actuatorNames = Array.from(
    { length: model.nu },
    (_, i) => mj.mj_id2name(model, T.mjOBJ_ACTUATOR.value, i) ?? '',
  );
  const actuators = actuatorNames.filter(Boolean);
  const jointType = model.jnt_type as Int32Array;
  const jointRange = model.jnt_range as Float64Array;
  const jointLimited = model.jnt_limited as Uint8Array;
  const trnType = model.actuator_trntype as Int32Array;
  const trnId = model.actuator_trnid as Int32Array;
  const ctrlRange = model.actuator_ctrlrange as Float64Array;
  const ctrlLimited = model.actuator_ctrllimited as Uint8Array;
  let usable = true;
  const requireActuator = (name: string, joint: string, path: readonly PropertyKey[]): number | undefined => {
    const id = mj.mj_name2id(model, T.mjOBJ_ACTUATOR.value, name);
    if (id < 0) {
      // The actuator that drives the joint is the one meant; else the nearest name.
      const jointId = mj.mj_name2id(model, T.mjOBJ_JOINT.value, joint);
      const driving = actuatorNames.find(
        (a, i) => a !== '' && trnType[i] === mj.mjtTrn.mjTRN_JOINT.value && trnId[2 * i] === jointId,
      );
      const near = closestName(name, actuators);
      report.problems.push({
        where: where(path),
        what: `actuator '${name}' (for joint '${joint}') is not in the model`,
        fix:
          driving !== undefined
            ? `write actuator: ${driving} (the model's actuator on '${joint}')` +
              (driving === joint && path.at(-1) === 'actuator'
                ? ', or leave actuator out: it defaults to the joint'
                : '')
            : near
              ? `write actuator: ${near} (the closest; the model's actuators: ${actuators.join(', ')})`
              : actuators.length > 0
                ? `write actuator: one of ${actuators.join(', ')}; or add a <position> actuator on '${joint}'`
                : `add a <position name="${name}" joint="${joint}"/> actuator to the MJCF`,
      });
      return undefined;
    }
    const drives =
      trnType[id] === mj.mjtTrn.mjTRN_JOINT.value ? mj.mj_id2name(model, T.mjOBJ_JOINT.value, trnId[2 * id]!) : null;
    if (drives !== null && drives !== joint)
      report.warnings.push({
        where: where(path),
        what: `actuator '${name}' drives joint '${drives}', not '${joint}'`,
        fix: `name the actuator that drives '${joint}'`,
      });
    return id;
  };
  robot.arm.joints.forEach((j, i) => {
    const id = mj.mj_name2id(model, T.mjOBJ_JOINT.value, j.name);
    const type = JOINT_TYPES[jointType[id]!]!;
    if (type !== 'hinge' && type !== 'slide') {
      usable = false;
      report.problems.push({
        where: where(['arm', 'joints', i, 'name']),
        what: `joint '${j.name}' is a ${type} joint; an arm joint turns (hinge) or slides, one coordinate each`,
        fix: "list the arm's hinge and slide joints, from the base out",
      });
      return;
    }
    if (jointLimited[id]) {
      const [lo, hi] = [jointRange[2 * id]!, jointRange[2 * id + 1]!];
      if (j.lower < lo - 1e-6 || j.upper > hi + 1e-6)
        report.warnings.push({
          where: where(['arm', 'joints', i]),
          what:
            `command limits [${formatNumber(j.lower)}, ${formatNumber(j.upper)}] of '${j.name}' reach past the ` +
            `model's range [${formatNumber(lo)}, ${formatNumber(hi)}] (its hard stops)`,
          fix: `write lower: ${formatNumber(Math.max(j.lower, lo))}, upper: ${formatNumber(Math.min(j.upper, hi))}`,
        });
    }
    requireActuator(j.actuator ?? j.name, j.name, ['arm', 'joints', i, j.actuator ? 'actuator' : 'name']);
  });
  const { gripper } = robot;
  const g = requireActuator(gripper.actuator, gripper.joints[0]!, ['gripper', 'actuator']);
  if (g !== undefined && ctrlLimited[g]) {
    const [lo, hi] = [ctrlRange[2 * g]!, ctrlRange[2 * g + 1]!];
    const outside = (['open', 'closed'] as const).filter((k) => gripper[k] < lo - 1e-6 || gripper[k] > hi + 1e-6);
    for (const k of outside)
      report.warnings.push({
        where: where(['gripper', k]),
        what:
          `${k} ${formatNumber(gripper[k])} is outside the control range [${formatNumber(lo)}, ` +
          `${formatNumber(hi)}] of actuator '${gripper.actuator}': MuJoCo clips it`,
        fix: `write ${k}: a value within [${formatNumber(lo)}, ${formatNumber(hi)}]`,
      });
  }
  robot.gripper.joints.forEach((name, i) => {
    const type = JOINT_TYPES[jointType[mj.mj_name2id(model, T.mjOBJ_JOINT.value, name)]!]!;
    if (type !== 'hinge' && type !== 'slide') {
      usable = false;
      report.problems.push({
        where: where(['gripper', 'joints', i]),
        what: `gripper joint '${name}' is a ${type} joint; a finger slides, a jaw turns (hinge)`,
        fix: "list the gripper's finger or jaw joints, the actuated one first",
      });
    }
  });
  if (usable) selfContacts(mj, model, robot, where, report);
  return usable;
}

/**
 * Links whose collision shapes touch at the home pose: MuJoCo pushes them apart, and an arm held that way stalls.
 * A URDF's collision meshes are simulated as their convex hulls, which overlap where the printed parts do not.
 */
function selfContacts(
  mj: Mujoco,
  model: MjModel,
  robot: RobotDescription,
  where: (path: readonly PropertyKey[]) => string,
  report: RobotCheckReport,
): void {
  const T = mj.mjtObj;
  const data = new mj.MjData(model);
  try {
    const qposAdr = model.jnt_qposadr as Int32Array;
    robot.arm.joints.forEach((j, i) => {
      (data.qpos as Float64Array)[qposAdr[mj.mj_name2id(model, T.mjOBJ_JOINT.value, j.name)]!] = robot.arm.home[i]!;
    });
    mj.mj_forward(model, data);
    const geomBody = model.geom_bodyid as Int32Array;
    const pairs = new Set<string>();
    for (let c = 0; c < data.ncon; c++) {
      const contact = data.contact.get(c);
      if (!contact) continue;
      const [a, b] = [geomBody[contact.geom1]!, geomBody[contact.geom2]!];
      if (a === 0 || b === 0 || contact.dist > 0) continue;
      const names = [a, b].map((id) => mj.mj_id2name(model, T.mjOBJ_BODY.value, id) ?? `body ${id}`).sort();
      pairs.add(names.join(' and '));
    }
    if (pairs.size === 0) return;
    report.warnings.push({
      where: where(['arm', 'home']),
      what: `at the home pose the collision shapes of ${[...pairs].join(', ')} touch`,
      fix: robot.urdfAdditions
        ? "write urdfAdditions.selfCollision: false (a URDF's collision meshes are simulated as their convex " +
          'hulls, which overlap where the parts do not), or move the home pose'
        : 'add <contact><exclude body1="…" body2="…"/></contact> for them to the MJCF, or move the home pose',
    });
  } finally {
    data.delete();
  }
}

/** The arm as the toolkit sees it: the facts, with the problems and warnings they show. */
function analyse(
  mj: Mujoco,
  model: MjModel,
  robot: RobotDescription,
  where: (path: readonly PropertyKey[]) => string,
  report: RobotCheckReport,
  options: RobotCheckOptions,
): void {
  const facts = report.facts;
  const kinematics = ArmKinematics.forModel(mj, model, robot);
  try {
    const format = robot.model.format === 'urdf' ? 'URDF' : 'MJCF';
    facts.push(`${robot.name}: ${robot.description}`);
    const files = robot.model.files.size;
    facts.push(
      `model: ${format} ${relative(robot.dir, robot.model.main)} (${files} file${files === 1 ? '' : 's'}), ` +
        `MuJoCo compiles it; control at ${robot.controlHz} Hz`,
    );
    // Arm joints.
    const unit = (joint: string) => (isSlide(mj, model, joint) ? 'm' : 'rad');
    const width = Math.max(...robot.arm.joints.map((j) => j.name.length));
    const limits = robot.arm.joints.map((j) => `[${formatNumber(j.lower)}, ${formatNumber(j.upper)}] ${unit(j.name)}`);
    const limitWidth = Math.max(...limits.map((l) => l.length));
    facts.push(`arm: ${robot.arm.joints.length} joints (command limits, largest step per tick, home)`);
    robot.arm.joints.forEach((j, i) => {
      facts.push(
        `  ${j.name.padEnd(width)}  ${limits[i]!.padEnd(limitWidth)}  maxStep ${formatNumber(j.maxStep)}  ` +
          `home ${formatNumber(robot.arm.home[i]!)}${j.actuator ? `  (actuator ${j.actuator})` : ''}`,
      );
    });
    // Gripper and end-effector frame.
    const derived = deriveEndEffectorAxes(mj, model, robot);
    const { gripper } = robot;
    const units = derived.gripper === 'slide' ? "metres (the finger joint's travel)" : "radians (the jaw's angle)";
    facts.push(
      `gripper: ${derived.gripper} (${derived.gripper === 'slide' ? 'parallel fingers' : 'a revolute jaw'}), ` +
        `joints ${gripper.joints.join(', ')}, actuator ${gripper.actuator}; open ${formatNumber(gripper.open)}, ` +
        `closed ${formatNumber(gripper.closed)}, maxStep ${formatNumber(gripper.maxStep)}, in ${units}`,
    );
    const fit = `fit: approach ${derived.fit.approach.toFixed(2)}, closing ${derived.fit.closing.toFixed(2)}`;
    const declared = robot.endEffectorAxes;
    facts.push(
      declared
        ? `end effector: site ${robot.endEffectorSite}; approach ${declared.approach}, closing ${declared.closing} ` +
            `(declared; the model's own: approach ${derived.approach}, closing ${derived.closing}, ${fit})`
        : `end effector: site ${robot.endEffectorSite}; approach ${derived.approach}, closing ${derived.closing} ` +
            `(derived from the model, ${fit})`,
    );
    if (!declared && Math.min(derived.fit.approach, derived.fit.closing) < POOR_AXIS_FIT)
      report.warnings.push({
        where: where(['endEffectorSite']),
        what:
          `the end-effector axes derived from the model fit poorly (${fit}): the site's axes do not line up with ` +
          'the gripper',
        fix:
          'check them and declare them: ' +
          `endEffectorAxes: { approach: ${derived.approach}, closing: ${derived.closing} }` +
          ' (approach: out of the gripper, toward what it grasps; closing: the way the jaws close)',
      });
    // Reach and the task layout.
    const { scale, region } = armRegion(kinematics);
    const r = (v: number) => formatNumber(v);
    facts.push(
      `reach: ${kinematics.reach.toFixed(3)} m (vx300: ${VX300_REACH} m), layout scale ${scale}; table region ` +
        `x ${r(region.xMin)}…${r(region.xMax)} m, y ${r(region.yMin)}…${r(region.yMax)} m`,
    );
    // Home pose.
    const home = homePlacement(kinematics, robot);
    const pos = `(${home.pos.map(r).join(', ')})`;
    facts.push(
      `home: end effector at ${pos} m, ${home.aboveTable ? 'above the table region' : 'NOT above the table region'}; ` +
        `approach ${degreesFromDown(home.down)}° from straight down`,
    );
    if (!home.aboveTable || options.proposeHome) {
      const proposal = proposeHome(kinematics, robot);
      const line = `home: [${proposal.q.map(r).join(', ')}]`;
      const how = proposal.pointsDown
        ? 'pointing straight down'
        : `tilted ${degreesFromDown(proposal.down)}° from straight down (the arm cannot point straight down there)`;
      facts.push(
        `proposed home: end effector at (${proposal.pos.map(r).join(', ')}) m, above the table region's centre, ` +
          `${how}:`,
        `  ${line}`,
      );
      if (!home.aboveTable)
        report.problems.push({
          where: where(['arm', 'home']),
          what:
            `the home pose puts the end effector at ${pos} m, not above the table region (x ${r(region.xMin)}…` +
            `${r(region.xMax)}, y ${r(region.yMin)}…${r(region.yMax)} m): episodes start away from the objects`,
          fix: `write ${line} (the end effector above the region's centre, ${how})`,
        });
    }
    // Cameras.
    facts.push('cameras:');
    robot.cameras.forEach((c, i) => {
      const size = `${c.width}×${c.height}, fovy ${c.fovy}°`;
      if (!c.pos || !c.lookAt) {
        const on = robot.urdfAdditions?.cameras.find((m) => m.name === c.name)?.link;
        facts.push(`  ${c.name}  ${size}, on the arm (${on ? `link ${on}` : `the ${format}'s camera`})`);
        return;
      }
      const fixed = { ...c, pos: c.pos, lookAt: c.lookAt };
      const unseen = unseenTablePoints(fixed, region);
      facts.push(
        `  ${c.name}  ${size}, fixed: pos [${c.pos.map(r).join(', ')}] lookAt [${c.lookAt.map(r).join(', ')}]; ` +
          (unseen.length === 0
            ? "sees the table region's corners and centre"
            : `does NOT see the table region's ${unseen.join(', ')}`),
      );
      if (unseen.length > 0) {
        const p = proposeCameraPose(fixed, region, scale);
        const wider = unseenTablePoints({ ...fixed, ...p }, region).length > 0 ? '; widen fovy too' : '';
        report.warnings.push({
          where: where(['cameras', i]),
          what: `camera '${c.name}' does not see the table region's ${unseen.join(', ')}: objects there go unseen`,
          fix:
            `write pos: [${p.pos.join(', ')}], lookAt: [${p.lookAt.join(', ')}] (vx300's scene camera scaled by ` +
            `the layout scale ${scale}${wider})`,
        });
      }
    });
    // Task families.
    const feasibility = armFeasibility(kinematics, robot);
    facts.push('tasks (scripted expert):');
    for (const f of feasibility.families) {
      const down = f.worstDown === undefined ? '' : ` (approach at worst ${degreesFromDown(f.worstDown)}° from down)`;
      facts.push(
        f.feasible
          ? `  ${f.family.padEnd(5)}  feasible${down}`
          : `  ${f.family.padEnd(5)}  NOT feasible: ${f.reasons.join('; ')}`,
      );
    }
    // ROS interface.
    const ros = robot.ros;
    facts.push(`ros (version ${ros.version ?? 'auto'}):`);
    const topics: [string, string, string][] = [
      ['jointStates', ros.jointStates.topic, ros.jointStates.type],
      ['command', ros.command.topic, ros.command.type],
      ['gripperCommand', ros.gripperCommand.topic, ros.gripperCommand.type],
      ...Object.entries(ros.images).map(([k, t]): [string, string, string] => [`images.${k}`, t.topic, t.type]),
      ...(ros.objectState
        ? [['objectState', ros.objectState.topic, ros.objectState.type] as [string, string, string]]
        : []),
      ['services.reset', ros.services.reset.name, ros.services.reset.type],
      ['services.taskStatus', ros.services.taskStatus.name, ros.services.taskStatus.type],
    ];
    const kw = Math.max(...topics.map((t) => t[0].length));
    const tw = Math.max(...topics.map((t) => t[1].length));
    for (const [k, topic, type] of topics) facts.push(`  ${k.padEnd(kw)}  ${topic.padEnd(tw)}  ${type}`);
  } finally {
    kinematics.close();
  }
}

/** MuJoCo's own words, on one line, without the names of the scene file the toolkit wrapped the model in. */
function mujocoMessage(message: string): string {
  return message
    .replace(/^[\s\S]*MuJoCo could not compile \S+: /, '')
    .replace(/\s+/g, ' ')
    .trim();
}

function isSlide(mj: Mujoco, model: MjModel, joint: string): boolean {
  const id = mj.mj_name2id(model, mj.mjtObj.mjOBJ_JOINT.value, joint);
  return (model.jnt_type as Int32Array)[id] === mj.mjtJoint.mjJNT_SLIDE.value;
}

function degreesFromDown(cosine: number): number {
  return Math.round((Math.acos(Math.max(-1, Math.min(1, cosine))) * 180) / Math.PI);
}

/** The report as printed: problems, then warnings, then what was found, then the verdict. */
export function formatReport(ref: string, report: RobotCheckReport): string {
  const lines = [`wmrl robot check ${report.file ?? ref}`];
  const count = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  if (report.problems.length > 0) {
    lines.push('', `${count(report.problems.length, 'problem')}:`);
    for (const p of report.problems) lines.push(formatProblem(p));
  }
  if (report.warnings.length > 0) {
    lines.push('', `${count(report.warnings.length, 'warning')}:`);
    for (const w of report.warnings) lines.push(formatProblem(w));
  }
  lines.push('');
  if (report.facts.length > 0) lines.push(...report.facts, '');
  else lines.push('not analysed further (MuJoCo, kinematics, cameras, tasks): fix the problems above first', '');
  const warnings = report.warnings.length > 0 ? `, ${count(report.warnings.length, 'warning')}` : '';
  lines.push(`${report.problems.length > 0 ? count(report.problems.length, 'problem') : 'no problems'}${warnings}`);
  return lines.join('\n');
}
