/**
 * Some of a step's anchor groups, when operator labels left others out: their imagined twins (the
 * predictions made before execution) cut down to the kept groups, row for row, so that every
 * correction is still fitted on paired scores.
 */
import type { ImaginationStarts } from '../../worldmodel/imagine.ts';
import type { ImaginedGroups } from './imaginedGroups.ts';
import { emptySamples } from './policySamples.ts';

/** `starts` (one row per group) and `out` (M rollouts per group) of the groups `kept`, in that order. */
export function keepGroups(
  starts: ImaginationStarts,
  out: ImaginedGroups,
  kept: number[],
  rollouts: number,
): { starts: ImaginationStarts; out: ImaginedGroups } {
  const G = starts.instructions.length;
  const D = starts.stateDim;
  const C = starts.context.length / G;
  const M = rollouts;
  const newStarts: ImaginationStarts = {
    states: new Float32Array(kept.length * D),
    stateDim: D,
    context: new Float32Array(kept.length * C),
    instructions: kept.map((g) => starts.instructions[g]!),
  };
  const score = new Float32Array(kept.length * M);
  const variance = new Float32Array(kept.length * M);
  /** Old rollout index → new one (-1: left out). */
  const rolloutMap = new Int32Array(G * M).fill(-1);
  kept.forEach((g, k) => {
    newStarts.states.set(starts.states.subarray(g * D, (g + 1) * D), k * D);
    newStarts.context.set(starts.context.subarray(g * C, (g + 1) * C), k * C);
    score.set(out.score.subarray(g * M, (g + 1) * M), k * M);
    variance.set(out.variance.subarray(g * M, (g + 1) * M), k * M);
    for (let m = 0; m < M; m++) rolloutMap[g * M + m] = k * M + m;
  });
  const s = out.samples;
  const rows: number[] = [];
  for (let r = 0; r < s.count; r++) if (rolloutMap[out.rolloutOf[r]!]! >= 0) rows.push(r);
  const samples = emptySamples(s, rows.length);
  const rolloutOf = new Int32Array(rows.length);
  const copy = (
    src: Float32Array | Int32Array,
    dst: Float32Array | Int32Array,
    width: number,
    from: number,
    to: number,
  ) => dst.set(src.subarray(from * width, (from + 1) * width), to * width);
  rows.forEach((r, i) => {
    copy(s.latents, samples.latents, s.latentDim, r, i);
    copy(s.proprio, samples.proprio, s.proprioDim, r, i);
    copy(s.tokens, samples.tokens, s.maxTokens, r, i);
    copy(s.actions, samples.actions, s.actionDim, r, i);
    samples.oldLogProb[i] = s.oldLogProb[r]!;
    samples.advantage[i] = s.advantage[r]!;
    samples.weight[i] = s.weight[r]!;
    rolloutOf[i] = rolloutMap[out.rolloutOf[r]!]!;
  });
  return { starts: newStarts, out: { score, variance, samples, rolloutOf, members: out.members } };
}
