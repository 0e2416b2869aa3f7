/**
 * Where a world point appears in a fixed camera's image, in the image coordinates the policy's
 * spatial attention uses: x to the right, y down, both in [-1, 1] across the frame. Cameras
 * follow the renderer's convention (look along -z with +y up); the world's up is +z.
 */
export interface FixedCamera {
  pos: readonly [number, number, number];
  lookAt: readonly [number, number, number];
  /** Vertical field of view, degrees (square images: the same horizontally). */
  fovy: number;
}

export type ImagePoint = [number, number];

export function projectToImage(camera: FixedCamera, point: ArrayLike<number>): ImagePoint {
  const forward = normalise(sub(camera.lookAt, camera.pos));
  const right = normalise(cross(forward, [0, 0, 1]));
  const up = cross(right, forward);
  const d = sub([point[0]!, point[1]!, point[2]!], camera.pos);
  const depth = dot(d, forward);
  if (!(depth > 0)) throw new Error(`point (${Array.from(point).join(', ')}) is behind the camera`);
  const scale = 1 / (depth * Math.tan((camera.fovy * Math.PI) / 360));
  return [dot(d, right) * scale, -dot(d, up) * scale];
}

type Vec3 = readonly [number, number, number];
const sub = (a: Vec3, b: Vec3): Vec3 => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const dot = (a: Vec3, b: Vec3): number => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const cross = (a: Vec3, b: Vec3): Vec3 => [
  a[1] * b[2] - a[2] * b[1],
  a[2] * b[0] - a[0] * b[2],
  a[0] * b[1] - a[1] * b[0],
];
function normalise(a: Vec3): Vec3 {
  const l = Math.hypot(a[0], a[1], a[2]);
  return [a[0] / l, a[1] / l, a[2] / l];
}
