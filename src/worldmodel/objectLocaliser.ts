/**
 * Where the instructed object is at each step (world frame, metres), read from what the robot knows
 * then: the policy's perception of the frame (the grounding heads' image positions of what the
 * instruction names), the gripper's position (forward kinematics) and its finger opening. One ridge
 * regression per task family over those numbers' cubic terms and the object's kind, fitted on recorded
 * episodes where the caller knows the object (simulator demonstrations' privileged state); at run time it
 * needs only the camera frame and the joint states.
 *
 * Why: pick succeeds by a grasp and a lift. The world model's scene score head sees the perception, the
 * gripper and the goal but not the fingers, and the camera alone places a lifted block poorly; given the
 * block relative to the gripper and its lift, the head ranks pick's rollouts (docs/worldmodel.md). The
 * gripper and fingers carry the lift once the block is held (it rises with them), the image before.
 */
import type { Episode } from '../core/types.ts';
import { ridge } from '../core/linearSolve.ts';

/** Object coordinates estimated (x, y, z). */
const XYZ = 3;
/** Ridge penalty per frame: keeps the cubic terms' near-collinear directions and a constant one-hot solvable. */
const RIDGE = 1e-4;
/** Frames a feature a family needs for those terms (a few demonstrations do not fit 160 cubic terms). */
const FRAMES_PER_FEATURE = 4;
/** Every how many steps of an episode a frame is fitted on (neighbouring frames are nearly the same). */
const FRAME_STRIDE = 2;
/** Inputs up to this many get quadratic and cubic terms (a tiny policy's 4 image positions + the gripper's 4). */
const CUBIC_UP_TO = 10;

/** What the localiser reads at one step besides the perception latent: gripper xyz and finger opening. */
export interface GripperReading {
  xyz: ArrayLike<number>;
  finger: number;
}

/** One family's fit. */
export interface FamilyObjectFit {
  /** Object kinds seen in its data, in feature order. */
  kinds: string[];
  /** XYZ rows of feature weights. */
  weights: number[][];
  /** 'cubic': the inputs with their quadratic and cubic terms; 'plane': the inputs (a wide latent). */
  terms: 'cubic' | 'plane';
  /** Root-mean-square error per coordinate over the fitting frames, metres (in-sample). */
  rmse: number;
  frames: number;
  episodes: number;
}

/** What a world-model checkpoint stores of its object localiser. */
export interface ObjectLocaliserWeights {
  latentDim: number;
  families: Record<string, FamilyObjectFit>;
}

export class ObjectLocaliser {
  readonly latentDim: number;
  readonly families: Readonly<Record<string, FamilyObjectFit>>;

  private constructor(weights: ObjectLocaliserWeights) {
    this.latentDim = weights.latentDim;
    this.families = weights.families;
  }

