/**
 * The anchor groups whose prediction errors rectify the training PPI estimate: this step's and
 * those of the latest steps, up to `size` groups. One step has one or two anchor groups, and an
 * interval from so few spans nearly [0, 1]; the world model's error on the policy's groups
 * changes slowly from step to step (the calibration map and the refits follow it), so the
 * newest few steps' errors estimate this step's. Each entry is one group: its mean calibrated
 * prediction and its mean real outcome (groups, not rollouts, are PPI's samples here).
 */
import { groupedPpiEstimate, groupMeans, type PpiEstimate } from '../eval/ppiEstimate.ts';

export interface PpiWindowState {
  predicted: number[];
  outcomes: number[];
}

export class PpiWindow {
  readonly size: number;
  #predicted: number[] = [];
  #outcomes: number[] = [];

  constructor(size: number) {
    if (!(Number.isInteger(size) && size >= 1)) throw new Error(`PPI window: size must be an integer ≥ 1, got ${size}`);
    this.size = size;
  }

  get groups(): number {
    return this.#outcomes.length;
  }

  /** Add anchor groups (group-major rollout rows, `groupSize` each); the oldest fall out. */
  add(predicted: ArrayLike<number>, outcomes: ArrayLike<number>, groupSize: number): void {
    if (predicted.length !== outcomes.length)
      throw new Error(`PPI window: ${predicted.length} predictions but ${outcomes.length} outcomes`);
    this.#predicted.push(...groupMeans(predicted, groupSize));
    this.#outcomes.push(...groupMeans(outcomes, groupSize));
    const extra = this.#outcomes.length - this.size;
    if (extra > 0) {
      this.#predicted.splice(0, extra);
      this.#outcomes.splice(0, extra);
    }
  }

  /**
   * The estimate for imagined groups (rollout rows, `groupSize` each), rectified by the window's
   * groups plus, optionally, `extra` anchor groups that are not kept (measurement episodes).
   */
  estimate(
    imagined: ArrayLike<number>,
    groupSize: number,
    extra?: { predicted: ArrayLike<number>; outcomes: ArrayLike<number> },
  ): PpiEstimate {
    const predicted = [...this.#predicted, ...(extra ? groupMeans(extra.predicted, groupSize) : [])];
    const outcomes = [...this.#outcomes, ...(extra ? groupMeans(extra.outcomes, groupSize) : [])];
    return groupedPpiEstimate(groupMeans(imagined, groupSize), predicted, outcomes, 1);
  }

  toJSON(): PpiWindowState {
    return { predicted: [...this.#predicted], outcomes: [...this.#outcomes] };
  }

  static fromJSON(size: number, state: PpiWindowState): PpiWindow {
    const w = new PpiWindow(size);
    w.add(state.predicted, state.outcomes, 1);
    return w;
  }
}
