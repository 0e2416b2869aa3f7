/**
 * One step from real states where the gripper is commanded closed with the fingers half open: the finger's real
 * change and the world model's, by how far the object is from the gripper. Fingers on the object stop at its width;
 * fingers beside it close all the way, faster. A model that closes them alike wherever the object is cannot tell a
 * grasp from a miss, whatever its replay drifts to (docs/worldmodel.md, "Does it tell a grasp from a miss?").
 */
import type { Episode } from '../core/types.ts';
import type { Imaginer } from './replayRanking.ts';
import { objectDistanceAt } from '../tasks/pick/graspScore.ts';
import { replayPolicy } from '../worldmodel/replayPolicy.ts';
import { statesAt } from '../worldmodel/statesAt.ts';

/** The object's distance from the gripper at which the rows part (metres): on it, near it, beside it, away. */
export const CLOSING_DISTANCES = [0, 0.02, 0.04, 0.08, Infinity];
/** The finger openings counted: the middle of a closing, where fingers on the object and on nothing part. */
export const CLOSING_OPENINGS: [number, number] = [0.3, 0.7];

export interface ClosingRow {
  /** The object's distance from the gripper, from (inclusive) and to (exclusive), metres. */
  from: number;
  to: number;
  steps: number;
  /** The finger's mean change over one step, real and predicted (the ensemble's mean). */
  real: number;
  model: number;
}

/**
 * `episodes` in the model's layout, whose state ends with the object relative to the end effector (3) and its lift
 * (a world model told the object); `finger`: the first finger joint's index in the joint positions (the state leads
 * with them). The gripper command is the last action dim (+1 closed).
 */
export function closingSteps(model: Imaginer, episodes: Episode[], finger: number): ClosingRow[] {
  const picked: { e: Episode; t: number; distance: number }[] = [];
  for (const e of episodes) {
    if (finger < 0 || finger >= e.qposDim)
      throw new Error(`closing steps: finger joint ${finger} is not one of episode ${e.id}'s ${e.qposDim}`);
    const Z = e.stateDim;
    for (let t = 0; t < e.steps; t++) {
      const opening = e.qpos[t * e.qposDim + finger]!;
      if (opening < CLOSING_OPENINGS[0] || opening >= CLOSING_OPENINGS[1]) continue;
      if (e.actions[(t + 1) * e.actionDim - 1]! <= 0) continue;
      picked.push({ e, t, distance: objectDistanceAt(e.state, t * Z, Z) });
    }
  }
  const rows = CLOSING_DISTANCES.slice(1).map((to, i) => ({
    from: CLOSING_DISTANCES[i]!,
    to,
    steps: 0,
    real: 0,
    model: 0,
  }));
  if (picked.length === 0) return rows;
  const closing = picked.map((p) => p.e);
  const steps = picked.map((p) => p.t);
  const out = model.imagine(replayPolicy(closing, steps), statesAt(closing, steps), 1, { rule: 'progress' });
  const { members: K, rollouts: B, stateDim: D } = out;
  picked.forEach(({ e, t, distance }, b) => {
    const row = rows.find((r) => distance >= r.from && distance < r.to)!;
    let predicted = 0;
    for (let k = 0; k < K; k++) predicted += out.states[((K + k) * B + b) * D + finger]! / K;
    const opening = e.qpos[t * e.qposDim + finger]!;
    row.steps++;
    row.real += e.qpos[(t + 1) * e.qposDim + finger]! - opening;
    row.model += predicted - opening;
  });
  return rows.map((r) => (r.steps ? { ...r, real: r.real / r.steps, model: r.model / r.steps } : r));
}
