/**
 * What a task family is: a file (configs/tasks/<family>.yaml for the built-in ones, any YAML a user gives with
 * `--task-file`, or `tasks/` beside a robot description or in a dataset; familyFile.ts reads them). A family says its
 * instructions and how their train/test split is drawn, its episode length in seconds, and, when the simulator can
 * set it up, its scene: the objects it needs, the scripted expert that demonstrates it, and its success condition,
 * progress and goal declared over named points of the scene. The registry (families.ts) lists them; the generic
 * method asks it by name and never branches on one.
 */
import type { ColorName, ObjectKind } from './vocabulary.ts';

/**
 * Features a world model told the instructed object (worldModel.object) ends its state with: the object minus the
 * gripper (xyz, metres), then the object's lift above where it stood at the start (metres).
 */
export const OBJECT_FEATURES = 4;

/**
 * A family's own score of rollouts, from their states and actions (imagined, or recorded in the world model's
 * layout). It reads the object features, the state's last OBJECT_FEATURES numbers, so it needs a world model told
 * the object.
 */
export interface FamilyScoreRule {
  needs: 'object';
  /**
   * Per step t (horizon × rows) each row's score as of the state after it. `states` (horizon + 1) × rows × D,
   * `actions` horizon × rows × A, step-major.
   */
  perStep(
    states: Float32Array,
    actions: Float32Array,
    horizon: number,
    rows: number,
    D: number,
    A: number,
  ): Float32Array;
  /** One recorded episode's score as of step `end` (its states and actions step-major, D and A wide). */
  at(states: Float32Array, actions: Float32Array, end: number, D: number, A: number): number;
}

/**
 * A point of the scene: `gripper` (the robot's end-effector site), `target` (the instructed object's centre),
 * `target.top` (the centre of its top face), `target.start` (where its centre stood when the episode began), `zone`
 * (the instructed goal zone's centre, at the height the target's centre rests at), `site:NAME` or `body:NAME` (a
 * site or body of the robot's model), plus an offset in metres (world axes).
 */
export interface ScenePoint {
  at: string;
  offset: readonly [number, number, number];
}

/** Distances over all three axes, or over the table's plane only. */
export type Axes = 'xyz' | 'xy';

/** One part of a success condition; every one must hold at once. */
export type SuccessCondition =
  /** The two points are closer than `within` metres. */
  | { near: readonly [ScenePoint, ScenePoint]; within: number; axes: Axes }
  /** The point lies inside the zone's disc (table plane), at least `margin` metres in from its rim. */
  | { inside: readonly [ScenePoint, 'zone']; margin: number }
  /** The first point is more than `by` metres above the second. */
  | { above: readonly [ScenePoint, ScenePoint]; by: number };

/** One term of the dense progress in [0, 1] (terms are summed by weight; the weights sum to 1). */
export type ProgressTerm =
  /** 1 − distance / the distance when the episode began, clamped to [0, 1]. */
  | { closer: readonly [ScenePoint, ScenePoint]; axes: Axes; weight: number }
  /** How far the first point has risen above the second, over `to` metres, clamped to [0, 1]. */
  | { rise: readonly [ScenePoint, ScenePoint]; to: number; weight: number };

/** What the simulator sets up for a family, and how it tells success. */
export interface FamilyScene {
  /** Object kinds the target may be (`{object}`). */
  objects: readonly ObjectKind[];
  /**
   * Whether the scene has a goal zone (zones[0], of the colour `{zone}` names, or of a colour drawn when the
   * instructions leave it unnamed: "put it in the box") and one more zone.
   */
  zone: boolean;
  /** Objects beside the target, each of its own colour. */
  distractors: number;
  /** The scripted expert that demonstrates it (sim/experts/planners.ts), if one does. */
  expert?: string;
  /** The point the privileged state reports as the goal. */
  goal: ScenePoint;
  success: { all: readonly SuccessCondition[]; hold: number };
  progress: readonly ProgressTerm[];
}

export interface FamilyDef {
  name: string;
  /** The file it was read from. */
  file: string;
  /** Templates (`{color}`, `{object}`, `{zone}` are filled in) or fixed texts (none of those). */
  templates: readonly string[];
  /** Target colours whose every instruction is test-only. */
  heldOutColors: readonly ColorName[];
  /** Templates (indices) that are test-only for every colour. */
  heldOutTemplates: readonly number[];
  /** Episode length. */
  seconds: number;
  /** What the simulator sets up; absent for a family only a robot (or a recorded dataset) does. */
  scene?: FamilyScene;
  /** Score rules of its own, by the name a training config gives (`score: <name>`; familyScoreRules.ts). */
  scores: readonly string[];
}

/** Control ticks in an episode of `family` at `controlHz`. */
export function episodeTicks(family: FamilyDef, controlHz: number): number {
  return Math.round(family.seconds * controlHz);
}
