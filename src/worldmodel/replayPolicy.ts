/**
 * Real episodes as an imagination policy: rollout b plays episode b's recorded actions open loop
 * (what the model predicts for exactly that trajectory), from its step `from[b]` (default 0, the
 * start; imagination started from that step's state). Past an episode's end the arm holds (0)
 * and the gripper keeps its last command, so episodes of any length share one horizon.
 */
import * as tf from '@tensorflow/tfjs';
import type { Episode } from '../core/types.ts';
import type { ImaginationPolicy } from './imagine.ts';

export function replayPolicy(episodes: Episode[], from?: number[]): ImaginationPolicy {
  const A = episodes[0]?.actionDim ?? 0;
  if (from && from.length !== episodes.length)
    throw new Error(`replay policy: ${episodes.length} episodes but ${from.length} start steps`);
  return {
    act: (obs) =>
      tf.tidy(() => {
        const rows = obs.rollout.length;
        const out = new Float32Array(rows * A);
        for (let r = 0; r < rows; r++) {
          const b = obs.rollout[r]!;
          const e = episodes[b]!;
          const start = from?.[b] ?? 0;
          const t = start + obs.step;
          if (t < e.steps) out.set(e.actions.subarray(t * A, (t + 1) * A), r * A);
          else if (e.steps > start) out[r * A + A - 1] = e.actions[e.steps * A - 1]!;
        }
        return tf.tensor2d(out, [rows, A]);
      }),
  };
}
