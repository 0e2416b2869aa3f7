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
}

/** Control ticks in an episode of `family` at `controlHz`. */
export function episodeTicks(family: FamilyDef, controlHz: number): number {
  return Math.round(family.seconds * controlHz);
}
