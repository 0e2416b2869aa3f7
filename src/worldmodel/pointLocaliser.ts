/**
 * A point of a task (world frame, metres), read from the policy's perception of an episode's first frame: one ridge
 * regression per task family, from the perception latent (the grounding heads' image positions of what the
 * instruction names) and the instructed object's kind, to the point. Keyframes (keyframes.ts) fit one per event, on
 * where successful demonstrations had their gripper then; at run time it needs only the camera frame.
 *
 * Why: whether a task succeeds is decided by a centimetre or two of gripper position against a point the first frame
 * shows. A score head that must work the point out of image positions ranks the policy's near misses at chance;
 * given the point relative to the gripper it ranks them (docs/worldmodel.md).
 */
import type { Episode } from '../core/types.ts';
import { ridge } from '../core/linearSolve.ts';

/** Coordinates estimated (x, y, z). */
const XYZ = 3;
/** Ridge penalty: the features are few and well spread; this only keeps a constant one-hot solvable. */
const RIDGE = 1e-4;
/** Latents up to this width get quadratic and cubic terms (a camera's projection is not linear). */
const POLYNOMIAL_UP_TO = 8;
/** A family gets the richest terms it has this many episodes a feature for (an arm's few demonstrations). */
const EPISODES_PER_FEATURE = 2;

/** One episode's point (world frame, metres). */
export type PointLabel = [number, number, number];

/**
 * The localiser's terms, richest first: the latent with its quadratic and cubic terms, the latent
 * (a plane), or none (each object kind's mean point: a constant for a handful of episodes).
 */
export type LocaliserTerms = 'cubic' | 'plane' | 'mean';
const TERMS: LocaliserTerms[] = ['cubic', 'plane', 'mean'];

/** One family's fit. */
export interface FamilyPointFit {
  /** Object kinds seen in its data, in feature order. */
  kinds: string[];
  /** XYZ rows of feature weights. */
  weights: number[][];
  /** Its terms: the richest its episodes allow. */
  terms: LocaliserTerms;
  /** Root-mean-square error over the fitting episodes, metres (in-sample). */
  rmse: number;
  episodes: number;
}

/** What a world-model checkpoint stores of a point localiser. */
export interface PointLocaliserWeights {
  latentDim: number;
  families: Record<string, FamilyPointFit>;
}

export class PointLocaliser {
  readonly latentDim: number;
  readonly families: Readonly<Record<string, FamilyPointFit>>;

  private constructor(weights: PointLocaliserWeights) {
    this.latentDim = weights.latentDim;
    this.families = weights.families;
  }

  /**
   * Fit on `perceived` (episodes whose state is the policy's perception latent, `latentDim` a step)
   * against `points`, each episode's point; episodes without one are left out, and a family needs more
   * episodes than features. `what` names the point in errors.
   */
  static fit(
    perceived: Episode[],
    points: (PointLabel | undefined)[],
    latentDim: number,
    what = 'point',
  ): PointLocaliser {
    if (perceived.length !== points.length)
      throw new Error(`${what} localiser: ${perceived.length} perceived episodes but ${points.length} points`);
    const byFamily = new Map<string, { latent: Float32Array; kind: string; point: number[] }[]>();
    perceived.forEach((e, i) => {
      const point = points[i];
      if (!point) return;
      if (e.stateDim < latentDim)
        throw new Error(
          `${what} localiser: episode ${e.id} has ${e.stateDim} state numbers, not a ${latentDim}-wide latent`,
        );
      const rows = byFamily.get(e.task.family) ?? [];
      rows.push({ latent: e.state.slice(0, latentDim), kind: e.task.object ?? '', point });
      byFamily.set(e.task.family, rows);
    });
    if (byFamily.size === 0) throw new Error(`${what} localiser: no episode shows where its ${what} was`);
    const families: Record<string, FamilyPointFit> = {};
    for (const [family, rows] of byFamily) {
      const kinds = [...new Set(rows.map((r) => r.kind))].sort();
      const usable = TERMS.filter((t) => t !== 'cubic' || latentDim <= POLYNOMIAL_UP_TO);
      const terms =
        usable.find((t) => rows.length >= EPISODES_PER_FEATURE * featureCount(latentDim, kinds, t)) ?? 'mean';
      const X = rows.map((r) => features(r.latent, r.kind, kinds, terms));
      const F = X[0]!.length;
      if (rows.length <= F)
        throw new Error(
          `${what} localiser: ${rows.length} ${family} episodes with a ${what}, fewer than the ${F + 1} ` +
            `its ${kinds.length} object kinds' mean ${what}s need`,
        );
      const weights = Array.from({ length: XYZ }, (_, j) =>
        ridge(
          X,
          rows.map((r) => r.point[j]!),
          RIDGE,
        ),
      );
      let squared = 0;
      rows.forEach((r, n) => {
        for (let j = 0; j < XYZ; j++) squared += (dotRow(weights[j]!, X[n]!) - r.point[j]!) ** 2;
      });
      const rmse = Math.sqrt(squared / rows.length);
      families[family] = { kinds, weights, terms, rmse, episodes: rows.length };
    }
    return new PointLocaliser({ latentDim, families });
  }

  static fromJSON(weights: PointLocaliserWeights): PointLocaliser {
    return new PointLocaliser(weights);
  }

  toJSON(): PointLocaliserWeights {
    return { latentDim: this.latentDim, families: { ...this.families } };
  }

  /** The point of a task whose first frame the policy perceives as `latent`. */
  estimate(latent: ArrayLike<number>, task: { family: string; object?: string }): [number, number, number] {
    const fit = this.families[task.family];
    if (!fit)
      throw new Error(
        `point localiser: fitted on ${Object.keys(this.families).join(', ')}; ` +
          `it has no point for family '${task.family}'`,
      );
    const terms = fit.terms;
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
