/**
 * Success predicates and dense progress in [0, 1] for each task family, computed from the
 * simulator's state. Progress is measured against the distances at the start of the episode.
 */
import { clamp01 } from '../src/core/clamp01.ts';
import type { TaskFamily } from '../src/tasks/families.ts';
import { OBJECT_HALF_HEIGHT, type SceneLayout } from './layout.ts';

/** What the predicates read from a scene. */
export interface TaskScene {
  endEffector(): { pos: ArrayLike<number> };
  objectPose(i: number): ArrayLike<number>;
  zonePosition(i: number): ArrayLike<number>;
}

export interface TaskStatus {
  progress: number;
  success: boolean;
}

/** Reach: the gripper point hovers this far above the object's top. */
export const REACH_HOVER = 0.04;
export const REACH_TOLERANCE = 0.04;
/** Push: the block's centre must be this far inside the zone's rim (the zone's radius scales with the arm). */
export const PUSH_RIM_MARGIN = 0.015;
/** Pick: lift of the block above its resting height. */
export const PICK_LIFT = 0.06;

export class TaskProgress {
  readonly family: TaskFamily;
  #layout: SceneLayout;
  #initial: number;

  constructor(family: TaskFamily, layout: SceneLayout, scene: TaskScene) {
    this.family = family;
    this.#layout = layout;
    this.#initial = Math.max(this.#distance(scene), 1e-6);
  }

  /** The goal point of the task (for observations): reach hover point, zone centre, lift point. */
  goal(scene: TaskScene): [number, number, number] {
    const o = scene.objectPose(0);
    const h = OBJECT_HALF_HEIGHT[this.#layout.objects[0]!.kind];
    if (this.family === 'push') {
      const z = scene.zonePosition(0);
      return [z[0]!, z[1]!, h];
    }
    if (this.family === 'reach') return [o[0]!, o[1]!, o[2]! + h + REACH_HOVER];
    const rest = this.#layout.objects[0]!.pos;
    return [rest[0], rest[1], rest[2] + PICK_LIFT + 0.02];
  }

  status(scene: TaskScene): TaskStatus {
    const d = this.#distance(scene);
    const closeness = clamp01(1 - d / this.#initial);
    switch (this.family) {
      case 'reach':
        return { progress: closeness, success: d < REACH_TOLERANCE };
      case 'push':
        return { progress: closeness, success: d < this.#layout.zones[0]!.radius - PUSH_RIM_MARGIN };
      case 'pick': {
        const lift = scene.objectPose(0)[2]! - this.#layout.objects[0]!.pos[2];
        const lifted = clamp01(lift / PICK_LIFT);
        return { progress: 0.5 * closeness + 0.5 * lifted, success: lift > PICK_LIFT };
      }
    }
  }

  /** Reach/pick: gripper to object (hover point for reach); push: block to zone centre (xy). */
  #distance(scene: TaskScene): number {
    const o = scene.objectPose(0);
    if (this.family === 'push') {
      const z = scene.zonePosition(0);
      return Math.hypot(o[0]! - z[0]!, o[1]! - z[1]!);
    }
    const ee = scene.endEffector().pos;
    const lift = this.family === 'reach' ? OBJECT_HALF_HEIGHT[this.#layout.objects[0]!.kind] + REACH_HOVER : 0;
    return Math.hypot(ee[0]! - o[0]!, ee[1]! - o[1]!, ee[2]! - (o[2]! + lift));
  }
}
