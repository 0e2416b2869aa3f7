/** Group starts: recorded episodes' first observations, in the world model's state layout. */
import type { Episode } from '../../core/types.ts';
import type { VlaPolicy } from '../../policy/vlaPolicy.ts';
import { parseTaskSelectors, taskMatches } from '../../tasks/selectors.ts';
import type { EndEffectorFeatures } from '../../worldmodel/endEffectorFeatures.ts';
import type { ImaginationStarts } from '../../worldmodel/imagine.ts';
import { startStates } from '../../worldmodel/perceptionWorldModel.ts';
import { CONTEXT_DIM, familyOneHot } from '../../tasks/familyContext.ts';
import type { GroupSpec } from '../run/anchorRunner.ts';

/** A group start: a recorded episode's first observation (its task and scene seed reproduce it). */
export interface StartPool {
  specs: GroupSpec[];
  /** World-model state of each start (2·qposDim + latent [+ end effector]), for imagination. */
  states: Float32Array;
  stateDim: number;
}

/** Starts from recorded train-split episodes of the selected tasks: one per distinct (instruction, seed). */
export function startPool(
  policy: VlaPolicy,
  episodes: Episode[],
  tasks = 'all',
  endEffector?: EndEffectorFeatures,
): StartPool {
  const selectors = parseTaskSelectors(tasks);
  const seen = new Set<string>();
  const chosen = episodes.filter((e) => {
    const key = `${e.task.instruction}|${e.seed}`;
    if (e.task.split !== 'train' || !taskMatches(e.task, selectors) || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  if (chosen.length === 0)
    throw new Error(`no train-split episodes of tasks '${tasks}' in the data to draw group starts from`);
  return { specs: chosen.map((e) => ({ task: e.task, seed: e.seed })), ...startStates(policy, chosen, endEffector) };
}

/** The pool's starts at `indices`, as imagination takes them. */
export function groupStarts(pool: StartPool, indices: number[]): ImaginationStarts {
  const D = pool.stateDim;
  const states = new Float32Array(indices.length * D);
  const context = new Float32Array(indices.length * CONTEXT_DIM);
  indices.forEach((idx, i) => {
    states.set(pool.states.subarray(idx * D, (idx + 1) * D), i * D);
    context.set(familyOneHot(pool.specs[idx]!.task.family), i * CONTEXT_DIM);
  });
  return { states, stateDim: D, context, instructions: indices.map((idx) => pool.specs[idx]!.task.instruction) };
}
