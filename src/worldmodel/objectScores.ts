/**
 * Closeness of the gripper to the object in an imagined state, read off the state's object numbers instead of the
 * score head: a world model told the object (worldModel.object) ends its state with the object minus the gripper
 * (xyz) and the object's lift (src/worldmodel/endEffectorFeatures.ts). The `grasp` score reads it where the gripper
 * first closes (graspScores).
 */
import { clamp01 } from '../core/clamp01.ts';

/** The distance from the gripper to the object at which the closeness is 0 (metres). */
export const OBJECT_REACH = 0.25;

/** The score rules read off the imagined state's object numbers (with the rollout's gripper commands). */
export const OBJECT_RULES = ['grasp'] as const;
export type ObjectRule = (typeof OBJECT_RULES)[number];
export const isObjectRule = (rule: string): rule is ObjectRule => (OBJECT_RULES as readonly string[]).includes(rule);

/** The object's distance from the gripper (metres) in the one D-wide state that starts at `at` in `states`. */
export function objectDistanceAt(states: ArrayLike<number>, at: number, D: number): number {
  return Math.hypot(states[at + D - 4]!, states[at + D - 3]!, states[at + D - 2]!);
}

/** The gripper's closeness to the object, clamp(1 − distance / OBJECT_REACH), in the D-wide state at `at`. */
export function objectClosenessAt(states: ArrayLike<number>, at: number, D: number): number {
  return clamp01(1 - objectDistanceAt(states, at, D) / OBJECT_REACH);
}
