/**
 * Random scene layouts for a task: where the target, the distractors and the goal zones go. The target object is
 * always objects[0]; in a family whose scene has a zone, zones[0] is the goal zone. The table region the push
 * distances and the goal zones were sized for vx300 and scale with the arm's reach (armReach.ts); objects and their
 * spacing keep their size, since they are the objects' own.
 */
import type { TaskSpec } from '../src/core/types.ts';
import type { Rng } from '../src/core/rng.ts';
import { familyDef } from '../src/tasks/families.ts';
import type { FamilyScene } from '../src/tasks/familyDef.ts';
import { TaskError } from '../src/tasks/taskError.ts';
import { COLOR_NAMES, OBJECT_KINDS, type ColorName, type ObjectKind } from '../src/tasks/vocabulary.ts';

export interface PlacedObject {
  kind: ObjectKind;
  color: ColorName;
  /** Position of the object's centre, resting on the table. */
  pos: [number, number, number];
  /** Rotation about the vertical axis, radians. */
  yaw: number;
}

export interface PlacedZone {
  color: ColorName;
  pos: [number, number];
  radius: number;
}

export interface SceneLayout {
  objects: PlacedObject[];
  zones: PlacedZone[];
}

/** Half-heights so that objects rest on the table (z = 0). */
export const OBJECT_HALF_HEIGHT: Record<ObjectKind, number> = { block: 0.02, ball: 0.022, cylinder: 0.03 };
/** A goal zone's radius at layout scale 1; zones scale with the layout (they are the table's marks, not objects). */
export const ZONE_RADIUS = 0.065;

export interface TableRegion {
  xMin: number;
  xMax: number;
  yMin: number;
  yMax: number;
}

/** Reachable, visible table region in front of vx300 (layout scale 1). */
const VX300_REGION: TableRegion = { xMin: 0.26, xMax: 0.5, yMin: -0.2, yMax: 0.2 };
/** Distance of a push's goal zone from the block at scale 1, m. */
const VX300_PUSH = { min: 0.12, max: 0.2 };
const MIN_SEPARATION = 0.1;
/** Distance from the second zone to the points placed before it, at scale 1. */
const ZONE_SEPARATION = 0.16;

/** A goal zone's radius at a layout scale. */
export function zoneRadius(scale: number): number {
  return ZONE_RADIUS * scale;
}

/** The table region for a layout scale (the arm's reach over vx300's). */
export function tableRegion(scale: number): TableRegion {
  const r = VX300_REGION;
  return { xMin: r.xMin * scale, xMax: r.xMax * scale, yMin: r.yMin * scale, yMax: r.yMax * scale };
}

/** The table region's centre and corners (x, y), named as seen from the arm's base looking along +x. */
export function regionPoints(region: TableRegion): { name: string; xy: [number, number] }[] {
  return [
    { name: 'centre', xy: [(region.xMin + region.xMax) / 2, (region.yMin + region.yMax) / 2] },
    { name: 'near left corner', xy: [region.xMin, region.yMax] },
    { name: 'near right corner', xy: [region.xMin, region.yMin] },
    { name: 'far left corner', xy: [region.xMax, region.yMax] },
    { name: 'far right corner', xy: [region.xMax, region.yMin] },
  ];
}

/** A layout for `task`; `scale` is the arm's layout scale (1 for vx300: the numbers it has always had). */
export function sampleLayout(task: TaskSpec, rng: Rng, scale = 1): SceneLayout {
  if (!(scale > 0)) throw new Error(`layout scale must be positive, got ${scale}`);
  const def = familyDef(task.family);
  const scene = def.scene;
  if (!scene || task.color === undefined || task.object === undefined) {
    throw new TaskError(
      `'${task.instruction}' (family ${def.name}, ${def.file}) has no scene the simulator can set up: ` +
        'run it on a robot',
    );
  }
  for (let attempt = 0; attempt < 1000; attempt++) {
    const layout = tryLayout(task, scene, rng, scale);
    if (layout) return layout;
  }
  throw new Error(
    `could not place the objects of '${task.instruction}' after 1000 attempts ` +
      `(layout scale ${scale}: the table region may be too small for the objects)`,
  );
}

function tryLayout(task: TaskSpec, scene: FamilyScene, rng: Rng, scale: number): SceneLayout | undefined {
  const region = tableRegion(scale);
  const points: [number, number][] = [];
  const place = (minDist = MIN_SEPARATION): [number, number] | undefined => {
    for (let i = 0; i < 50; i++) {
      const p: [number, number] = [rng.uniform(region.xMin, region.xMax), rng.uniform(region.yMin, region.yMax)];
      if (points.every((q) => Math.hypot(p[0] - q[0], p[1] - q[1]) >= minDist)) {
        points.push(p);
        return p;
      }
    }
    return undefined;
  };
  const targetKind = task.object as ObjectKind;
  const target = place();
  if (!target) return undefined;
  const zones: PlacedZone[] = [];
  if (scene.zone) {
    // The goal zone sits 0.12–0.2 m (at scale 1) from the block so every push is a real push.
    const dist = rng.uniform(VX300_PUSH.min * scale, VX300_PUSH.max * scale);
    const angle = rng.uniform(-Math.PI, Math.PI);
    const zp: [number, number] = [target[0] + dist * Math.cos(angle), target[1] + dist * Math.sin(angle)];
    if (zp[0] < region.xMin || zp[0] > region.xMax || zp[1] < region.yMin || zp[1] > region.yMax) return undefined;
    points.push(zp);
    const radius = zoneRadius(scale);
    zones.push({ color: task.zoneColor as ColorName, pos: zp, radius });
    const other = place(ZONE_SEPARATION * scale);
    if (!other) return undefined;
    zones.push({
      color: rng.pick(COLOR_NAMES.filter((c) => c !== task.zoneColor && c !== task.color)),
      pos: other,
      radius,
    });
  }
  const used = new Set<ColorName>([task.color as ColorName, ...zones.map((z) => z.color)]);
  const objects: PlacedObject[] = [object(targetKind, task.color as ColorName, target, rng)];
  for (let i = 0; i < scene.distractors; i++) {
    const p = place();
    if (!p) return undefined;
    // Every object and zone in a scene has its own colour: the colour word alone names the
    // target, which a camera at 32×32 pixels can see (shapes there are a few pixels).
    const color = rng.pick(COLOR_NAMES.filter((c) => !used.has(c)));
    used.add(color);
    objects.push(object(rng.pick(OBJECT_KINDS), color, p, rng));
  }
  return { objects, zones };
}

function object(kind: ObjectKind, color: ColorName, p: [number, number], rng: Rng): PlacedObject {
  return { kind, color, pos: [p[0], p[1], OBJECT_HALF_HEIGHT[kind]], yaw: rng.uniform(-Math.PI / 4, Math.PI / 4) };
}
