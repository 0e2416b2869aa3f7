/**
 * Where the task's goal is (world frame, metres), read from the policy's perception of an episode's
 * first frame: one ridge regression per task family, from the perception latent (the grounding heads'
 * image positions of what the instruction names) and the instructed object's kind, to the goal. It is
 * fitted on recorded episodes whose goal is known (src/rl/corrections/goalLabels.ts: the simulator's state, or where a
 * successful demonstration's gripper ended); it then needs only the camera frame.
 *
 * Why: whether a reach succeeds is decided by a centimetre or two of gripper position against the
 * goal. A scene score head that must work the goal out of image positions ranks the policy's near
 * misses at chance; given the goal relative to the gripper it ranks them, about as well as with the
 * simulator's true goal (docs/worldmodel.md).
 */
import type { Episode } from '../core/types.ts';
import { ridge } from '../core/linearSolve.ts';

/** Goal coordinates estimated (x, y, z). */
const XYZ = 3;
/** Ridge penalty: the features are few and well spread; this only keeps a constant one-hot solvable. */
const RIDGE = 1e-4;
/** Latents up to this width get quadratic and cubic terms (a camera's projection is not linear). */
const POLYNOMIAL_UP_TO = 8;
/** A family gets the richest terms it has this many episodes a feature for (an arm's few demonstrations). */
const EPISODES_PER_FEATURE = 2;

/**
 * The localiser's terms, richest first: the latent with its quadratic and cubic terms, the latent
 * (a plane), or none (each object kind's mean goal: a constant for a handful of episodes).
 */

/** One episode's goal (world frame, metres), and where it was read: its recorded state, or its gripper. */
export interface GoalLabel {
  xyz: [number, number, number];
  from: 'state' | 'gripper';
}

export type LocaliserTerms = 'cubic' | 'plane' | 'mean';
const TERMS: LocaliserTerms[] = ['cubic', 'plane', 'mean'];

/** One family's fit. */
export interface FamilyGoalFit {
  /** Object kinds seen in its data, in feature order. */
  kinds: string[];
  /** XYZ rows of feature weights. */
  weights: number[][];
  /** Its terms (absent: fitted before this was kept, cubic for a latent up to POLYNOMIAL_UP_TO wide). */
  terms?: LocaliserTerms;
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
   * against `goals`, each episode's goal (src/rl/corrections/goalLabels.ts); episodes without one are left out, and a
   * family needs more episodes than features.
   */
  static fit(perceived: Episode[], goals: (GoalLabel | undefined)[], latentDim: number): GoalLocaliser {
    if (perceived.length !== goals.length)
      throw new Error(`goal localiser: ${perceived.length} perceived episodes but ${goals.length} goals`);
    const byFamily = new Map<string, { latent: Float32Array; kind: string; goal: number[] }[]>();
    perceived.forEach((e, i) => {
      const goal = goals[i];
      if (!goal) return;
      if (e.stateDim < latentDim)
        throw new Error(
          `goal localiser: episode ${e.id} has ${e.stateDim} state numbers, not a ${latentDim}-wide latent`,
        );
      const rows = byFamily.get(e.task.family) ?? [];
      rows.push({ latent: e.state.slice(0, latentDim), kind: e.task.object ?? '', goal: goal.xyz });
      byFamily.set(e.task.family, rows);
    });
    if (byFamily.size === 0)
      throw new Error(
        'goal localiser: no episode shows where its goal was (worldModel.goalFrom): simulator demonstrations ' +
          'record it in their state, a successful demonstration shows it where its gripper ended; these do neither',
      );
    const families: Record<string, FamilyGoalFit> = {};
    for (const [family, rows] of byFamily) {
      const kinds = [...new Set(rows.map((r) => r.kind))].sort();
      const usable = TERMS.filter((t) => t !== 'cubic' || latentDim <= POLYNOMIAL_UP_TO);
      const terms =
        usable.find((t) => rows.length >= EPISODES_PER_FEATURE * featureCount(latentDim, kinds, t)) ?? 'mean';
      const X = rows.map((r) => features(r.latent, r.kind, kinds, terms));
      const F = X[0]!.length;
      if (rows.length <= F)
        throw new Error(
          `goal localiser: ${rows.length} ${family} episodes with a goal, fewer than the ${F + 1} ` +
            `its ${kinds.length} object kinds' mean goals need`,
        );
      const weights = Array.from({ length: XYZ }, (_, j) =>
        ridge(
          X,
          rows.map((r) => r.goal[j]!),
          RIDGE,
        ),
      );
      let squared = 0;
      rows.forEach((r, n) => {
        for (let j = 0; j < XYZ; j++) squared += (dotRow(weights[j]!, X[n]!) - r.goal[j]!) ** 2;
      });
      const rmse = Math.sqrt(squared / rows.length);
      families[family] = { kinds, weights, terms, rmse, episodes: rows.length };
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
  estimate(latent: ArrayLike<number>, task: { family: string; object?: string }): [number, number, number] {
    const fit = this.families[task.family];
    if (!fit)
      throw new Error(
        `goal localiser: fitted on ${Object.keys(this.families).join(', ')}; ` +
          `it has no goal for family '${task.family}'`,
      );
    // Fits saved before `terms` was kept were cubic whenever the latent was narrow.
    const terms = fit.terms ?? (this.latentDim <= POLYNOMIAL_UP_TO ? 'cubic' : 'plane');
    const x = features(
      Array.from({ length: this.latentDim }, (_, i) => latent[i]!),
      task.object ?? '',
      fit.kinds,
      terms,
    );
    return [dotRow(fit.weights[0]!, x), dotRow(fit.weights[1]!, x), dotRow(fit.weights[2]!, x)];
  }
}

/** [1, (plane: z; cubic: z, z_i z_j for i ≤ j, z_i³), one-hot object kind]. */
function features(latent: ArrayLike<number>, kind: string, kinds: string[], terms: LocaliserTerms): number[] {
  const z = terms === 'mean' ? [] : Array.from(latent);
  const out = [1, ...z];
  if (terms === 'cubic') {
    for (let i = 0; i < z.length; i++) for (let j = i; j < z.length; j++) out.push(z[i]! * z[j]!);
    for (const v of z) out.push(v * v * v);
  }
  for (const k of kinds) out.push(k === kind ? 1 : 0);
  return out;
}

/** How many features `features` makes. */
const featureCount = (width: number, kinds: string[], terms: LocaliserTerms): number =>
  1 + (terms === 'mean' ? 0 : width) + (terms === 'cubic' ? (width * (width + 1)) / 2 + width : 0) + kinds.length;

const dotRow = (w: number[], x: number[]): number => w.reduce((s, v, i) => s + v * x[i]!, 0);
