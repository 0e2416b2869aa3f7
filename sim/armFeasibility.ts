/**
 * What an arm can do over the table, from its kinematics alone: inverse kinematics for a point with the gripper
 * pointing down, a home pose above the table, and which task families the scripted experts can run with it. A
 * family needs the end effector at points over the table region (its corners and centre) at the heights its
 * expert moves at, within the joint limits; pick and push also need the gripper pointing at least mostly down
 * there (the fingers close around a block from above, and form a paddle across the push). `wmrl robot check`
 * reports it; `wmrl collect --policy expert` refuses a family the arm cannot do, with the same words.
 */
import type { RobotDescription } from '../src/core/robotDescription.ts';
import { familyDef, sceneFamilies, type TaskFamily } from '../src/tasks/families.ts';
import type { ArmKinematics } from './armKinematics.ts';
import { layoutScale } from './armReach.ts';
import { approachDirection } from './endEffectorFrame.ts';
import { holdingLimits, positionFirst } from './experts/ikController.ts';
import { GRASP_ABOVE_CENTRE, HOVER, PUSH_HEIGHT, RELEASE_ABOVE } from './experts/planners.ts';
import { OBJECT_HALF_HEIGHT, regionPoints, type TableRegion, tableRegion } from './layout.ts';

type Vec3 = [number, number, number];

/** Pick's grasp point on a block (m above the table); push's paddle height is about the same. */
export const GRASP_HEIGHT = OBJECT_HALF_HEIGHT.block + GRASP_ABOVE_CENTRE;
/** Reach's goal: the hover point above a block. */
/** The reach expert's goal: 4 cm above the object's top (configs/tasks/reach.yaml's goal). */
const REACH_HOVER = 0.04;
export const REACH_HEIGHT = 2 * OBJECT_HALF_HEIGHT.block + REACH_HOVER;
/** Least cosine between the approach axis and straight down for pick and push: the gripper points mostly down. */
export const MIN_DOWN = 0.7;
/** How close (m) the end effector must get to a point to count as reaching it. */
export const POSITION_TOLERANCE = 0.005;

/** What each scripted expert needs: arm joints, the heights it moves at, and whether the gripper must point down. */
export const EXPERT_NEEDS: Record<string, { minJoints: number; heights: number[]; down: boolean }> = {
  // A point in space takes 3 joints.
  reach: { minJoints: 3, heights: [REACH_HEIGHT, HOVER], down: false },
  // One more points the gripper down.
  pick: { minJoints: 4, heights: [GRASP_HEIGHT, HOVER], down: true },
  push: { minJoints: 4, heights: [Math.min(GRASP_HEIGHT, PUSH_HEIGHT), HOVER], down: true },
  // Pick's grasp, then the block set down over the zone (inside the table region) a little above where it rests.
  place: { minJoints: 4, heights: [GRASP_HEIGHT, GRASP_HEIGHT + RELEASE_ABOVE, HOVER], down: true },
};

export interface PoseSolution {
  /** Arm joint positions, within the limits. */
  q: number[];
  /** Where the end effector gets, and how far that is from the target (m). */
  pos: Vec3;
  positionError: number;
  /** Cosine between the approach axis and straight down (1: pointing straight down). */
  down: number;
}

/** Starting poses for the solver: zeros, mid-range, the home pose, and a quarter and three quarters of each range. */
export function ikSeeds(robot: RobotDescription): number[][] {
  const joints = robot.arm.joints;
  const clamp = (v: number, i: number) => Math.min(joints[i]!.upper, Math.max(joints[i]!.lower, v));
  const at = (f: number) => joints.map((j) => j.lower + f * (j.upper - j.lower));
  return [joints.map((_, i) => clamp(0, i)), at(0.5), robot.arm.home.map(clamp), at(0.25), at(0.75)];
}

const MAX_ITERATIONS = 300;
/** Largest joint change in one solver step (rad): small steps follow the linearisation. */
const MAX_JOINT_STEP = 0.2;
const DOWN: Vec3 = [0, 0, -1];

/**
 * Joint positions that bring the end effector to `target` with the approach axis as close to straight down as the
 * position leaves possible (the position first, as the experts' IK does at a limit), from several seeds; joints
 * stay within their command limits. The best solution: one that reaches the target pointing down the most, else the
 * nearest.
 */
export function solveDown(
  kinematics: ArmKinematics,
  robot: RobotDescription,
  target: readonly number[],
  seeds = ikSeeds(robot),
): PoseSolution {
  let best: PoseSolution | undefined;
  for (const seed of seeds) {
    const s = descend(kinematics, robot, target, seed);
    if (!best || better(s, best)) best = s;
    if (best.positionError <= POSITION_TOLERANCE && best.down > 0.999) break;
  }
  return best!;
}

function better(a: PoseSolution, b: PoseSolution): boolean {
  const reachedA = a.positionError <= POSITION_TOLERANCE;
  const reachedB = b.positionError <= POSITION_TOLERANCE;
  if (reachedA !== reachedB) return reachedA;
  return reachedA ? a.down > b.down : a.positionError < b.positionError;
}

