/**
 * The anchor groups whose prediction errors rectify the training PPI estimate: this step's and
 * those of the latest steps, up to `size` groups. One step has one or two anchor groups, and an
 * interval from so few spans nearly [0, 1]; the world model's error on the policy's groups
 * changes slowly from step to step (the refits follow it), so the newest few steps' errors
 * estimate this step's. Groups, not rollouts, are PPI's samples here.
 *
 * A group is kept as its rollouts' raw world-model scores with its mean real outcome, and is debiased
 * again by the correction of the step that asks. PPI's rectifier must use the same predictor as the
 * imagined mean it corrects: kept as the scores calibrated at the time, a group added before the
 * debiasing map was first fitted holds the raw over-prediction, and once the map has lowered the imagined scores the
 * window subtracted that bias a second time.
 *
 * Groups weigh by recency, halving every `halfLife` steps: while the policy improves fast, the
 * world model's error on it drifts, and equal weights over many steps let the older errors pull the estimate away
 * from the truth; a half-life of about a refit's interval follows the drift.
 */
import { groupMeans, type PpiEstimate, weightedGroupsPpiEstimate } from '../../eval/ppiEstimate.ts';

interface WindowGroup {
  /** The training step whose anchors these were. */
  step: number;
  /** The group's rollouts' raw (not debiased) scores. */
  scores: number[];
  /** The group's mean real outcome. */
  outcome: number;
}

export interface PpiWindowState {
  groups: (Omit<WindowGroup, 'step'> & { step?: number })[];
}

/** What a checkpoint may hold: this state, or the group means an older window kept. */
export type StoredPpiWindow = PpiWindowState | { predicted: number[]; outcomes: number[] };

/** Debias raw scores by the correction of now. */
export type Rescore = (scores: number[]) => ArrayLike<number>;

export class PpiWindow {
  readonly size: number;
  /** Steps over which a group's weight halves (0: every group weighs the same). */
  readonly halfLife: number;
  #groups: WindowGroup[] = [];

  constructor(size: number, halfLife = 0) {
    if (!(Number.isInteger(size) && size >= 1)) throw new Error(`PPI window: size must be an integer ≥ 1, got ${size}`);
    if (!(halfLife >= 0 && Number.isFinite(halfLife)))
      throw new Error(`PPI window: half-life must be a number of steps ≥ 0, got ${halfLife}`);
    this.size = size;
    this.halfLife = halfLife;
  }

  get groups(): number {
    return this.#groups.length;
  }

  /**
   * Add step `step`'s anchor groups: group-major rollout rows (`groupSize` each) of raw scores
   * and real outcomes; the oldest groups fall out.
   */
  add(step: number, scores: ArrayLike<number>, outcomes: ArrayLike<number>, groupSize: number): void {
    if (scores.length !== outcomes.length)
      throw new Error(`PPI window: ${scores.length} scores but ${outcomes.length} outcomes`);
    const means = groupMeans(outcomes, groupSize);
    means.forEach((outcome, g) => {
      const rows = [g * groupSize, (g + 1) * groupSize] as const;
      this.#groups.push({
        step,
        scores: Array.from(scores).slice(...rows),
        outcome,
      });
    });
    this.#groups.splice(0, Math.max(0, this.#groups.length - this.size));
  }

  /** A copy with step `step`'s anchor groups added (see add); this window is left as it is. */
  with(step: number, scores: ArrayLike<number>, outcomes: ArrayLike<number>, groupSize: number): PpiWindow {
    const next = PpiWindow.fromJSON(this.size, this.halfLife, this.toJSON());
    next.add(step, scores, outcomes, groupSize);
    return next;
  }

  /**
   * The estimate at step `step` for debiased imagined groups (rollout rows, `groupSize` each),
   * rectified by the window's groups debiased by `rescore`, plus, optionally, `extra` anchor
   * groups of this step (debiased predictions; measurement episodes, not kept).
   */
  estimate(
    step: number,
    imagined: ArrayLike<number>,
    groupSize: number,
    rescore: Rescore,
    extra?: { predicted: ArrayLike<number>; outcomes: ArrayLike<number> },
  ): PpiEstimate {
    const { predicted, outcomes, weights } = this.rectifiers(step, groupSize, rescore, extra);
    return weightedGroupsPpiEstimate(groupMeans(imagined, groupSize), predicted, outcomes, weights);
  }

  /**
   * The rectifying groups' debiased mean predictions, mean outcomes and weights at step `step`,
   * oldest first, then `extra`'s.
   */
  rectifiers(
    step: number,
    groupSize: number,
    rescore: Rescore,
    extra?: { predicted: ArrayLike<number>; outcomes: ArrayLike<number> },
  ): { predicted: number[]; outcomes: number[]; weights: number[] } {
    const predicted = this.#groups.map((g) => mean(rescore(g.scores)));
    const outcomes = this.#groups.map((g) => g.outcome);
    const weights = this.#groups.map((g) => this.#weight(step - g.step));
    if (extra) {
      const means = groupMeans(extra.outcomes, groupSize);
      predicted.push(...groupMeans(extra.predicted, groupSize));
      outcomes.push(...means);
      weights.push(...means.map(() => 1));
    }
    return { predicted, outcomes, weights };
  }

  #weight(age: number): number {
    return this.halfLife === 0 ? 1 : 0.5 ** (Math.max(0, age) / this.halfLife);
  }

  toJSON(): PpiWindowState {
    return { groups: this.#groups.map((g) => ({ ...g, scores: [...g.scores] })) };
  }

  /**
   * A window from a checkpoint. A checkpoint from before the window kept raw scores (its groups
   * calibrated at the time, which this window cannot debias again) starts an empty window; one
   * from before groups kept their step dates them all to step 0.
   */
  static fromJSON(size: number, halfLife: number, state: StoredPpiWindow): PpiWindow {
    const w = new PpiWindow(size, halfLife);
    if ('groups' in state)
      w.#groups = state.groups.slice(-size).map((g) => ({ step: g.step ?? 0, scores: g.scores, outcome: g.outcome }));
    return w;
  }
}

function mean(values: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < values.length; i++) s += values[i]!;
  return s / values.length;
}
