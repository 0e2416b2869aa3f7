/**
 * Which dimension of a LeRobot vector feature (`observation.state`, `action`, …) feeds which wmrl
 * slot: the robot's arm joints in order, then `gripper`. By default a slot takes the dimension named
 * exactly like it, `<name>.pos` (LeRobot's own robots name motors `shoulder_pan.pos`) or the robot
 * description's `lerobot.names` entry;
 * `--map slot=name` picks another. A slot that finds nothing is an error that lists the names there
 * are; dimensions no slot takes are reported, never dropped silently.
 */
import type { RobotDescription } from '../../core/robotDescription.ts';

export const GRIPPER_SLOT = 'gripper';

/** wmrl's slots for `robot`: arm joints, then the gripper. */
export function robotSlots(robot: RobotDescription): string[] {
  return [...robot.arm.joints.map((j) => j.name), GRIPPER_SLOT];
}

export interface VectorMapping {
  feature: string;
  /** For each wmrl slot, the index of its dimension in the feature. */
  indices: number[];
  /** `slot ← name` for each slot, for the report. */
  pairs: string[];
  /** Dimensions of the feature that no slot takes. */
  unused: string[];
}

/** A mapping that cannot be made: names what is missing and what there is. */
export class MappingError extends Error {
  override readonly name = 'MappingError';
}

/**
 * Maps `slots` onto the dimensions of `feature` (named `names`). `overrides` are `slot → name` from
 * `--map`; an override naming no dimension is an error. `aliases[i]` is another default name for slot i.
 */
export function mapVector(
  feature: string,
  names: readonly string[],
  slots: readonly string[],
  overrides: Readonly<Record<string, string>>,
  aliases: readonly string[] = [],
): VectorMapping {
  const indices: number[] = [];
  const pairs: string[] = [];
  const missing: string[] = [];
  for (const slot of slots) {
    const wanted = overrides[slot];
    if (wanted !== undefined) {
      const at = names.indexOf(wanted);
      if (at < 0) {
        throw new MappingError(
          `--map ${slot}=${wanted}: ${feature} has no dimension '${wanted}' (it has ${names.join(', ')})`,
        );
      }
      indices.push(at);
      pairs.push(`${slot} ← ${wanted}`);
      continue;
    }
    const candidates = [slot, `${slot}.pos`, aliases[slots.indexOf(slot)] ?? slot];
    const at = candidates.map((n) => names.indexOf(n)).find((i) => i >= 0);
    if (at === undefined) {
      missing.push(slot);
      continue;
    }
    indices.push(at);
    pairs.push(`${slot} ← ${names[at]}`);
  }
  if (missing.length > 0) {
    throw new MappingError(
      `${feature}: no dimension for wmrl ${missing.length === 1 ? 'joint' : 'joints'} ${missing.join(', ')} ` +
        `(it has ${names.join(', ')}); name one with --map ${missing[0]}=NAME`,
    );
  }
  const taken = new Set(indices);
  const repeated = indices.find((i, k) => indices.indexOf(i) !== k);
  if (repeated !== undefined) {
    throw new MappingError(`${feature}: dimension '${names[repeated]}' is mapped to more than one wmrl joint`);
  }
  return { feature, indices, pairs, unused: names.filter((_, i) => !taken.has(i)) };
}

/** Parses `--map slot=name` flags into `slot → name`. */
export function parseMapFlags(flags: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const flag of flags) {
    const eq = flag.indexOf('=');
    if (eq <= 0 || eq === flag.length - 1) {
      throw new MappingError(`--map ${flag}: expected wmrlName=lerobotName, e.g. --map waist=shoulder_pan.pos`);
    }
    const slot = flag.slice(0, eq);
    if (out[slot] !== undefined) throw new MappingError(`--map ${slot}= is given twice`);
    out[slot] = flag.slice(eq + 1);
  }
  return out;
}
