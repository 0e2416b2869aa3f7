/**
 * Joint positions in a LeRobot dataset's units ⇄ wmrl's (arm radians, gripper opening in [0, 1], 1 open).
 *
 * LeRobot's motor bus (`lerobot/motors/motors_bus.py`, `_normalize`) records a calibrated motor as
 * - `RANGE_M100_100`: (ticks − min) / (max − min) × 200 − 100, −100…100 across the calibrated range;
 * - `DEGREES`: (ticks − mid) × 360 / 4095, degrees from the middle of the calibrated range;
 * - `RANGE_0_100` (the gripper, in both): (ticks − min) / (max − min) × 100.
 * The calibrated range is the joint's range of motion, swept at calibration; wmrl takes it as the robot's
 * `lerobot.calibratedRange` or else its limits, so −100 is the lower limit, 100 the upper one, and 0°
 * their middle. `radians` is wmrl's own (the gripper an opening in [0, 1] unless a range is given).
 */
import type { JointUnits, RobotDescription } from '../../core/robotDescription.ts';
import { MappingError } from './jointMapping.ts';

export type { JointUnits };

/** How one dataset's joint values become wmrl's: per arm joint `rad = offset + scale × value`, gripper likewise. */
export interface UnitConversion {
  units: JointUnits;
  /** Per arm joint. */
  scale: number[];
  offset: number[];
  /** The dataset's gripper value fully closed and fully open. */
  gripper: { closed: number; open: number };
}

/** The calibrated range of each arm joint, radians. */
export function calibratedRanges(robot: RobotDescription): [number, number][] {
  return robot.arm.joints.map((j, i) => robot.lerobot?.calibratedRange?.[i] ?? [j.lower, j.upper]);
}

/** The conversion for `units`; `gripper` overrides the gripper's closed/open values. */
export function unitConversion(
  robot: RobotDescription,
  units: JointUnits,
  gripper?: { closed: number; open: number },
): UnitConversion {
  const ranges = calibratedRanges(robot);
  const scale = ranges.map(([lo, hi]) =>
    units === 'radians' ? 1 : units === 'degrees' ? Math.PI / 180 : (hi - lo) / 200,
  );
  const offset = ranges.map(([lo, hi]) => (units === 'radians' ? 0 : (lo + hi) / 2));
  const defaultGripper = units === 'radians' ? { closed: 0, open: 1 } : { closed: 0, open: 100 };
  return { units, scale, offset, gripper: gripper ?? defaultGripper };
}

/** Converts rows of `arm joints + gripper` values in place: dataset units → wmrl (`rate`: velocities, no offset). */
export function toWmrl(c: UnitConversion, values: Float32Array, dim: number, kind: 'position' | 'rate'): void {
  const { closed, open } = c.gripper;
  for (let r = 0; r < values.length / dim; r++) {
    for (let i = 0; i < dim - 1; i++) {
      const v = values[r * dim + i]!;
      values[r * dim + i] = (kind === 'position' ? c.offset[i]! : 0) + c.scale[i]! * v;
    }
    const g = values[r * dim + dim - 1]!;
    values[r * dim + dim - 1] = kind === 'position' ? (g - closed) / (open - closed) : g / (open - closed);
  }
}

/** The inverse of `toWmrl`: wmrl → dataset units. */
export function fromWmrl(
  c: UnitConversion,
  values: ArrayLike<number>,
  dim: number,
  kind: 'position' | 'rate',
): number[] {
  const { closed, open } = c.gripper;
  return Array.from(values, (v, k) => {
    const i = k % dim;
    if (i === dim - 1) return kind === 'position' ? closed + v * (open - closed) : v * (open - closed);
    return (v - (kind === 'position' ? c.offset[i]! : 0)) / c.scale[i]!;
  });
}

/** Positions (rows of `dim`, wmrl units) outside the arm's limits by more than `margin` radians. */
export function outsideLimits(robot: RobotDescription, qpos: ArrayLike<number>, dim: number, margin = 0): number {
  let n = 0;
  const joints = robot.arm.joints;
  for (let r = 0; r < qpos.length / dim; r++) {
    joints.forEach((j, i) => {
      const v = qpos[r * dim + i]!;
      if (v < j.lower - margin || v > j.upper + margin) n++;
    });
  }
  return n;
}

export interface UnitGuess {
  units: JointUnits;
  /** Why, for the report. */
  reason: string;
  /** The values fit degrees and range100 alike: `units` is only the robot's usual one, no finding. */
  ambiguous?: true;
}

/** Outside the limits by this much (radians) counts as contradicting the units. */
const MARGIN = 0.1;

/**
 * The likely units of a dataset's arm positions (`rows × dim` values, arm joints then the gripper): radians
 * when every arm value lies within ±2π; degrees when some lie beyond ±100 (LeRobot's calibrated range stops
 * there); range100 when degrees would put over 1% of the positions outside the limits (range100 cannot:
 * it spans them); otherwise the robot's `lerobot.units`, else degrees.
 */
export function guessUnits(robot: RobotDescription, values: Float32Array, dim: number): UnitGuess {
  let largest = 0;
  for (let k = 0; k < values.length; k++) if (k % dim !== dim - 1) largest = Math.max(largest, Math.abs(values[k]!));
  const size = `the largest arm value is ${largest.toFixed(1)}`;
  if (largest <= 2 * Math.PI) return { units: 'radians', reason: `${size}, within ±2π` };
  if (largest > 100.5)
    return { units: 'degrees', reason: `${size}: beyond ±100, where LeRobot's calibrated range stops` };
  const outside = (units: JointUnits) => {
    const v = new Float32Array(values);
    toWmrl(unitConversion(robot, units), v, dim, 'position');
    return outsideLimits(robot, v, dim);
  };
  const positions = (values.length / dim) * (dim - 1);
  const asDegrees = outside('degrees');
  if (asDegrees > 0.01 * positions) {
    return {
      units: 'range100',
      reason:
        `${size}, beyond ±2π and within ±100; ` +
        `read as degrees ${asDegrees} of ${positions} positions fall outside the limits`,
    };
  }
  const units = robot.lerobot?.units === 'range100' ? 'range100' : 'degrees';
  return { units, reason: `${size}: degrees and range100 both fit`, ambiguous: true };
}

/**
 * Refuses units the data contradicts: more than 2% of the positions (or any, in radians beyond ±2π) outside
 * the limits by over 0.1 rad once converted. The message names the flag and what the data suggests.
 */
export function checkUnits(
  robot: RobotDescription,
  c: UnitConversion,
  qpos: Float32Array,
  dim: number,
  raw: Float32Array,
): void {
  const positions = (qpos.length / dim) * (dim - 1);
  const outside = outsideLimits(robot, qpos, dim, MARGIN);
  if (outside <= 0.02 * positions) return;
  const guess = guessUnits(robot, raw, dim);
  throw new MappingError(
    `read as ${c.units}, ${outside} of ${positions} arm positions lie more than ${MARGIN} rad outside robot ` +
      `'${robot.name}''s limits: the data contradicts --units ${c.units} (${guess.reason}; ` +
      `try --units ${guess.units}, or --robot for another robot)`,
  );
}
