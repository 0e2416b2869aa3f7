/**
 * The anchor groups whose prediction errors rectify the training PPI estimate: this step's and
 * those of the latest steps, up to `size` groups. One step has one or two anchor groups, and an
 * interval from so few spans nearly [0, 1]; the world model's error on the policy's groups
 * changes slowly from step to step (the refits follow it), so the newest few steps' errors
 * estimate this step's. Groups, not rollouts, are PPI's samples here.
 *
 * A group is kept as its rollouts' raw world-model scores (and, for the contextual correction,
 * their features) with its mean real outcome, and is debiased again by the correction of the
 * step that asks. PPI's rectifier must use the same predictor as the imagined mean it corrects:
 * kept as the scores calibrated at the time, a group added before the debiasing map was first
 * fitted holds the raw over-prediction, and once the map has lowered the imagined scores the
 * window subtracted that bias a second time (a benchmark check estimated 6% where the truth was 68%).
 */
import { groupedPpiEstimate, groupMeans, type PpiEstimate } from '../eval/ppiEstimate.ts';

interface WindowGroup {
  /** The group's rollouts' raw (not debiased) scores. */
  scores: number[];
  /** Per rollout, the correction's features (empty when the correction needs none). */
  features: number[];
  /** The group's mean real outcome. */
  outcome: number;
}

export interface PpiWindowState {
  groups: WindowGroup[];
}

/** What a checkpoint may hold: this state, or the group means an older window kept. */
export type StoredPpiWindow = PpiWindowState | { predicted: number[]; outcomes: number[] };

/** Debias raw scores with their features (rows × width, or empty) by the correction of now. */
export type Rescore = (scores: number[], features: number[]) => ArrayLike<number>;

export class PpiWindow {
  readonly size: number;
  #groups: WindowGroup[] = [];

  constructor(size: number) {
    if (!(Number.isInteger(size) && size >= 1)) throw new Error(`PPI window: size must be an integer ≥ 1, got ${size}`);
    this.size = size;
  }

  get groups(): number {
    return this.#groups.length;
  }

  /**
   * Add anchor groups: group-major rollout rows (`groupSize` each) of raw scores, their features
   * (`width` per row; none when empty) and real outcomes; the oldest groups fall out.
   */
  add(scores: ArrayLike<number>, features: ArrayLike<number>, outcomes: ArrayLike<number>, groupSize: number): void {
    if (scores.length !== outcomes.length)
      throw new Error(`PPI window: ${scores.length} scores but ${outcomes.length} outcomes`);
    if (scores.length > 0 && features.length % scores.length !== 0)
      throw new Error(`PPI window: ${features.length} feature values do not split into ${scores.length} rows`);
    const width = scores.length > 0 ? features.length / scores.length : 0;
    const means = groupMeans(outcomes, groupSize);
    means.forEach((outcome, g) => {
      const rows = [g * groupSize, (g + 1) * groupSize] as const;
      this.#groups.push({
        scores: Array.from(scores).slice(...rows),
        features: Array.from(features).slice(rows[0] * width, rows[1] * width),
        outcome,
      });
    });
    this.#groups.splice(0, Math.max(0, this.#groups.length - this.size));
  }

  /**
   * The estimate for debiased imagined groups (rollout rows, `groupSize` each), rectified by the
   * window's groups debiased by `rescore`, plus, optionally, `extra` anchor groups (debiased
   * predictions; measurement episodes, not kept).
   */
  estimate(
    imagined: ArrayLike<number>,
    groupSize: number,
    rescore: Rescore,
    extra?: { predicted: ArrayLike<number>; outcomes: ArrayLike<number> },
  ): PpiEstimate {
    const predicted = this.#groups.map((g) => mean(rescore(g.scores, g.features)));
    const outcomes = this.#groups.map((g) => g.outcome);
    if (extra) {
      predicted.push(...groupMeans(extra.predicted, groupSize));
      outcomes.push(...groupMeans(extra.outcomes, groupSize));
    }
    return groupedPpiEstimate(groupMeans(imagined, groupSize), predicted, outcomes, 1);
  }

  toJSON(): PpiWindowState {
    return { groups: this.#groups.map((g) => ({ ...g, scores: [...g.scores], features: [...g.features] })) };
  }

  /**
   * A window from a checkpoint. A checkpoint from before the window kept raw scores (its groups
   * calibrated at the time, which this window cannot debias again) starts an empty window.
   */
  static fromJSON(size: number, state: StoredPpiWindow): PpiWindow {
    const w = new PpiWindow(size);
    if ('groups' in state) w.#groups = state.groups.slice(-size).map((g) => ({ ...g }));
    return w;
  }
}

function mean(values: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < values.length; i++) s += values[i]!;
  return s / values.length;
}
