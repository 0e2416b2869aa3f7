/**
 * Can this world model rank real rollouts the way their outcomes do — and if not, where does it
 * fail? Measured on recorded groups of rollouts that share a start (a `wmrl train` run's anchor
 * episodes), without running the environment, as within-group AUC against success of:
 *  - `truth`: the true progress at step H (success by then ranks first): the best any H-step
 *    progress score could do;
 *  - `replay`: the model's progress after H steps open loop from the real start with the recorded
 *    actions (dynamics and head errors, no policy reaction);
 *  - `head`: the model's progress one step from the real state before step H with the recorded
 *    action (the head alone, almost no dynamics error).
 * `truth` high with `head` near 0.5 (or below) says the score head, not the dynamics, is what
 * imagination lacks. With `keyframes` (a world model that holds them) two more: the keyframe score of the real
 * states up to step H, and of the states replayed open loop H steps. With `finger` (the first finger
 * joint's index in the joint positions) the finger's opening at step H, real and replayed, of the successes and
 * of the failures: whether the model tells fingers closed on the object from fingers closed on nothing. The
 * closed-loop number (policy reacting to imagined states) is the imagination check's (`wmrl train
 * --imaginationCheckGroups`).
 */
import type { Episode } from '../core/types.ts';
import { groupRankAgreement, type RankAgreement } from './rankAgreement.ts';
import type { ImaginationPolicy, ImaginationStarts, ImaginedRollouts, ImagineOptions } from '../worldmodel/imagine.ts';
import { rolloutScores } from '../worldmodel/imagine.ts';
import { scoreRule } from '../worldmodel/scoreRules.ts';
import { replayPolicy } from '../worldmodel/replayPolicy.ts';
import { statesAt } from '../worldmodel/statesAt.ts';

export interface Imaginer {
  imagine(
    policy: ImaginationPolicy,
    starts: ImaginationStarts,
    horizon: number,
    options?: ImagineOptions,
  ): ImaginedRollouts;
}

export interface ReplayRanking {
  horizon: number;
  groupSize: number;
  groups: number;
  truth: RankAgreement;
  replay: RankAgreement;
  head: RankAgreement;
  /** With `keyframes`, the keyframe score of the real states up to step H, and of those replayed H steps. */
  keyframes?: { real: RankAgreement; replay: RankAgreement };
  /** With `finger`: the finger's opening at step H of the successes and of the failures (null: none of them). */
  fingers?: { success: FingerQuantiles | null; failure: FingerQuantiles | null };
}

/** The 10%, 50% and 90% quantiles of a finger's opening at step H: real, and replayed (the ensemble's mean). */
export interface FingerQuantiles {
  real: [number, number, number];
  replay: [number, number, number];
}

export interface ReplayRankingOptions {
  /** The model holds the keyframes (worldModel.keyframes): rank by the keyframe score too. */
  keyframes?: boolean;
  /** The first finger joint's index in the joint positions (the model's state leads with them). */
  finger?: number;
}

/**
 * `episodes` in the model's layout (for the perception world model: `perceptionEpisodes`),
 * group-major: episodes g·M … g·M + M − 1 share a start. A trailing partial group is ignored.
 */
export function replayRanking(
  model: Imaginer,
  episodes: Episode[],
  groupSize: number,
  horizon: number,
  options: ReplayRankingOptions = {},
): ReplayRanking {
  const { keyframes = false, finger } = options;
  if (!Number.isInteger(groupSize) || groupSize < 2)
    throw new Error(`replay ranking: the group size must be an integer >= 2, got ${groupSize}`);
  if (!Number.isInteger(horizon) || horizon < 1)
    throw new Error(`replay ranking: the horizon must be an integer >= 1, got ${horizon}`);
  const usable = episodes.slice(0, Math.floor(episodes.length / groupSize) * groupSize);
  if (usable.length === 0) throw new Error(`replay ranking: ${episodes.length} episodes make no group of ${groupSize}`);
  const short = usable.find((e) => e.steps < 1);
  if (short) throw new Error(`replay ranking: episode ${short.id} has no step`);
  const success = usable.map((e) => (e.success ? 1 : 0));
  const end = usable.map((e) => Math.min(horizon, e.steps));
  const truth = usable.map((e, i) => (e.success && e.steps <= horizon ? 2 : e.progress[end[i]!]!));
  const starts = statesAt(
    usable,
    usable.map(() => 0),
  );
  const replayed = model.imagine(replayPolicy(usable), starts, horizon, { rule: 'progress' });
  const before = end.map((t) => t - 1);
  const head = model.imagine(replayPolicy(usable, before), statesAt(usable, before), 1, { rule: 'progress' }).score;
  return {
    horizon,
    groupSize,
    groups: usable.length / groupSize,
    truth: groupRankAgreement(truth, success, groupSize),
    replay: groupRankAgreement(replayed.score, success, groupSize),
    head: groupRankAgreement(head, success, groupSize),
    ...(keyframes ? { keyframes: keyframeRanking(replayed, usable, end, horizon, success, groupSize) } : {}),
    ...(finger !== undefined ? { fingers: fingerQuantiles(replayed, usable, end, horizon, finger) } : {}),
  };
}

/** The finger's opening at each episode's step `end`, real and replayed H steps, in quantiles by outcome. */
function fingerQuantiles(
  replayed: ImaginedRollouts,
  usable: Episode[],
  end: number[],
  horizon: number,
  finger: number,
): { success: FingerQuantiles | null; failure: FingerQuantiles | null } {
  const bad = usable.find((e) => !Number.isInteger(finger) || finger < 0 || finger >= e.qposDim);
  if (bad) throw new Error(`replay ranking: finger joint ${finger} is not one of episode ${bad.id}'s ${bad.qposDim}`);
  const { members: K, rollouts: B, stateDim: D } = replayed;
  const real = usable.map((e, i) => e.qpos[end[i]! * e.qposDim + finger]!);
  const replay = usable.map((_, b) => {
    let sum = 0;
    for (let k = 0; k < K; k++) sum += replayed.states[((horizon * K + k) * B + b) * D + finger]!;
    return sum / K;
  });
  const of = (success: boolean): FingerQuantiles | null => {
    const rows = usable.flatMap((e, i) => (e.success === success ? [i] : []));
    if (rows.length === 0) return null;
    return { real: quantiles(rows.map((i) => real[i]!)), replay: quantiles(rows.map((i) => replay[i]!)) };
  };
  return { success: of(true), failure: of(false) };
}

/** The 10%, 50% and 90% quantiles (the nearest rank below) of a non-empty list. */
function quantiles(values: number[]): [number, number, number] {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return [at(0.1), at(0.5), at(0.9)];
}

/**
 * The keyframe score of the real states up to each episode's step `end` (a success before it ranks first), and of
 * the replayed rollouts (the progress replay's own, scored again rather than imagined again).
 */
function keyframeRanking(
  replayed: ImaginedRollouts,
  usable: Episode[],
  end: number[],
  horizon: number,
  success: number[],
  groupSize: number,
): { real: RankAgreement; replay: RankAgreement } {
  const rule = scoreRule('keyframes');
  const real = usable.map((e, i) =>
    e.success && e.steps <= horizon ? 2 : rule.at!(e.state, e.actions, end[i]!, e.stateDim, e.actionDim),
  );
  const { members: K, rollouts: B } = replayed;
  const perStep = rule.perStep({ ...replayed, rows: K * B });
  const replay = rolloutScores(perStep, horizon, K, B).score;
  return { real: groupRankAgreement(real, success, groupSize), replay: groupRankAgreement(replay, success, groupSize) };
}
