/**
 * Training windows for world models, cut from stored episodes: k consecutive transitions from
 * every step of every episode, padded and masked where an episode ends early (so short
 * episodes count fully and tensors stay rectangular).
 */
import type { Episode } from '../core/types.ts';
import { CONTEXT_DIM, familyOneHot } from '../tasks/familyContext.ts';

/** The state vector a state world model predicts: joint positions, velocities, object state. */
export function stateVector(qpos: ArrayLike<number>, qvel: ArrayLike<number>, state: ArrayLike<number>): Float32Array {
  const out = new Float32Array(qpos.length + qvel.length + state.length);
  out.set(qpos as Float32Array, 0);
  out.set(qvel as Float32Array, qpos.length);
  out.set(state as Float32Array, qpos.length + qvel.length);
  return out;
}

export interface Windows {
  count: number;
  k: number;
  stateDim: number;
  actionDim: number;
  /** count × (k+1) × stateDim: states x_t … x_{t+k} (the last valid one repeated past the end). */
  states: Float32Array;
  /** count × k × actionDim (zeros past the end). */
  actions: Float32Array;
  /**
   * count × k: success / progress of x_{t+i+1}; mask 1 where that step exists.
   */
  success: Float32Array;
  progress: Float32Array;
  mask: Float32Array;
  /** count × CONTEXT_DIM */
  context: Float32Array;
  /** Episode index of each window (for splits by episode). */
  episode: Int32Array;
}

/** Per-step state vectors of an episode: (T+1) × stateDim. */
export function episodeStates(e: Episode): Float32Array {
  const dim = 2 * e.qposDim + e.stateDim;
  const out = new Float32Array((e.steps + 1) * dim);
  for (let t = 0; t <= e.steps; t++) {
    out.set(
      stateVector(
        e.qpos.subarray(t * e.qposDim, (t + 1) * e.qposDim),
        e.qvel.subarray(t * e.qposDim, (t + 1) * e.qposDim),
        e.state.subarray(t * e.stateDim, (t + 1) * e.stateDim),
      ),
      t * dim,
    );
  }
  return out;
}

export function buildWindows(episodes: Episode[], k: number): Windows {
  if (episodes.length === 0) throw new Error('no episodes to train on');
  const first = episodes[0]!;
  if (first.stateDim === 0)
    throw new Error(
      'episodes carry no privileged state: the state world model needs simulator episodes (or use the video kind)',
    );
  const stateDim = 2 * first.qposDim + first.stateDim;
  const actionDim = first.actionDim;
  const count = episodes.reduce((n, e) => n + e.steps, 0);
  const w: Windows = {
    count,
    k,
    stateDim,
    actionDim,
    states: new Float32Array(count * (k + 1) * stateDim),
    actions: new Float32Array(count * k * actionDim),
    success: new Float32Array(count * k),
    progress: new Float32Array(count * k),
    mask: new Float32Array(count * k),
    context: new Float32Array(count * CONTEXT_DIM),
    episode: new Int32Array(count),
  };
  let n = 0;
  episodes.forEach((e, ei) => {
    if (2 * e.qposDim + e.stateDim !== stateDim || e.actionDim !== actionDim)
      throw new Error(`episode ${e.id} has other dimensions than the first episode`);
    const xs = episodeStates(e);
    const ctx = familyOneHot(e.task.family);
    for (let t = 0; t < e.steps; t++, n++) {
      w.episode[n] = ei;
      w.context.set(ctx, n * CONTEXT_DIM);
      for (let i = 0; i <= k; i++) {
        const src = Math.min(t + i, e.steps);
        w.states.set(xs.subarray(src * stateDim, (src + 1) * stateDim), (n * (k + 1) + i) * stateDim);
      }
      for (let i = 0; i < k && t + i < e.steps; i++) {
        const s = t + i;
        w.actions.set(e.actions.subarray(s * actionDim, (s + 1) * actionDim), (n * k + i) * actionDim);
        w.success[n * k + i] = e.successes[s + 1]!;
        w.progress[n * k + i] = e.progress[s + 1]!;
        w.mask[n * k + i] = 1;
      }
    }
  });
  return w;
}
