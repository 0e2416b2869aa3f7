/**
 * The world model's task context: a one-hot of the task family over the built-in families (families.ts BUILT_IN,
 * in that order), so the built-in families keep their vectors. A family added from a file has no slot of its own:
 * its context is all zeros, and the world model learns it from the episodes themselves.
 */
import { BUILT_IN, taskFamily } from './families.ts';

export const CONTEXT_DIM = BUILT_IN.length;

/** Throws a TaskError for a family the registry does not know. */
export function familyOneHot(family: string): Float32Array {
  const out = new Float32Array(CONTEXT_DIM);
  const slot = (BUILT_IN as readonly string[]).indexOf(taskFamily(family));
  if (slot >= 0) out[slot] = 1;
  return out;
}
