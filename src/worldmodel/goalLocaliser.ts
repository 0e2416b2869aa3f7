/**
 * Where the task's goal is (world frame, metres), read from the policy's perception of an episode's
 * first frame: one ridge regression per task family, from the perception latent (the grounding heads'
 * image positions of what the instruction names) and the instructed object's kind, to the goal. It is
 * fitted on recorded episodes whose privileged state holds the goal (simulator demonstrations: the
 * supervision the policy's grounding heads were cloned with); it then needs only the camera frame.
 *
 * Why: whether a reach succeeds is decided by a centimetre or two of gripper position against the
 * goal. A scene score head that must work the goal out of image positions ranks the policy's near
 * misses at chance; given the goal relative to the gripper it ranks them at about 0.7–0.8 (replayed,
 * 8 steps), as well as with the simulator's true goal (docs/benchmarks.md, session 35).
 */
import type { Episode } from '../core/types.ts';
import { solve } from '../core/linearSolve.ts';

/** Goal coordinates estimated (x, y, z). */
const XYZ = 3;
/** Ridge penalty: the features are few and well spread; this only keeps a constant one-hot solvable. */
const RIDGE = 1e-4;
/** Latents up to this width get quadratic and cubic terms (a camera's projection is not linear). */
const POLYNOMIAL_UP_TO = 8;

/** One family's fit. */
export interface FamilyGoalFit {
  /** Object kinds seen in its data, in feature order. */
  kinds: string[];
  /** XYZ rows of feature weights. */
  weights: number[][];
  /** Root-mean-square error over the fitting episodes, metres (in-sample). */
  rmse: number;
  episodes: number;
}

/** What a world-model checkpoint stores of its localiser. */
export interface GoalLocaliserWeights {
  latentDim: number;
  families: Record<string, FamilyGoalFit>;
}

export class GoalLocaliser {
  readonly latentDim: number;
  readonly families: Readonly<Record<string, FamilyGoalFit>>;

  private constructor(weights: GoalLocaliserWeights) {
    this.latentDim = weights.latentDim;
    this.families = weights.families;
  }

  /**
   * Fit on `perceived` (episodes whose state is the policy's perception latent, `latentDim` a step)
   * against the same episodes as `recorded`, whose privileged state's last three numbers are the goal.
   * Episodes without privileged state are left out; a family needs more episodes than features.
   */
  static fit(perceived: Episode[], recorded: Episode[], latentDim: number): GoalLocaliser {
    if (perceived.length !== recorded.length)
      throw new Error(`goal localiser: ${perceived.length} perceived episodes but ${recorded.length} recorded`);
    const byFamily = new Map<string, { latent: Float32Array; kind: string; goal: number[] }[]>();
    perceived.forEach((e, i) => {
      const r = recorded[i]!;
      if (r.stateDim < XYZ || r.state.length < r.stateDim) return;
      if (e.stateDim < latentDim)
        throw new Error(
          `goal localiser: episode ${e.id} has ${e.stateDim} state numbers, not a ${latentDim}-wide latent`,
        );
      const rows = byFamily.get(e.task.family) ?? [];
      rows.push({
        latent: e.state.slice(0, latentDim),
        kind: e.task.object,
        goal: Array.from(r.state.subarray(r.stateDim - XYZ, r.stateDim)),
      });
      byFamily.set(e.task.family, rows);
    });
    if (byFamily.size === 0)
      throw new Error(
        'goal localiser: no episode holds a privileged goal to fit on (simulator demonstrations do; ' +
          'a robot over rosbridge records none)',
      );
    const families: Record<string, FamilyGoalFit> = {};
    for (const [family, rows] of byFamily) {
      const kinds = [...new Set(rows.map((r) => r.kind))].sort();
      const X = rows.map((r) => features(r.latent, r.kind, kinds));
      const F = X[0]!.length;
      if (rows.length <= F)
        throw new Error(
          `goal localiser: ${rows.length} ${family} episodes with a privileged goal, fewer than its ${F + 1} needed`,
        );
      const weights = Array.from({ length: XYZ }, (_, j) =>
        ridge(
          X,
          rows.map((r) => r.goal[j]!),
        ),
      );
      let squared = 0;
      rows.forEach((r, n) => {
        for (let j = 0; j < XYZ; j++) squared += (dotRow(weights[j]!, X[n]!) - r.goal[j]!) ** 2;
      });
      families[family] = { kinds, weights, rmse: Math.sqrt(squared / rows.length), episodes: rows.length };
    }
    return new GoalLocaliser({ latentDim, families });
  }

  static fromJSON(weights: GoalLocaliserWeights): GoalLocaliser {
    return new GoalLocaliser(weights);
  }

  toJSON(): GoalLocaliserWeights {
    return { latentDim: this.latentDim, families: { ...this.families } };
  }

  /** The goal of a task whose first frame the policy perceives as `latent`. */
  estimate(latent: ArrayLike<number>, task: { family: string; object: string }): [number, number, number] {
    const fit = this.families[task.family];
    if (!fit)
      throw new Error(
        `goal localiser: fitted on ${Object.keys(this.families).join(', ')}; ` +
          `it has no goal for family '${task.family}'`,
      );
    const x = features(latent, task.object, fit.kinds, this.latentDim);
    return [dotRow(fit.weights[0]!, x), dotRow(fit.weights[1]!, x), dotRow(fit.weights[2]!, x)];
  }
}

/** [1, z, (z_i z_j for i ≤ j, z_i³ when the latent is narrow), one-hot object kind]. */
function features(latent: ArrayLike<number>, kind: string, kinds: string[], width = latent.length): number[] {
  const z = Array.from({ length: width }, (_, i) => latent[i]!);
  const out = [1, ...z];
  if (width <= POLYNOMIAL_UP_TO) {
    for (let i = 0; i < width; i++) for (let j = i; j < width; j++) out.push(z[i]! * z[j]!);
    for (const v of z) out.push(v * v * v);
  }
  for (const k of kinds) out.push(k === kind ? 1 : 0);
  return out;
}

/** Ridge regression weights of y on the rows of X. */
function ridge(X: number[][], y: number[]): number[] {
  const F = X[0]!.length;
  const a = Array.from({ length: F }, () => new Float64Array(F));
  const b = new Float64Array(F);
  X.forEach((row, n) => {
    for (let i = 0; i < F; i++) {
      b[i]! += row[i]! * y[n]!;
      for (let j = 0; j < F; j++) a[i]![j]! += row[i]! * row[j]!;
    }
  });
  for (let i = 0; i < F; i++) a[i]![i]! += RIDGE * X.length;
  return solve(a, b);
}

const dotRow = (w: number[], x: number[]): number => w.reduce((s, v, i) => s + v * x[i]!, 0);
