/**
 * The privileged state vector of an observation: per task object (target first, padded with
 * zeros) position xyz and quaternion wxyz, then the goal position. The in-process env and the
 * sim server both report it, so it lives with the simulator.
 */
import type { Simulator } from './simulator.ts';
import type { TaskProgress } from './taskProgress.ts';

/** Objects reported in the privileged state (padded with zeros). */
export const MAX_STATE_OBJECTS = 4;
export const STATE_DIM = MAX_STATE_OBJECTS * 7 + 3;

export function privilegedState(sim: Simulator, progress: TaskProgress): Float32Array {
  const state = new Float32Array(STATE_DIM);
  const n = Math.min(sim.objectCount, MAX_STATE_OBJECTS);
  for (let i = 0; i < n; i++) state.set(sim.objectPose(i), 7 * i);
  state.set(progress.goal(sim), 7 * MAX_STATE_OBJECTS);
  return state;
}
