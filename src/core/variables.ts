/**
 * tfjs variable names must be unique per process, yet checkpoints need stable names (two
 * world models, or a model and its reference copy, live side by side). Variables get a unique
 * suffix; `stableName` strips it for saving and loading.
 */
import * as tf from '@tensorflow/tfjs';

let counter = 0;

/** A trainable variable holding `initial`'s values; `initial` is disposed (the variable keeps its own reference). */
export function newVariable(initial: tf.Tensor, name: string): tf.Variable {
  const v = tf.variable(initial, true, `${name}#${counter++}`);
  initial.dispose();
  return v;
}

export function stableName(v: tf.Variable): string {
  return v.name.replace(/#\d+$/, '');
}

/** Variables by stable name. */
export function namedVariables(vars: tf.Variable[]): Record<string, tf.Variable> {
  const out: Record<string, tf.Variable> = {};
  for (const v of vars) {
    const name = stableName(v);
    if (out[name]) throw new Error(`two variables share the name '${name}'`);
    out[name] = v;
  }
  return out;
}
