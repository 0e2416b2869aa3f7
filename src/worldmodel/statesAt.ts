/** Imagination starts taken from recorded episodes (model layout) at chosen steps. */
import type { Episode } from '../core/types.ts';
import type { ImaginationStarts } from './imagine.ts';
import { CONTEXT_DIM, familyOneHot } from '../tasks/familyContext.ts';
import { stateVector } from './transitionData.ts';

/** Episode i's model state [qpos, qvel, state] at its step `steps[i]`, with its task's context and instruction. */
export function statesAt(episodes: Episode[], steps: number[]): ImaginationStarts {
  if (episodes.length === 0) throw new Error('imagination starts: no episode to take a state from');
  if (steps.length !== episodes.length)
    throw new Error(`imagination starts: ${episodes.length} episodes but ${steps.length} steps`);
  const first = episodes[0]!;
  const D = 2 * first.qposDim + first.stateDim;
  const states = new Float32Array(episodes.length * D);
  const context = new Float32Array(episodes.length * CONTEXT_DIM);
  episodes.forEach((e, i) => {
    const t = steps[i]!;
    const q = e.qposDim;
    const Z = e.stateDim;
    if (2 * q + Z !== D)
      throw new Error(`imagination starts: episode ${e.id} has state width ${2 * q + Z}, the first ${D}`);
    if (!Number.isInteger(t) || t < 0 || t > e.steps)
      throw new Error(`imagination starts: episode ${e.id} has no step ${t} (it has ${e.steps})`);
    states.set(
      stateVector(
        e.qpos.subarray(t * q, (t + 1) * q),
        e.qvel.subarray(t * q, (t + 1) * q),
        e.state.subarray(t * Z, (t + 1) * Z),
      ),
      i * D,
    );
    context.set(familyOneHot(e.task.family), i * CONTEXT_DIM);
  });
  return { states, stateDim: D, context, instructions: episodes.map((e) => e.task.instruction) };
}
