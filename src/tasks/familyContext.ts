/**
 * The world model's task context: a one-hot of the task family, in the registry's order, so a
 * new family widens it with no edit elsewhere (and the existing families keep their vectors).
 */
import { TASK_FAMILIES, taskFamily } from './families.ts';

export const CONTEXT_DIM = TASK_FAMILIES.length;

/** Throws a TaskError for a family the registry does not know. */
export function familyOneHot(family: string): Float32Array {
  const out = new Float32Array(CONTEXT_DIM);
  out[TASK_FAMILIES.indexOf(taskFamily(family))] = 1;
  return out;
}
