/**
 * A family's success condition, dense progress in [0, 1] and goal point, as its file declares them
 * (src/tasks/familyDef.ts), evaluated on the simulator's state. Progress terms that bring two points closer are
 * measured against their distance when the episode began.
 */
import { clamp01 } from '../src/core/clamp01.ts';
import type { Axes, FamilyDef, FamilyScene, ScenePoint } from '../src/tasks/familyDef.ts';
import { TaskError } from '../src/tasks/taskError.ts';
import { OBJECT_HALF_HEIGHT, type SceneLayout } from './layout.ts';

/** What the conditions read from a scene. */
export interface TaskScene {
  endEffector(): { pos: ArrayLike<number> };
  objectPose(i: number): ArrayLike<number>;
  zonePosition(i: number): ArrayLike<number>;
  /** A site or body of the robot's model, world position. */
  namedPosition(kind: 'site' | 'body', name: string): ArrayLike<number>;
  /** Simulated seconds since the scene was loaded. */
  readonly time: number;
}

export interface TaskStatus {
  progress: number;
  success: boolean;
}

type Vec3 = [number, number, number];

export class TaskProgress {
  readonly family: string;
  #scene: FamilyScene;
  #layout: SceneLayout;
  /** Each progress term's distance at the start (closer terms; 0 for the others). */
  #initial: number[];
  /** Simulated time since which every condition has held, or undefined. */
  #holdingSince: number | undefined;

  constructor(family: FamilyDef, layout: SceneLayout, scene: TaskScene) {
    if (!family.scene) {
      throw new TaskError(
        `task family '${family.name}' (${family.file}) declares no scene: the simulator cannot set it up; ` +
          'run it on a robot',
      );
    }
    this.family = family.name;
    this.#scene = family.scene;
    this.#layout = layout;
    this.#initial = this.#scene.progress.map((t) =>
      'closer' in t ? Math.max(this.#distance(scene, t.closer[0], t.closer[1], t.axes), 1e-6) : 0,
    );
  }

  /** The goal point of the task (for observations). */
  goal(scene: TaskScene): Vec3 {
    return this.#point(scene, this.#scene.goal);
  }

  status(scene: TaskScene): TaskStatus {
    let progress = 0;
    this.#scene.progress.forEach((t, i) => {
      if ('closer' in t)
        progress += t.weight * clamp01(1 - this.#distance(scene, t.closer[0], t.closer[1], t.axes) / this.#initial[i]!);
      else progress += t.weight * clamp01(this.#rise(scene, t.rise[0], t.rise[1]) / t.to);
    });
    const holds = this.#scene.success.all.every((c) => {
      if ('near' in c) return this.#distance(scene, c.near[0], c.near[1], c.axes) < c.within;
      if ('above' in c) return this.#rise(scene, c.above[0], c.above[1]) > c.by;
      const zone = this.#layout.zones[0]!;
      const p = this.#point(scene, c.inside[0]);
      const z = scene.zonePosition(0);
      return Math.hypot(p[0] - z[0]!, p[1] - z[1]!) < zone.radius - c.margin;
    });
    const hold = this.#scene.success.hold;
    if (!holds) this.#holdingSince = undefined;
    else this.#holdingSince ??= scene.time;
    const success = holds && (hold === 0 || scene.time - this.#holdingSince! >= hold - 1e-9);
    return { progress, success };
  }

  #distance(scene: TaskScene, a: ScenePoint, b: ScenePoint, axes: Axes): number {
    const p = this.#point(scene, a);
    const q = this.#point(scene, b);
    return axes === 'xy' ? Math.hypot(p[0] - q[0], p[1] - q[1]) : Math.hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]);
  }

  #rise(scene: TaskScene, a: ScenePoint, b: ScenePoint): number {
    return this.#point(scene, a)[2] - this.#point(scene, b)[2];
  }

  /** A declared point, world coordinates: its base, plus the offsets summed first (the top's half-height too). */
  #point(scene: TaskScene, p: ScenePoint): Vec3 {
    const target = this.#layout.objects[0]!;
    const half = OBJECT_HALF_HEIGHT[target.kind];
    let base: ArrayLike<number>;
    let up = 0;
    if (p.at === 'gripper') base = scene.endEffector().pos;
    else if (p.at === 'target') base = scene.objectPose(0);
    else if (p.at === 'target.top') {
      base = scene.objectPose(0);
      up = half;
    } else if (p.at === 'target.start') base = target.pos;
    else if (p.at === 'zone') {
      const z = scene.zonePosition(0);
      base = [z[0]!, z[1]!, half];
    } else {
      const [kind, name] = p.at.split(':') as ['site' | 'body', string];
      base = scene.namedPosition(kind, name);
    }
    const [dx, dy, dz] = p.offset;
    return [dx === 0 ? base[0]! : base[0]! + dx, dy === 0 ? base[1]! : base[1]! + dy, base[2]! + (up + dz)];
  }
}