  /**
   * Fit on `perceived` (the policy's perception latent, `latentDim` a step) against where each episode's object
   * was: `objectAt(i, t)`, episode i's at step t as recorded (undefined where it was not: such an episode is left
   * out); `gripper(i, t)` reads episode i's gripper at step t. A family needs enough frames.
   */
  static fit(
    perceived: Episode[],
    latentDim: number,
    objectAt: (episode: number, t: number) => ArrayLike<number> | undefined,
    gripper: (episode: number, t: number) => GripperReading,
  ): ObjectLocaliser {
    const byFamily = new Map<string, { inputs: number[]; kind: string; xyz: ArrayLike<number>; episode: number }[]>();
    perceived.forEach((e, i) => {
      if (!objectAt(i, e.steps)) return;
      if (e.stateDim < latentDim)
        throw new Error(
          `object localiser: episode ${e.id} has ${e.stateDim} state numbers, not a ${latentDim}-wide latent`,
        );
      const rows = byFamily.get(e.task.family) ?? [];
      for (let t = 0; t <= e.steps; t += FRAME_STRIDE)
        rows.push({
          inputs: inputsAt(e, t, latentDim, gripper(i, t)),
          kind: e.task.object ?? '',
          xyz: objectAt(i, t)!,
          episode: i,
        });
      byFamily.set(e.task.family, rows);
    });
    if (byFamily.size === 0)
      throw new Error(
        'object localiser: no episode records where its object was (the privileged state of simulator ' +
          'demonstrations): collect some with `wmrl collect`, or leave worldModel.object at none',
      );
    const families: Record<string, FamilyObjectFit> = {};
    for (const [family, rows] of byFamily) {
      const kinds = [...new Set(rows.map((r) => r.kind))].sort();
      const width = rows[0]!.inputs.length;
      // The richest terms the frames support: a handful of episodes gets the plane.
      const terms =
        width <= CUBIC_UP_TO && rows.length >= FRAMES_PER_FEATURE * featureCount(width, kinds, 'cubic')
          ? 'cubic'
          : 'plane';
      const X = rows.map((r) => features(r.inputs, r.kind, kinds, terms));
      const F = X[0]!.length;
      if (rows.length < FRAMES_PER_FEATURE * F)
        throw new Error(
          `object localiser: ${rows.length} ${family} frames with the object recorded (every ${FRAME_STRIDE}nd ` +
            `step), fewer than the ${FRAMES_PER_FEATURE * F} its ${F} terms need`,
        );
      const weights = Array.from({ length: XYZ }, (_, j) =>
        ridge(
          X,
          rows.map((r) => r.xyz[j]!),
          RIDGE,
        ),
      );
      let squared = 0;
      rows.forEach((r, n) => {
        for (let j = 0; j < XYZ; j++) squared += (dot(weights[j]!, X[n]!) - r.xyz[j]!) ** 2;
      });
      const rmse = Math.sqrt(squared / (XYZ * rows.length));
      families[family] = {
        kinds,
        weights,
        terms,
        rmse,
        frames: rows.length,
        episodes: new Set(rows.map((r) => r.episode)).size,
      };
    }
    return new ObjectLocaliser({ latentDim, families });
  }

  static fromJSON(weights: ObjectLocaliserWeights): ObjectLocaliser {
    return new ObjectLocaliser(weights);
  }

  toJSON(): ObjectLocaliserWeights {
    return { latentDim: this.latentDim, families: { ...this.families } };
  }

  /** The object's position at step t of `perceived` (its state the perception latent), the gripper then `at`. */
  estimate(perceived: Episode, t: number, at: GripperReading): [number, number, number] {
    const fit = this.families[perceived.task.family];
    if (!fit)
      throw new Error(
        `object localiser: fitted on ${Object.keys(this.families).join(', ')}; ` +
          `it has no object for family '${perceived.task.family}'`,
      );
    const x = features(inputsAt(perceived, t, this.latentDim, at), perceived.task.object ?? '', fit.kinds, fit.terms);
    return [dot(fit.weights[0]!, x), dot(fit.weights[1]!, x), dot(fit.weights[2]!, x)];
  }
}

/** [latent at t, gripper xyz, finger]. */
function inputsAt(perceived: Episode, t: number, latentDim: number, at: GripperReading): number[] {
  const Z = perceived.stateDim;
  const latent = perceived.state.subarray(t * Z, t * Z + latentDim);
  return [...latent, at.xyz[0]!, at.xyz[1]!, at.xyz[2]!, at.finger];
}

/** [1, z, (cubic: every z_i z_j for i ≤ j, every z_i z_j z_k for i ≤ j ≤ k), one-hot object kind]. */
function features(z: number[], kind: string, kinds: string[], terms: 'cubic' | 'plane'): number[] {
  const out = [1, ...z];
  const n = terms === 'cubic' ? z.length : 0;
  for (let i = 0; i < n; i++) for (let j = i; j < n; j++) out.push(z[i]! * z[j]!);
  for (let i = 0; i < n; i++) for (let j = i; j < n; j++) for (let k = j; k < n; k++) out.push(z[i]! * z[j]! * z[k]!);
  for (const k of kinds) out.push(k === kind ? 1 : 0);
  return out;
}

/** How many features `features` makes of `width` inputs. */
const featureCount = (width: number, kinds: string[], terms: 'cubic' | 'plane'): number =>
  1 +
  width +
  (terms === 'cubic' ? (width * (width + 1)) / 2 + (width * (width + 1) * (width + 2)) / 6 : 0) +
  kinds.length;

const dot = (w: number[], x: number[]): number => w.reduce((s, v, i) => s + v * x[i]!, 0);
