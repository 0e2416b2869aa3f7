/**
 * Scores of an imagined state computed from its object numbers instead of the world model's score head: a world
 * model told the object (worldModel.object) ends its state with the object minus the gripper (xyz) and the object's
 * lift (src/worldmodel/endEffectorFeatures.ts). On pick the score head ranks a group's rollouts at about chance
 * 16 steps in; the gripper's closeness to the block, read off those numbers, ranks them (docs/benchmarks.md,
 * session 41).
 */
import { clamp01 } from '../core/clamp01.ts';

/** The distance from the gripper to the object at which the object scores' closeness is 0 (pick's median start, m). */
export const OBJECT_REACH = 0.25;
/** The lift at which score 'object''s lift half is full: the simulator's pick succeeds above it (metres). */
export const OBJECT_LIFT = 0.06;

/** The score rules read off the imagined state's object numbers (`grasp` with the rollout's gripper commands). */
export const OBJECT_RULES = ['object', 'objectDistance', 'grasp'] as const;
export type ObjectRule = (typeof OBJECT_RULES)[number];
export const isObjectRule = (rule: string): rule is ObjectRule => (OBJECT_RULES as readonly string[]).includes(rule);

/**
 * Per imagined step (H × R, R rows) the rule's score of the state after it, read off the state's last four numbers
 * (`grasp`: see graspScores, which also reads the actions):
 * the object minus the gripper (xyz) and the object's lift (the world model's object features, worldModel.object).
 *  - `object`: pick's progress as the simulator defines it, 0.5 · closeness + 0.5 · lift;
 *  - `objectDistance`: the closeness alone, clamp(1 − distance / OBJECT_REACH): a held block stays at the gripper,
 *    a missed one is left behind.
 * On a pick run's anchor groups, 16 steps in, the closeness ranks the real states at AUC 0.92–0.93 where the
 * localised lift ranks at 0.47–0.54 and pulls `object` down to 0.67–0.69 (`wmrl wm rank`, docs/benchmarks.md,
 * session 41); optimised past the clone's neighbourhood the closeness is gamed (a gripper kept at the block).
 */
export function objectScores(
  states: Float32Array,
  horizon: number,
  rows: number,
  D: number,
  rule: Exclude<ObjectRule, 'grasp'>,
) {
  const out = new Float32Array(horizon * rows);
  for (let t = 0; t < horizon; t++)
    for (let r = 0; r < rows; r++) out[t * rows + r] = objectScoreAt(states, ((t + 1) * rows + r) * D, D, rule);
  return out;
}

/** The object's distance from the gripper (metres) in the one D-wide state that starts at `at` in `states`. */
export function objectDistanceAt(states: ArrayLike<number>, at: number, D: number): number {
  return Math.hypot(states[at + D - 4]!, states[at + D - 3]!, states[at + D - 2]!);
}

/** The gripper's closeness to the object, clamp(1 − distance / OBJECT_REACH), in the D-wide state at `at`. */
export function objectClosenessAt(states: ArrayLike<number>, at: number, D: number): number {
  return clamp01(1 - objectDistanceAt(states, at, D) / OBJECT_REACH);
}

/** The rule's score of the one D-wide state that starts at `at` in `states`. */
export function objectScoreAt(
  states: ArrayLike<number>,
  at: number,
  D: number,
  rule: Exclude<ObjectRule, 'grasp'>,
): number {
  const closeness = objectClosenessAt(states, at, D);
  return rule === 'objectDistance' ? closeness : 0.5 * closeness + 0.5 * clamp01(states[at + D - 1]! / OBJECT_LIFT);
}