function descend(
  kinematics: ArmKinematics,
  robot: RobotDescription,
  target: readonly number[],
  seed: readonly number[],
): PoseSolution {
  const joints = robot.arm.joints;
  const n = kinematics.nArm;
  const clamp = (v: number, i: number) => Math.min(joints[i]!.upper, Math.max(joints[i]!.lower, v));
  const q = seed.map(clamp);
  for (let it = 0; it < MAX_ITERATIONS; it++) {
    const { pos, mat, jacobian } = kinematics.pose(q);
    const ep = [target[0]! - pos[0]!, target[1]! - pos[1]!, target[2]! - pos[2]!];
    const er = rotationToward(approachDirection(mat, kinematics.axes), DOWN);
    // A joint at its limit that the step would push further is held there, and the others take its share.
    const dq = holdingLimits(positionFirst(jacobian, n, ep, er), jacobian, q, joints, ep, er, () => 1);
    const largest = dq.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
    const scale = largest > MAX_JOINT_STEP ? MAX_JOINT_STEP / largest : 1;
    let moved = 0;
    for (let i = 0; i < n; i++) {
      const next = clamp(q[i]! + scale * dq[i]!, i);
      moved = Math.max(moved, Math.abs(next - q[i]!));
      q[i] = next;
    }
    if (moved < 1e-7) break;
  }
  return evaluate(kinematics, q, target);
}

/** The end effector's pose at `q` measured against a target. */
export function evaluate(kinematics: ArmKinematics, q: readonly number[], target: readonly number[]): PoseSolution {
  const { pos, mat } = kinematics.pose(q);
  const a = approachDirection(mat, kinematics.axes);
  return {
    q: [...q],
    pos: [pos[0]!, pos[1]!, pos[2]!],
    positionError: Math.hypot(target[0]! - pos[0]!, target[1]! - pos[1]!, target[2]! - pos[2]!),
    down: dot(a, DOWN),
  };
}

/** Rotation vector (axis × angle) turning direction `a` onto `b`. */
function rotationToward(a: Vec3, b: Vec3): number[] {
  const c = cross(a, b);
  const sin = Math.hypot(...c);
  const angle = Math.atan2(sin, dot(a, b));
  if (sin > 1e-9) return c.map((v) => (v / sin) * angle);
  if (angle < 1e-6) return [0, 0, 0];
  // Opposite directions: any axis across `a` turns it over.
  const across = Math.abs(a[0]) < 0.9 ? cross(a, [1, 0, 0]) : cross(a, [0, 1, 0]);
  const norm = Math.hypot(...across);
  return across.map((v) => (v / norm) * angle);
}

/** The table region of an arm, from its reach (the task layout's scale: armReach.ts). */
export function armRegion(kinematics: ArmKinematics): { scale: number; region: TableRegion } {
  const scale = layoutScale(kinematics.reach);
  return { scale, region: tableRegion(scale) };
}

export interface PointReach {
  name: string;
  target: Vec3;
  solution: PoseSolution;
}

export interface FamilyFeasibility {
  family: TaskFamily;
  feasible: boolean;
  /** Why not, one clause each (empty when feasible). */
  reasons: string[];
  /** The least approach cosine with straight down over the family's points, where they are all reached. */
  worstDown?: number;
}

export interface ArmFeasibility {
  scale: number;
  region: TableRegion;
  points: PointReach[];
  families: FamilyFeasibility[];
}

/** The registered families a scripted expert demonstrates. */
export function expertFamilies(): TaskFamily[] {
  return sceneFamilies().filter((f) => familyDef(f).scene?.expert !== undefined);
}

/** What the expert of `family` needs of an arm. */
function needsOf(family: TaskFamily): { minJoints: number; heights: number[]; down: boolean } {
  const expert = familyDef(family).scene?.expert;
  const needs = expert === undefined ? undefined : EXPERT_NEEDS[expert];
  if (!needs) throw new Error(`task family '${family}' has no scripted expert whose needs are known`);
  return needs;
}

/** Which families the scripted experts can run with this arm, and why not where they cannot. */
export function armFeasibility(
  kinematics: ArmKinematics,
  robot: RobotDescription,
  families: readonly TaskFamily[] = expertFamilies(),
): ArmFeasibility {
  const { scale, region } = armRegion(kinematics);
  const heights = [...new Set(families.flatMap((f) => needsOf(f).heights))].sort((a, b) => a - b);
  const points: PointReach[] = [];
  if (families.some((f) => kinematics.nArm >= needsOf(f).minJoints))
    for (const z of heights)
      for (const p of regionPoints(region)) {
        const target: Vec3 = [p.xy[0], p.xy[1], z];
        points.push({ name: p.name, target, solution: solveDown(kinematics, robot, target) });
      }
  return { scale, region, points, families: families.map((f) => familyFeasibility(f, kinematics.nArm, points)) };
}

