/**
 * Real episodes as an imagination policy: rollout b plays episode b's recorded actions open loop
 * (what the model predicts for exactly that trajectory). Past an episode's end the arm holds (0)
 * and the gripper keeps its last command, so episodes of any length share one horizon.
 */
import * as tf from '@tensorflow/tfjs';
import type { Episode } from '../core/types.ts';
import type { ImaginationPolicy } from './imagine.ts';

export function replayPolicy(episodes: Episode[]): ImaginationPolicy {
  const A = episodes[0]?.actionDim ?? 0;
  return {
    act: (obs) =>
      tf.tidy(() => {
        const rows = obs.rollout.length;
        const out = new Float32Array(rows * A);
        for (let r = 0; r < rows; r++) {
          const e = episodes[obs.rollout[r]!]!;
          if (obs.step < e.steps) out.set(e.actions.subarray(obs.step * A, (obs.step + 1) * A), r * A);
          else if (e.steps > 0) out[r * A + A - 1] = e.actions[e.steps * A - 1]!;
        }
        return tf.tensor2d(out, [rows, A]);
      }),
  };
}
