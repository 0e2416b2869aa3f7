/** The policy's action noise (its state-independent std), set for RL and widened for a while. */
import * as tf from '@tensorflow/tfjs';
import type { VlaPolicy } from '../../policy/vlaPolicy.ts';

/** Exploration: the action std RL starts from (evaluation takes the mean action, so it is unchanged); 0 keeps it. */
export function setStd(policy: VlaPolicy, std: number): void {
  if (std <= 0) return;
  const logStd = tf.fill(policy.logStd.shape, Math.log(std));
  policy.logStd.assign(logStd);
  logStd.dispose();
}

/**
 * `run` with the policy's action noise at `std` (0: unchanged), restored after: warm-up episodes may explore wider
 * than training does, so the world model sees the policy's wide failures and not only its near misses.
 */
export async function withStd<T>(policy: VlaPolicy, std: number, run: () => Promise<T>): Promise<T> {
  if (std <= 0) return run();
  const own = policy.logStd.clone();
  setStd(policy, std);
  try {
    return await run();
  } finally {
    policy.logStd.assign(own);
    own.dispose();
  }
}
