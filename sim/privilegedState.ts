/**
 * The privileged state vector of an observation: per task object (target first, padded with
 * zeros) position xyz and quaternion wxyz, then the goal position. The in-process env and the
 * sim server both report it, so it lives with the simulator.
 */
import type { Simulator } from './simulator.ts';
import type { TaskProgress } from './taskProgress.ts';

/** Objects reported in the privileged state (padded with zeros). */
export const MAX_STATE_OBJECTS = 4;
/** The goal position's numbers, the state's last. */
export const GOAL_DIM = 3;
export const STATE_DIM = MAX_STATE_OBJECTS * 7 + GOAL_DIM;

/**
 * The goal position recorded at step t of an episode's (T+1) × stateDim privileged state: a view of its
 * last GOAL_DIM numbers; undefined where the episode records no such state (a robot without object state).
 */
export function recordedGoal(state: Float32Array, stateDim: number, t = 0): Float32Array | undefined {
  if (stateDim < GOAL_DIM || state.length < (t + 1) * stateDim) return undefined;
  return state.subarray((t + 1) * stateDim - GOAL_DIM, (t + 1) * stateDim);
}

/** The instructed (target) object's position xyz recorded at step t: the privileged state's first three numbers. */
export function recordedObject(state: Float32Array, stateDim: number, t = 0): Float32Array | undefined {
  if (stateDim < STATE_DIM || state.length < (t + 1) * stateDim) return undefined;
  return state.subarray(t * stateDim, t * stateDim + 3);
}

export function privilegedState(sim: Simulator, progress: TaskProgress): Float32Array {
  const state = new Float32Array(STATE_DIM);
  const n = Math.min(sim.objectCount, MAX_STATE_OBJECTS);
  for (let i = 0; i < n; i++) state.set(sim.objectPose(i), 7 * i);
  state.set(progress.goal(sim), 7 * MAX_STATE_OBJECTS);
  return state;
}