function familyFeasibility(family: TaskFamily, nArm: number, points: PointReach[]): FamilyFeasibility {
  const needs = needsOf(family);
  if (nArm < needs.minJoints) {
    const why = needs.down ? '3 for the position, 1 more to point the gripper down' : 'one for each coordinate';
    return {
      family,
      feasible: false,
      reasons: [`too few arm joints: ${nArm}, it needs at least ${needs.minJoints} (${why})`],
    };
  }
  const mine = points.filter((p) => needs.heights.includes(p.target[2]));
  const reasons: string[] = [];
  const short = mine.filter((p) => p.solution.positionError > POSITION_TOLERANCE);
  if (short.length > 0) {
    const worst = short.reduce((a, b) => (b.solution.positionError > a.solution.positionError ? b : a));
    reasons.push(
      `out of reach at ${short.length} of ${mine.length} points over the table region: the end effector stays ` +
        `${worst.solution.positionError.toFixed(3)} m from the ${describePoint(worst)} within the joint limits`,
    );
  }
  const reached = mine.filter((p) => p.solution.positionError <= POSITION_TOLERANCE);
  const worstDown = reached.length > 0 ? Math.min(...reached.map((p) => p.solution.down)) : undefined;
  if (needs.down) {
    const tilted = reached.filter((p) => p.solution.down < MIN_DOWN);
    if (tilted.length > 0) {
      const worst = tilted.reduce((a, b) => (b.solution.down < a.solution.down ? b : a));
      reasons.push(
        `the gripper cannot point down at ${tilted.length} of ${mine.length} points: at best ` +
          `${worst.solution.down.toFixed(2)} (cosine with straight down; ${MIN_DOWN} needed) ` +
          `at the ${describePoint(worst)}`,
      );
    }
  }
  return { family, feasible: reasons.length === 0, reasons, ...(short.length === 0 ? { worstDown } : {}) };
}

function describePoint(p: PointReach): string {
  const [x, y, z] = p.target.map((v) => +v.toFixed(3));
  return `table region's ${p.name} (${x}, ${y}) at ${z} m`;
}

/** The sentence `wmrl collect` refuses an infeasible family with (`wmrl robot check` lists the same reasons). */
export function infeasibleMessage(robot: RobotDescription, f: FamilyFeasibility): string {
  return `robot '${robot.name}' cannot do ${f.family} with the scripted expert: ${f.reasons.join('; ')}`;
}

export interface HomeProposal extends PoseSolution {
  target: Vec3;
  /** Whether the approach axis points straight down there (within about 8°); a 5-joint arm may need to tilt. */
  pointsDown: boolean;
}

/** Cosine with straight down that counts as pointing straight down (about 8°). */
const STRAIGHT_DOWN = 0.99;

/**
 * A home pose with the end effector above the table region's centre, 0.1 m (scaled with the layout, at least 0.08 m)
 * up, the gripper pointing down; rounded to 2 decimals within the joint limits, as robot.yaml would say it.
 */
export function proposeHome(kinematics: ArmKinematics, robot: RobotDescription): HomeProposal {
  const { scale, region } = armRegion(kinematics);
  const [x, y] = regionPoints(region)[0]!.xy;
  const target: Vec3 = [x, y, Math.max(0.08, HOVER * scale)];
  const joints = robot.arm.joints;
  const solved = solveDown(kinematics, robot, target);
  const rounded = solved.q.map((v, i) => Math.min(joints[i]!.upper, Math.max(joints[i]!.lower, +v.toFixed(2))));
  const pose = evaluate(kinematics, rounded, target);
  return { ...pose, target, pointsDown: pose.down >= STRAIGHT_DOWN };
}

/** Where the home pose puts the end effector, and whether that is above the table region. */
export interface HomePlacement {
  pos: Vec3;
  down: number;
  aboveTable: boolean;
}

/** The home pose is above the table when its end effector is over the table region (give or take this, × scale). */
const HOME_MARGIN = 0.06;

export function homePlacement(kinematics: ArmKinematics, robot: RobotDescription): HomePlacement {
  const { scale, region } = armRegion(kinematics);
  const { pos, down } = evaluate(kinematics, robot.arm.home, [0, 0, 0]);
  const m = HOME_MARGIN * scale;
  const over =
    pos[0] >= region.xMin - m && pos[0] <= region.xMax + m && pos[1] >= region.yMin - m && pos[1] <= region.yMax + m;
  return { pos, down, aboveTable: over && pos[2] > 0.01 };
}

function cross(a: readonly number[], b: readonly number[]): number[] {
  return [a[1]! * b[2]! - a[2]! * b[1]!, a[2]! * b[0]! - a[0]! * b[2]!, a[0]! * b[1]! - a[1]! * b[0]!];
}

function dot(a: readonly number[], b: readonly number[]): number {
  return a[0]! * b[0]! + a[1]! * b[1]! + a[2]! * b[2]!;
}
