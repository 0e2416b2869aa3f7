/**
 * What a world-fixed camera (robot.yaml `pos` and `lookAt`) sees of the table: whether the table region's corners
 * and centre project inside its image, and a pose that sees them when they do not. MuJoCo's camera convention: it
 * looks along its −z axis, y up, x to the right (sceneBuilder.ts's lookAtXyAxes gives x and y).
 */
import { regionPoints, type TableRegion } from './layout.ts';
import { lookAtXyAxes } from './sceneBuilder.ts';

export interface FixedCamera {
  pos: readonly number[];
  lookAt: readonly number[];
  /** Vertical field of view, degrees. */
  fovy: number;
  width: number;
  height: number;
}

export interface Projection {
  /** Image coordinates in [-1, 1] across the width and the height (0 the centre, +v up); NaN behind the camera. */
  u: number;
  v: number;
  inside: boolean;
}

/** Where a world point lands in the camera's image. */
export function project(camera: FixedCamera, point: readonly number[]): Projection {
  const xy = lookAtXyAxes(camera.pos, camera.lookAt);
  const x = xy.slice(0, 3);
  const y = xy.slice(3, 6);
  const z = cross(x, y);
  const d = [point[0]! - camera.pos[0]!, point[1]! - camera.pos[1]!, point[2]! - camera.pos[2]!];
  const depth = -dot(d, z);
  if (depth <= 1e-9) return { u: Number.NaN, v: Number.NaN, inside: false };
  const tanY = Math.tan((camera.fovy * Math.PI) / 360);
  const tanX = (tanY * camera.width) / camera.height;
  const u = dot(d, x) / depth / tanX;
  const v = dot(d, y) / depth / tanY;
  return { u, v, inside: Math.abs(u) <= 1 && Math.abs(v) <= 1 };
}

/** The table region's corners and centre (on the table) that the camera does not see; empty when it sees them all. */
export function unseenTablePoints(camera: FixedCamera, region: TableRegion): string[] {
  return regionPoints(region)
    .filter((p) => !project(camera, [p.xy[0], p.xy[1], 0]).inside)
    .map((p) => p.name);
}

/** vx300's scene camera, which the layout (scale 1) was made to be seen by. */
const VX300_CAMERA = { pos: [0.78, 0, 0.5], lookAt: [0.32, 0, 0] } as const;

/**
 * A pose for this camera (its own field of view and image size) that sees the whole table region: vx300's scene
 * camera scaled by the layout scale, moved back along its line of sight until every point is in view.
 */
export function proposeCameraPose(
  camera: FixedCamera,
  region: TableRegion,
  scale: number,
): { pos: [number, number, number]; lookAt: [number, number, number] } {
  const lookAt = VX300_CAMERA.lookAt.map((v) => round(v * scale)) as [number, number, number];
  const base = VX300_CAMERA.pos.map((v) => v * scale);
  let pos = base.map(round) as [number, number, number];
  for (let k = 1; k <= 4; k += 0.05) {
    pos = base.map((v, i) => round(lookAt[i]! + k * (v - lookAt[i]!))) as [number, number, number];
    if (unseenTablePoints({ ...camera, pos, lookAt }, region).length === 0) break;
  }
  return { pos, lookAt };
}

function round(v: number): number {
  return +v.toFixed(3);
}

function cross(a: readonly number[], b: readonly number[]): number[] {
  return [a[1]! * b[2]! - a[2]! * b[1]!, a[2]! * b[0]! - a[0]! * b[2]!, a[0]! * b[1]! - a[1]! * b[0]!];
}

function dot(a: readonly number[], b: readonly number[]): number {
  return a[0]! * b[0]! + a[1]! * b[1]! + a[2]! * b[2]!;
}
