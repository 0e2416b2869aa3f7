/**
 * Score `grasp`: the gripper's closeness to the object at the step its command first closes, read off the imagined
 * state before that command acts (the state's object numbers, worldModel.object); a rollout that has not closed yet
 * scores its latest state's closeness, as if it closed there.
 *
 * Why: on pick the world model cannot roll a grasp forward (fingers closing on nothing look like fingers closing on
 * the block, docs/worldmodel.md), so any score read after the fingers close ranks the clone's rollouts near chance.
 * Where the fingers close is another matter: the object relative to the gripper follows from the arm's joints,
 * which the model predicts well, and the clone's misses close too high or off to the side: this score ranks a
 * group's successes above its failures, on the real states and replayed open loop (`wmrl wm rank`; the figures in
 * docs/worldmodel.md).
 */
import { clamp01 } from '../../core/clamp01.ts';
import { OBJECT_FEATURES } from '../familyDef.ts';

/** Pick's action layout: the arm's joint targets, then the gripper command, the last dim (positive closes). */
export const gripperDim = (actionDim: number): number => actionDim - 1;

/** The distance from the gripper to the block at which the closeness is 0 (metres): about pick's median start. */
export const OBJECT_REACH = 0.25;

/** The block's distance from the gripper (metres) in the one D-wide state that starts at `at` in `states`. */
export function objectDistanceAt(states: ArrayLike<number>, at: number, D: number): number {
  const o = at + D - OBJECT_FEATURES;
  return Math.hypot(states[o]!, states[o + 1]!, states[o + 2]!);
}

/** The gripper's closeness to the block, clamp(1 − distance / OBJECT_REACH), in the D-wide state at `at`. */
export function objectClosenessAt(states: ArrayLike<number>, at: number, D: number): number {
  return clamp01(1 - objectDistanceAt(states, at, D) / OBJECT_REACH);
}

/**
 * Per imagined step (H × R, R rows) each row's grasp score as of the state after it: the closeness at the first
 * step s ≤ t whose gripper command (gripperDim) closes, read off state s (before the
 * command), else the closeness of state t + 1. `states` (H+1) × R × D, `actions` H × R × A.
 */
export function graspScores(
  states: Float32Array,
  actions: Float32Array,
  horizon: number,
  rows: number,
  D: number,
  A: number,
): Float32Array {
  if (actions.length < horizon * rows * A)
    throw new Error(`grasp scores: expected ${horizon}×${rows}×${A} actions, got ${actions.length} values`);
  const out = new Float32Array(horizon * rows);
  for (let r = 0; r < rows; r++) {
    let closed: number | undefined;
    for (let t = 0; t < horizon; t++) {
      if (closed === undefined && actions[(t * rows + r) * A + gripperDim(A)]! > 0)
        closed = objectClosenessAt(states, (t * rows + r) * D, D);
      out[t * rows + r] = closed ?? objectClosenessAt(states, ((t + 1) * rows + r) * D, D);
    }
  }
  return out;
}

/**
 * One recorded episode's grasp score as of step `end` (its state after `end` steps; `states` and `actions` in the
 * world model's layout, step-major): the same rule as graspScores on a single row.
 */
export function graspScoreAt(states: Float32Array, actions: Float32Array, end: number, D: number, A: number) {
  return end === 0 ? objectClosenessAt(states, 0, D) : graspScores(states, actions, end, 1, D, A)[end - 1]!;
}
