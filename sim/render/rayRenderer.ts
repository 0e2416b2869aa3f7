/**
 * Deterministic CPU ray-caster for MuJoCo scenes: primitive geoms, and mesh geoms through a
 * per-mesh bounding-volume hierarchy (meshBvh.ts) with flat-shaded triangles.
 *
 * - No GPU / OpenGL: plain Float64Array math, one core.
 * - Per geom, the bounding sphere is projected to a screen-space rectangle and
 *   only the primary rays inside it are tested against the primitive (in the
 *   geom's local frame). Nearest hit wins (ties: lower geom index wins).
 * - Shading: ambient + a directional key light (Lambert, optional hard shadows)
 *   + a weak headlight (Lambert w.r.t. the view direction). Rays that hit
 *   nothing get the background colour.
 * - All working memory is preallocated per renderer instance (per-geom buffers
 *   grow only when a scene with more geoms than ever before is rendered).
 *
 * Conventions follow MuJoCo: geom_xmat / cam_xmat are row-major 3x3, world =
 * R * local; a camera looks along its local -z with +x right and +y up; fovy
 * is the vertical field of view in degrees.
 */
import type { MeshBvh } from './meshBvh.ts';

export const GEOM_PLANE = 0;
export const GEOM_HFIELD = 1;
export const GEOM_SPHERE = 2;
export const GEOM_CAPSULE = 3;
export const GEOM_ELLIPSOID = 4;
export const GEOM_CYLINDER = 5;
export const GEOM_BOX = 6;
export const GEOM_MESH = 7;

/** Views straight from MuJoCo model/data, MuJoCo conventions. */
export interface SceneGeoms {
  ngeom: number;
  /** mjtGeom: 0 plane, 2 sphere, 3 capsule, 4 ellipsoid, 5 cylinder, 6 box, 7 mesh (others are skipped). */
  type: Int32Array | ArrayLike<number>;
  /** ngeom*3, MuJoCo geom_size. Plane: [halfX, halfY] with 0 = infinite in that direction. */
  size: ArrayLike<number>;
  /** ngeom*3 world positions (data.geom_xpos). */
  xpos: ArrayLike<number>;
  /** ngeom*9 row-major rotation, world = R * local (data.geom_xmat). */
  xmat: ArrayLike<number>;
  /** ngeom*4 in [0,1]; alpha 0 means invisible. Alpha > 0 is rendered opaque. */
  rgba: ArrayLike<number>;
  /** Optional per-geom 0/1 mask; 0 hides the geom (also from shadows). */
  visible?: ArrayLike<number> | undefined;
  /** Per geom, its mesh id (MuJoCo geom_dataid); read for mesh geoms. */
  dataid?: ArrayLike<number> | undefined;
  /** The model's meshes by id, in the frame MuJoCo poses mesh geoms in; mesh geoms are skipped without them. */
  meshes?: readonly MeshBvh[] | undefined;
}

export interface CameraPose {
  pos: ArrayLike<number>;
  /** Row-major 3x3; columns are the camera x (right), y (up), z (backwards) axes in world. */
  mat: ArrayLike<number>;
  /** Vertical field of view in degrees. */
  fovy: number;
}

export interface RayRendererOptions {
  width: number;
  height: number;
  /** Hard shadows from the key light. Default true. */
  shadows?: boolean;
  /** Background / sky colour, RGB in [0,1]. Default [0.70, 0.78, 0.86]. */
  background?: readonly [number, number, number];
  /** Ambient term. Default 0.55. */
  ambient?: number;
  /** Key light intensity (Lambert, shadowed). Default 0.35. */
  keyIntensity?: number;
  /** Direction from the scene TOWARDS the key light, world frame (normalised internally). Default (0.3, -0.2, 1). */
  keyDirection?: readonly [number, number, number];
  /** Headlight intensity (Lambert w.r.t. the viewing ray, never shadowed). Default 0.10. */
  headlight?: number;
  /** Near clipping distance along the camera -z axis, metres. Default 0.01. */
  near?: number;
  /** Far clipping distance, metres. Default Infinity. */
  far?: number;
  /**
   * Screen-rectangle culling of primary rays and light-space binning of
   * shadow casters (default true; false = brute force, for testing).
   */
  cull?: boolean;
}

const SHADOW_GRID = 16; // light-space binning grid for shadow casters (SHADOW_GRID^2 cells)
const SHADOW_OFFSET = 1e-4; // metres along the normal before casting the shadow ray
const SHADOW_TMIN = 1e-6;
const PAR_EPS = 1e-18;

/**
 * Intersection routines take their inputs from RAY and write the result to HIT instead of
 * taking/returning plain numbers: V8 boxes double arguments and return values of calls it
 * does not inline (the larger routines), which would allocate per ray.
 * RAY = [ox, oy, oz, dx, dy, dz, tmin, s0, s1, s2]: ray origin and direction in the geom's
 * (intersection-space) frame, minimum accepted t, and the primitive's size parameters.
 * HIT[0] = smallest surface hit t >= tmin (in units of |d|), or Infinity.
 */
const RAY = new Float64Array(10);
const HIT = new Float64Array(1);
/** HIT_TRI[0] = the triangle (BVH order) of a mesh hit. */
const HIT_TRI = new Int32Array(1);
/** BVH traversal stack, grown for deeper trees. */
let STACK = new Int32Array(64);
/** Shadow-ray origin (world) handed to RayRenderer.occluded. */
const PT = new Float64Array(3);

/** Sphere of radius r (RAY[7]) at the origin. */
function hitSphere(): void {
  const ox = RAY[0]!,
    oy = RAY[1]!,
    oz = RAY[2]!,
    dx = RAY[3]!,
    dy = RAY[4]!,
    dz = RAY[5]!,
    tmin = RAY[6]!;
  const r = RAY[7]!;
  const a = dx * dx + dy * dy + dz * dz;
  const b = ox * dx + oy * dy + oz * dz;
  const c = ox * ox + oy * oy + oz * oz - r * r;
  const disc = b * b - a * c;
  if (disc < 0 || a <= PAR_EPS) {
    HIT[0] = Infinity;
    return;
  }
  const s = Math.sqrt(disc);
  const t0 = (-b - s) / a;
  if (t0 >= tmin) {
    HIT[0] = t0;
    return;
  }
  const t1 = (-b + s) / a;
  HIT[0] = t1 >= tmin ? t1 : Infinity;
}

/** Axis-aligned box with half-extents (sx, sy, sz) centred at the origin. */
function hitBox(): void {
  const ox = RAY[0]!,
    oy = RAY[1]!,
    oz = RAY[2]!,
    dx = RAY[3]!,
    dy = RAY[4]!,
    dz = RAY[5]!,
    tmin = RAY[6]!;
  const sx = RAY[7]!,
    sy = RAY[8]!,
    sz = RAY[9]!;
  let tn = -Infinity;
  let tf = Infinity;
  if (dx !== 0) {
    const inv = 1 / dx;
    let t1 = (-sx - ox) * inv;
    let t2 = (sx - ox) * inv;
    if (t1 > t2) {
      const s = t1;
      t1 = t2;
      t2 = s;
    }
    if (t1 > tn) tn = t1;
    if (t2 < tf) tf = t2;
  } else if (ox < -sx || ox > sx) {
    HIT[0] = Infinity;
    return;
  }
  if (dy !== 0) {
    const inv = 1 / dy;
    let t1 = (-sy - oy) * inv;
    let t2 = (sy - oy) * inv;
    if (t1 > t2) {
      const s = t1;
      t1 = t2;
      t2 = s;
    }
    if (t1 > tn) tn = t1;
    if (t2 < tf) tf = t2;
    if (tn > tf) {
      HIT[0] = Infinity;
      return;
    }
  } else if (oy < -sy || oy > sy) {
    HIT[0] = Infinity;
    return;
  }
  if (dz !== 0) {
    const inv = 1 / dz;
    let t1 = (-sz - oz) * inv;
    let t2 = (sz - oz) * inv;
    if (t1 > t2) {
      const s = t1;
      t1 = t2;
      t2 = s;
    }
    if (t1 > tn) tn = t1;
    if (t2 < tf) tf = t2;
  } else if (oz < -sz || oz > sz) {
    HIT[0] = Infinity;
    return;
  }
  if (tn > tf) {
    HIT[0] = Infinity;
    return;
  }
  if (tn >= tmin) {
    HIT[0] = tn;
    return;
  }
  HIT[0] = tf >= tmin ? tf : Infinity;
}

/** Solid cylinder of radius r around local z, |z| <= h. */
function hitCylinder(): void {
  const ox = RAY[0]!,
    oy = RAY[1]!,
    oz = RAY[2]!,
    dx = RAY[3]!,
    dy = RAY[4]!,
    dz = RAY[5]!,
    tmin = RAY[6]!;
  const r = RAY[7]!,
    h = RAY[8]!;
  let tn = -Infinity;
  let tf = Infinity;
  const a = dx * dx + dy * dy;
  const c = ox * ox + oy * oy - r * r;
  if (a > PAR_EPS) {
    const b = ox * dx + oy * dy;
    const disc = b * b - a * c;
    if (disc < 0) {
      HIT[0] = Infinity;
      return;
    }
    const s = Math.sqrt(disc);
    tn = (-b - s) / a;
    tf = (-b + s) / a;
  } else if (c > 0) {
    HIT[0] = Infinity;
    return;
  }
  if (dz !== 0) {
    const inv = 1 / dz;
    let t1 = (-h - oz) * inv;
    let t2 = (h - oz) * inv;
    if (t1 > t2) {
      const s = t1;
      t1 = t2;
      t2 = s;
    }
    if (t1 > tn) tn = t1;
    if (t2 < tf) tf = t2;
  } else if (oz < -h || oz > h) {
    HIT[0] = Infinity;
    return;
  }
  if (tn > tf) {
    HIT[0] = Infinity;
    return;
  }
  if (tn >= tmin) {
    HIT[0] = tn;
    return;
  }
  HIT[0] = tf >= tmin ? tf : Infinity;
}

/** Capsule: segment z in [-h, h] swept by radius r. Smallest surface hit >= tmin. */
function hitCapsule(): void {
  const ox = RAY[0]!,
    oy = RAY[1]!,
    oz = RAY[2]!,
    dx = RAY[3]!,
    dy = RAY[4]!,
    dz = RAY[5]!,
    tmin = RAY[6]!;
  const r = RAY[7]!,
    h = RAY[8]!;
  const r2 = r * r;
  const a = dx * dx + dy * dy;
  const cxy = ox * ox + oy * oy - r2;
  let best = Infinity;
  if (a > PAR_EPS) {
    const b = ox * dx + oy * dy;
    const disc = b * b - a * cxy;
    if (disc < 0) {
      HIT[0] = Infinity;
      return;
    } // misses the infinite cylinder that contains the capsule
    const s = Math.sqrt(disc);
    const t0 = (-b - s) / a;
    if (t0 >= tmin) {
      const z = oz + t0 * dz;
      // entering the infinite cylinder on the body: nothing of the capsule can be nearer
      if (z >= -h && z <= h) {
        HIT[0] = t0;
        return;
      }
    }
    const t1 = (-b + s) / a;
    if (t1 >= tmin) {
      const z = oz + t1 * dz;
      if (z >= -h && z <= h) best = t1;
    }
  } else if (cxy > 0) {
    HIT[0] = Infinity;
    return;
  }
  const aa = a + dz * dz;
  if (aa <= PAR_EPS) {
    HIT[0] = best;
    return;
  }
  const bxy = ox * dx + oy * dy;
  // top cap sphere centred at z = +h (valid where z >= h)
  {
    const ocz = oz - h;
    const b = bxy + ocz * dz;
    const c = cxy + ocz * ocz;
    const disc = b * b - aa * c;
    if (disc >= 0) {
      const s = Math.sqrt(disc);
      const t0 = (-b - s) / aa;
      if (t0 >= tmin && t0 < best && oz + t0 * dz >= h) best = t0;
      const t1 = (-b + s) / aa;
      if (t1 >= tmin && t1 < best && oz + t1 * dz >= h) best = t1;
    }
  }
  // bottom cap sphere centred at z = -h (valid where z <= -h)
  {
    const ocz = oz + h;
    const b = bxy + ocz * dz;
    const c = cxy + ocz * ocz;
    const disc = b * b - aa * c;
    if (disc >= 0) {
      const s = Math.sqrt(disc);
      const t0 = (-b - s) / aa;
      if (t0 >= tmin && t0 < best && oz + t0 * dz <= -h) best = t0;
      const t1 = (-b + s) / aa;
      if (t1 >= tmin && t1 < best && oz + t1 * dz <= -h) best = t1;
    }
  }
  HIT[0] = best;
}

/** Plane z = 0 (two-sided), half extents hx, hy with 0 = unbounded. */
function hitPlane(): void {
  const ox = RAY[0]!,
    oy = RAY[1]!,
    oz = RAY[2]!,
    dx = RAY[3]!,
    dy = RAY[4]!,
    dz = RAY[5]!,
    tmin = RAY[6]!;
  const hx = RAY[7]!,
    hy = RAY[8]!;
  if (dz === 0) {
    HIT[0] = Infinity;
    return;
  }
  const t = -oz / dz;
  if (!(t >= tmin)) {
    HIT[0] = Infinity;
    return;
  }
  if (hx > 0) {
    const x = ox + t * dx;
    if (x < -hx || x > hx) {
      HIT[0] = Infinity;
      return;
    }
  }
  if (hy > 0) {
    const y = oy + t * dy;
    if (y < -hy || y > hy) {
      HIT[0] = Infinity;
      return;
    }
  }
  HIT[0] = t;
}

/**
 * A mesh's triangles through its BVH (Möller–Trumbore, two-sided), hits in [tmin, RAY[7]): the
 * caller passes the depth already found, so boxes behind it are never opened. With `anyHit`
 * (shadow rays) the first hit ends the search.
 */
function hitMesh(bvh: MeshBvh, anyHit: boolean): void {
  const ox = RAY[0]!,
    oy = RAY[1]!,
    oz = RAY[2]!,
    dx = RAY[3]!,
    dy = RAY[4]!,
    dz = RAY[5]!,
    tmin = RAY[6]!;
  const ix = 1 / dx,
    iy = 1 / dy,
    iz = 1 / dz;
  const bounds = bvh.bounds,
    nodes = bvh.nodes,
    tri = bvh.tri;
  if (STACK.length < 2 * bvh.depth + 2) STACK = new Int32Array(2 * bvh.depth + 2);
  const stack = STACK;
  let sp = 0;
  stack[sp++] = 0;
  let best = RAY[7]!;
  let bestTri = -1;
  while (sp > 0) {
    const node = stack[--sp]!;
    const b = 6 * node;
    // Slab test; a NaN (ray parallel to and on a slab) leaves the interval as it was: conservative.
    let tn = tmin;
    let tf = best;
    let t0 = (bounds[b]! - ox) * ix,
      t1 = (bounds[b + 3]! - ox) * ix;
    if (t0 > t1) {
      const x = t0;
      t0 = t1;
      t1 = x;
    }
    if (t0 > tn) tn = t0;
    if (t1 < tf) tf = t1;
    t0 = (bounds[b + 1]! - oy) * iy;
    t1 = (bounds[b + 4]! - oy) * iy;
    if (t0 > t1) {
      const x = t0;
      t0 = t1;
      t1 = x;
    }
    if (t0 > tn) tn = t0;
    if (t1 < tf) tf = t1;
    t0 = (bounds[b + 2]! - oz) * iz;
    t1 = (bounds[b + 5]! - oz) * iz;
    if (t0 > t1) {
      const x = t0;
      t0 = t1;
      t1 = x;
    }
    if (t0 > tn) tn = t0;
    if (t1 < tf) tf = t1;
    if (tn > tf) continue;
    const count = nodes[2 * node + 1]!;
    if (count < 0) {
      // Nearer child on top of the stack: its hits shorten the search in the other.
      const left = nodes[2 * node]!;
      const towards = count === -1 ? dx : count === -2 ? dy : dz;
      if (towards >= 0) {
        stack[sp++] = left + 1;
        stack[sp++] = left;
      } else {
        stack[sp++] = left;
        stack[sp++] = left + 1;
      }
      continue;
    }
    const first = nodes[2 * node]!;
    for (let k = first; k < first + count; k++) {
      const q = 9 * k;
      const e1x = tri[q + 3]!,
        e1y = tri[q + 4]!,
        e1z = tri[q + 5]!;
      const e2x = tri[q + 6]!,
        e2y = tri[q + 7]!,
        e2z = tri[q + 8]!;
      const px = dy * e2z - dz * e2y,
        py = dz * e2x - dx * e2z,
        pz = dx * e2y - dy * e2x;
      const det = e1x * px + e1y * py + e1z * pz;
      if (det > -PAR_EPS && det < PAR_EPS) continue;
      const inv = 1 / det;
      const sx = ox - tri[q]!,
        sy = oy - tri[q + 1]!,
        sz = oz - tri[q + 2]!;
      const u = (sx * px + sy * py + sz * pz) * inv;
      if (u < 0 || u > 1) continue;
      const qx = sy * e1z - sz * e1y,
        qy = sz * e1x - sx * e1z,
        qz = sx * e1y - sy * e1x;
      const v = (dx * qx + dy * qy + dz * qz) * inv;
      if (v < 0 || u + v > 1) continue;
      const t = (e2x * qx + e2y * qy + e2z * qz) * inv;
      if (t >= tmin && t < best) {
        best = t;
        bestTri = k;
        if (anyHit) {
          HIT[0] = t;
          HIT_TRI[0] = k;
          return;
        }
      }
    }
  }
  HIT[0] = bestTri >= 0 ? best : Infinity;
  HIT_TRI[0] = bestTri;
}

function isSupported(type: number): boolean {
  return (
    type === GEOM_PLANE ||
    type === GEOM_SPHERE ||
    type === GEOM_CAPSULE ||
    type === GEOM_ELLIPSOID ||
    type === GEOM_CYLINDER ||
    type === GEOM_BOX
  );
}

export class RayRenderer {
  readonly width: number;
  readonly height: number;
  /** Hard shadows from the key light (may be toggled between frames). */
  shadows: boolean;

  private readonly bgR: number;
  private readonly bgG: number;
  private readonly bgB: number;
  private readonly ambient: number;
  private readonly keyI: number;
  private readonly headI: number;
  private readonly lx: number;
  private readonly ly: number;
  private readonly lz: number;
  private readonly near: number;
  private readonly far: number;
  private readonly cull: boolean;

  // per-pixel buffers
  private readonly uTab: Float64Array; // per column: camera-x slope
  private readonly vTab: Float64Array; // per row: camera-y slope (row 0 = top)
  private readonly depthBuf: Float64Array; // distance along camera -z of the nearest hit
  private readonly idBuf: Int32Array; // geom index of the nearest hit, -1 = background
  private readonly triBuf: Int32Array; // triangle of the nearest hit where it is a mesh geom
  private cachedTan = NaN;
  private sx = 0; // tan(fovy/2) * aspect
  private sy = 0; // tan(fovy/2)

  // camera of the current frame
  private cpx = 0;
  private cpy = 0;
  private cpz = 0;
  private cxx = 0;
  private cxy = 0;
  private cxz = 0;
  private cyx = 0;
  private cyy = 0;
  private cyz = 0;
  private czx = 0;
  private czy = 0;
  private czz = 0;

  // per-geom buffers (grown on demand)
  private cap = 0;
  private gType = new Int32Array(0);
  private gPos = new Float64Array(0); // 3
  private gMat = new Float64Array(0); // 9 row-major
  private gSize = new Float64Array(0); // 3 (ellipsoid: inverse radii)
  private gRgb = new Float64Array(0); // 3
  private gRad = new Float64Array(0); // bounding radius
  /** Intersection-space camera origin and pixel-direction basis (scaled to unit sphere for ellipsoids). */
  private gO = new Float64Array(0);
  private gAx = new Float64Array(0);
  private gAy = new Float64Array(0);
  private gAz = new Float64Array(0);
  private gL = new Float64Array(0); // key-light direction in intersection space
  private gMesh: (MeshBvh | undefined)[] = []; // mesh geoms' BVH
  private casters = new Int32Array(0);
  private nCasters = 0;

  // Shadow casters binned on a grid in the plane perpendicular to the key light: a shadow
  // ray from p can only hit casters whose projected bounding disc covers p's projection.
  private readonly e1x: number;
  private readonly e1y: number;
  private readonly e1z: number;
  private readonly e2x: number;
  private readonly e2y: number;
  private readonly e2z: number;
  private readonly cellStart = new Int32Array(SHADOW_GRID * SHADOW_GRID + 1);
  private readonly cellFill = new Int32Array(SHADOW_GRID * SHADOW_GRID);
  private cellItems = new Int32Array(256);
  private gridMinA = 0;
  private gridMinB = 0;
  private gridInvA = 0;
  private gridInvB = 0;

  // screen rectangle scratch (inclusive)
  private rx0 = 0;
  private rx1 = -1;
  private ry0 = 0;
  private ry1 = -1;

  constructor(opts: RayRendererOptions) {
    const { width, height } = opts;
    if (!Number.isInteger(width) || !Number.isInteger(height) || width <= 0 || height <= 0) {
      throw new Error(`RayRenderer: width/height must be positive integers, got ${width}x${height}`);
    }
    this.width = width;
    this.height = height;
    this.shadows = opts.shadows ?? true;
    const bg = opts.background ?? [0.7, 0.78, 0.86];
    this.bgR = bg[0];
    this.bgG = bg[1];
    this.bgB = bg[2];
    this.ambient = opts.ambient ?? 0.55;
    this.keyI = opts.keyIntensity ?? 0.35;
    this.headI = opts.headlight ?? 0.1;
    const kd = opts.keyDirection ?? [0.3, -0.2, 1];
    const kn = Math.hypot(kd[0], kd[1], kd[2]);
    if (!(kn > 0)) throw new Error('RayRenderer: keyDirection must be non-zero');
    this.lx = kd[0] / kn;
    this.ly = kd[1] / kn;
    this.lz = kd[2] / kn;
    // orthonormal basis (e1, e2) of the plane perpendicular to the light
    let ax = 1,
      ay = 0,
      az = 0;
    if (Math.abs(this.lx) > 0.9) {
      ax = 0;
      ay = 1;
    }
    let e1x = ay * this.lz - az * this.ly,
      e1y = az * this.lx - ax * this.lz,
      e1z = ax * this.ly - ay * this.lx;
    const e1n = Math.hypot(e1x, e1y, e1z);
    e1x /= e1n;
    e1y /= e1n;
    e1z /= e1n;
    this.e1x = e1x;
    this.e1y = e1y;
    this.e1z = e1z;
    this.e2x = this.ly * e1z - this.lz * e1y;
    this.e2y = this.lz * e1x - this.lx * e1z;
    this.e2z = this.lx * e1y - this.ly * e1x;
    this.near = opts.near ?? 0.01;
    this.far = opts.far ?? Infinity;
    this.cull = opts.cull ?? true;
    if (!(this.near > 0) || !(this.far > this.near)) throw new Error('RayRenderer: need 0 < near < far');
    this.uTab = new Float64Array(width);
    this.vTab = new Float64Array(height);
    this.depthBuf = new Float64Array(width * height);
    this.idBuf = new Int32Array(width * height);
    this.idBuf.fill(-1);
    this.triBuf = new Int32Array(width * height);
  }

  /**
   * Geom index per pixel of the last render (-1 = background), row-major, row 0 = top. Overwritten by the next render.
   */
  get geomIds(): Int32Array {
    return this.idBuf;
  }
  /** Depth (along the camera's -z axis, metres) per pixel of the last render; Infinity = background. */
  get depth(): Float64Array {
    return this.depthBuf;
  }

  /**
   * Render an H*W*3 RGB image (row 0 = top). Pass `out` (length >= W*H*3) to avoid
   * allocating; without it a new Uint8Array is allocated for the result.
   */
  render(geoms: SceneGeoms, camera: CameraPose, out?: Uint8Array): Uint8Array {
    const W = this.width;
    const H = this.height;
    const npx = W * H;
    if (out === undefined) out = new Uint8Array(npx * 3);
    else if (out.length < npx * 3) throw new Error(`RayRenderer: out has length ${out.length}, need ${npx * 3}`);

    this.setupCamera(camera);
    const ngeom = geoms.ngeom | 0;
    this.ensureCapacity(ngeom);

    const depth = this.depthBuf;
    const ids = this.idBuf;
    depth.fill(this.far);
    ids.fill(-1);

    const type = geoms.type;
    const size = geoms.size;
    const xpos = geoms.xpos;
    const xmat = geoms.xmat;
    const rgba = geoms.rgba;
    const vis = geoms.visible;
    const dataid = geoms.dataid;
    const meshes = geoms.meshes;
    const gMesh = this.gMesh;
    const gType = this.gType,
      gPos = this.gPos,
      gMat = this.gMat,
      gSize = this.gSize,
      gRgb = this.gRgb,
      gRad = this.gRad;
    const gO = this.gO,
      gAx = this.gAx,
      gAy = this.gAy,
      gAz = this.gAz,
      gL = this.gL;
    const cpx = this.cpx,
      cpy = this.cpy,
      cpz = this.cpz;
    const cxx = this.cxx,
      cxy = this.cxy,
      cxz = this.cxz;
    const cyx = this.cyx,
      cyy = this.cyy,
      cyz = this.cyz;
    const czx = this.czx,
      czy = this.czy,
      czz = this.czz;
    const lx = this.lx,
      ly = this.ly,
      lz = this.lz;
    const doShadows = this.shadows && this.keyI > 0;
    this.nCasters = 0;

    for (let g = 0; g < ngeom; g++) {
      const t = type[g]! | 0;
      gType[g] = -1;
      let mesh: MeshBvh | undefined;
      if (t === GEOM_MESH) {
        mesh = meshes?.[dataid?.[g] ?? -1];
        if (!mesh) continue;
      } else if (!isSupported(t)) continue;
      if (vis !== undefined && !vis[g]) continue;
      if (!((rgba[4 * g + 3] ?? 1) > 0)) continue;

      const g3 = 3 * g,
        g9 = 9 * g;
      const px = +xpos[g3]!,
        py = +xpos[g3 + 1]!,
        pz = +xpos[g3 + 2]!;
      const m0 = +xmat[g9]!,
        m1 = +xmat[g9 + 1]!,
        m2 = +xmat[g9 + 2]!;
      const m3 = +xmat[g9 + 3]!,
        m4 = +xmat[g9 + 4]!,
        m5 = +xmat[g9 + 5]!;
      const m6 = +xmat[g9 + 6]!,
        m7 = +xmat[g9 + 7]!,
        m8 = +xmat[g9 + 8]!;
      const s0 = +size[g3]!,
        s1 = +size[g3 + 1]!,
        s2 = +size[g3 + 2]!;

      let rad: number;
      let k0 = 1,
        k1 = 1,
        k2 = 1; // intersection-space scale (ellipsoid)
      switch (t) {
        case GEOM_SPHERE:
          rad = s0;
          break;
        case GEOM_CAPSULE:
          rad = s0 + s1;
          break;
        case GEOM_CYLINDER:
          rad = Math.sqrt(s0 * s0 + s1 * s1);
          break;
        case GEOM_BOX:
          rad = Math.sqrt(s0 * s0 + s1 * s1 + s2 * s2);
          break;
        case GEOM_ELLIPSOID:
          rad = Math.max(s0, s1, s2);
          if (!(s0 > 0 && s1 > 0 && s2 > 0)) continue;
          k0 = 1 / s0;
          k1 = 1 / s1;
          k2 = 1 / s2;
          break;
        case GEOM_MESH:
          rad = mesh!.radius;
          break;
        default: // plane
          rad = s0 > 0 && s1 > 0 ? Math.sqrt(s0 * s0 + s1 * s1) : Infinity;
          break;
      }
      if (!(rad >= 0) || Number.isNaN(px + py + pz + m0 + m4 + m8)) continue;

      gType[g] = t;
      gPos[g3] = px;
      gPos[g3 + 1] = py;
      gPos[g3 + 2] = pz;
      gMat[g9] = m0;
      gMat[g9 + 1] = m1;
      gMat[g9 + 2] = m2;
      gMat[g9 + 3] = m3;
      gMat[g9 + 4] = m4;
      gMat[g9 + 5] = m5;
      gMat[g9 + 6] = m6;
      gMat[g9 + 7] = m7;
      gMat[g9 + 8] = m8;
      if (t === GEOM_ELLIPSOID) {
        gSize[g3] = k0;
        gSize[g3 + 1] = k1;
        gSize[g3 + 2] = k2;
      } else {
        gSize[g3] = s0;
        gSize[g3 + 1] = s1;
        gSize[g3 + 2] = s2;
      }
      gRgb[g3] = clamp01(+rgba[4 * g]!);
      gRgb[g3 + 1] = clamp01(+rgba[4 * g + 1]!);
      gRgb[g3 + 2] = clamp01(+rgba[4 * g + 2]!);
      gRad[g] = rad;
      gMesh[g] = mesh;

      // local = R^T * world  (column k of R dotted with the world vector)
      const wx = cpx - px,
        wy = cpy - py,
        wz = cpz - pz;
      gO[g3] = (m0 * wx + m3 * wy + m6 * wz) * k0;
      gO[g3 + 1] = (m1 * wx + m4 * wy + m7 * wz) * k1;
      gO[g3 + 2] = (m2 * wx + m5 * wy + m8 * wz) * k2;
      gAx[g3] = (m0 * cxx + m3 * cxy + m6 * cxz) * k0;
      gAx[g3 + 1] = (m1 * cxx + m4 * cxy + m7 * cxz) * k1;
      gAx[g3 + 2] = (m2 * cxx + m5 * cxy + m8 * cxz) * k2;
      gAy[g3] = (m0 * cyx + m3 * cyy + m6 * cyz) * k0;
      gAy[g3 + 1] = (m1 * cyx + m4 * cyy + m7 * cyz) * k1;
      gAy[g3 + 2] = (m2 * cyx + m5 * cyy + m8 * cyz) * k2;
      gAz[g3] = (m0 * czx + m3 * czy + m6 * czz) * k0;
      gAz[g3 + 1] = (m1 * czx + m4 * czy + m7 * czz) * k1;
      gAz[g3 + 2] = (m2 * czx + m5 * czy + m8 * czz) * k2;
      if (doShadows && t !== GEOM_PLANE) {
        gL[g3] = (m0 * lx + m3 * ly + m6 * lz) * k0;
        gL[g3 + 1] = (m1 * lx + m4 * ly + m7 * lz) * k1;
        gL[g3 + 2] = (m2 * lx + m5 * ly + m8 * lz) * k2;
        this.casters[this.nCasters++] = g;
      }

      if (t === GEOM_MESH) {
        if (this.screenRectOfBox(g, mesh!.bounds)) this.rasterizeMesh(g, mesh!);
      } else if (this.screenRect(g)) this.rasterize(g, t);
    }

    if (doShadows) this.buildShadowGrid();
    this.shade(out, doShadows);
    return out;
  }

  /** Bin the shadow casters' light-space bounding discs into the grid (CSR layout, caster order kept). */
  private buildShadowGrid(): void {
    const G = SHADOW_GRID;
    const n = this.nCasters,
      casters = this.casters,
      gPos = this.gPos,
      gRad = this.gRad;
    const e1x = this.e1x,
      e1y = this.e1y,
      e1z = this.e1z,
      e2x = this.e2x,
      e2y = this.e2y,
      e2z = this.e2z;
    let minA = Infinity,
      maxA = -Infinity,
      minB = Infinity,
      maxB = -Infinity;
    for (let k = 0; k < n; k++) {
      const g = casters[k]!,
        g3 = 3 * g,
        r = gRad[g]!;
      const a = gPos[g3]! * e1x + gPos[g3 + 1]! * e1y + gPos[g3 + 2]! * e1z;
      const b = gPos[g3]! * e2x + gPos[g3 + 1]! * e2y + gPos[g3 + 2]! * e2z;
      if (a - r < minA) minA = a - r;
      if (a + r > maxA) maxA = a + r;
      if (b - r < minB) minB = b - r;
      if (b + r > maxB) maxB = b + r;
    }
    const cellStart = this.cellStart,
      cellFill = this.cellFill;
    cellStart.fill(0);
    if (n === 0) return;
    this.gridMinA = minA;
    this.gridMinB = minB;
    // without culling everything lands in cell 0 (brute force over all casters)
    const invA = maxA > minA && this.cull ? G / (maxA - minA) : 0;
    const invB = maxB > minB && this.cull ? G / (maxB - minB) : 0;
    this.gridInvA = invA;
    this.gridInvB = invB;
    // pass 0 counts, pass 1 fills
    for (let pass = 0; pass < 2; pass++) {
      if (pass === 1) {
        let total = 0;
        for (let c = 0; c < G * G; c++) {
          const cnt = cellStart[c]!;
          cellStart[c] = total;
          cellFill[c] = total;
          total += cnt;
        }
        cellStart[G * G] = total;
        if (total > this.cellItems.length) this.cellItems = new Int32Array(Math.max(total, 2 * this.cellItems.length));
      }
      const items = this.cellItems;
      for (let k = 0; k < n; k++) {
        const g = casters[k]!,
          g3 = 3 * g,
          r = gRad[g]!;
        const a = gPos[g3]! * e1x + gPos[g3 + 1]! * e1y + gPos[g3 + 2]! * e1z;
        const b = gPos[g3]! * e2x + gPos[g3 + 1]! * e2y + gPos[g3 + 2]! * e2z;
        const ia0 = cellIndex(a - r, minA, invA, G),
          ia1 = cellIndex(a + r, minA, invA, G);
        const ib0 = cellIndex(b - r, minB, invB, G),
          ib1 = cellIndex(b + r, minB, invB, G);
        for (let ib = ib0; ib <= ib1; ib++) {
          for (let ia = ia0; ia <= ia1; ia++) {
            const c = ib * G + ia;
            if (pass === 0) cellStart[c]!++;
            else items[cellFill[c]!++] = g;
          }
        }
      }
    }
  }

  private setupCamera(camera: CameraPose): void {
    const p = camera.pos;
    const m = camera.mat;
    this.cpx = +p[0]!;
    this.cpy = +p[1]!;
    this.cpz = +p[2]!;
    // columns of the row-major matrix are the camera axes in world
    this.cxx = +m[0]!;
    this.cxy = +m[3]!;
    this.cxz = +m[6]!;
    this.cyx = +m[1]!;
    this.cyy = +m[4]!;
    this.cyz = +m[7]!;
    this.czx = +m[2]!;
    this.czy = +m[5]!;
    this.czz = +m[8]!;
    const fovy = +camera.fovy;
    if (!(fovy > 0 && fovy < 180)) throw new Error(`RayRenderer: fovy must be in (0, 180) degrees, got ${camera.fovy}`);
    const tanHalf = Math.tan((fovy * Math.PI) / 360);
    if (tanHalf !== this.cachedTan) {
      const W = this.width,
        H = this.height;
      this.cachedTan = tanHalf;
      this.sy = tanHalf;
      this.sx = (tanHalf * W) / H;
      for (let i = 0; i < W; i++) this.uTab[i] = ((2 * (i + 0.5)) / W - 1) * this.sx;
      for (let j = 0; j < H; j++) this.vTab[j] = (1 - (2 * (j + 0.5)) / H) * this.sy;
    }
  }

  private ensureCapacity(n: number): void {
    if (n <= this.cap) return;
    const c = Math.max(n, 2 * this.cap, 16);
    this.cap = c;
    this.gType = new Int32Array(c);
    this.gPos = new Float64Array(3 * c);
    this.gMat = new Float64Array(9 * c);
    this.gSize = new Float64Array(3 * c);
    this.gRgb = new Float64Array(3 * c);
    this.gRad = new Float64Array(c);
    this.gO = new Float64Array(3 * c);
    this.gAx = new Float64Array(3 * c);
    this.gAy = new Float64Array(3 * c);
    this.gAz = new Float64Array(3 * c);
    this.gL = new Float64Array(3 * c);
    this.casters = new Int32Array(c);
    this.gMesh = new Array<MeshBvh | undefined>(c);
  }

  /** Conservative inclusive pixel rectangle of geom g's bounding sphere; false if empty. */
  private screenRect(g: number): boolean {
    const W = this.width,
      H = this.height;
    const px = this.gPos[3 * g]!,
      py = this.gPos[3 * g + 1]!,
      pz = this.gPos[3 * g + 2]!,
      rad = this.gRad[g]!;
    this.rx0 = 0;
    this.rx1 = W - 1;
    this.ry0 = 0;
    this.ry1 = H - 1;
    if (rad === Infinity || !this.cull) return true;
    const wx = px - this.cpx,
      wy = py - this.cpy,
      wz = pz - this.cpz;
    const xc = wx * this.cxx + wy * this.cxy + wz * this.cxz;
    const yc = wx * this.cyx + wy * this.cyy + wz * this.cyz;
    const zc = -(wx * this.czx + wy * this.czy + wz * this.czz); // depth in front of the camera
    if (zc + rad < this.near || zc - rad > this.far) return false;
    if (zc - rad <= this.near) return true; // straddles the near plane: whole screen
    const den = zc * zc - rad * rad;
    const qx = rad * Math.sqrt(xc * xc + den);
    const qy = rad * Math.sqrt(yc * yc + den);
    const uMin = (xc * zc - qx) / den,
      uMax = (xc * zc + qx) / den;
    const vMin = (yc * zc - qy) / den,
      vMax = (yc * zc + qy) / den;
    // pixel centre i has u = (2(i+0.5)/W - 1) * sx; row j has v = (1 - 2(j+0.5)/H) * sy
    const i0 = Math.floor((uMin / this.sx + 1) * 0.5 * W - 0.5);
    const i1 = Math.ceil((uMax / this.sx + 1) * 0.5 * W - 0.5);
    const j0 = Math.floor((1 - vMax / this.sy) * 0.5 * H - 0.5);
    const j1 = Math.ceil((1 - vMin / this.sy) * 0.5 * H - 0.5);
    this.rx0 = i0 > 0 ? i0 : 0;
    this.rx1 = i1 < W - 1 ? i1 : W - 1;
    this.ry0 = j0 > 0 ? j0 : 0;
    this.ry1 = j1 < H - 1 ? j1 : H - 1;
    return this.rx0 <= this.rx1 && this.ry0 <= this.ry1;
  }

  /**
   * Inclusive pixel rectangle of geom g's local box `b` (min xyz, max xyz: a mesh's root bounds),
   * tighter than the bounding sphere for long links; false if empty. The whole screen where the
   * box reaches the near plane.
   */
  private screenRectOfBox(g: number, b: Float64Array): boolean {
    const W = this.width,
      H = this.height;
    this.rx0 = 0;
    this.rx1 = W - 1;
    this.ry0 = 0;
    this.ry1 = H - 1;
    if (!this.cull) return true;
    const g3 = 3 * g,
      g9 = 9 * g;
    const m = this.gMat;
    let uMin = Infinity,
      uMax = -Infinity,
      vMin = Infinity,
      vMax = -Infinity;
    for (let k = 0; k < 8; k++) {
      const lx = k & 1 ? b[3]! : b[0]!,
        ly = k & 2 ? b[4]! : b[1]!,
        lz = k & 4 ? b[5]! : b[2]!;
      // corner relative to the camera, world frame
      const wx = this.gPos[g3]! + m[g9]! * lx + m[g9 + 1]! * ly + m[g9 + 2]! * lz - this.cpx;
      const wy = this.gPos[g3 + 1]! + m[g9 + 3]! * lx + m[g9 + 4]! * ly + m[g9 + 5]! * lz - this.cpy;
      const wz = this.gPos[g3 + 2]! + m[g9 + 6]! * lx + m[g9 + 7]! * ly + m[g9 + 8]! * lz - this.cpz;
      const zc = -(wx * this.czx + wy * this.czy + wz * this.czz);
      if (zc <= this.near) return true;
      const u = (wx * this.cxx + wy * this.cxy + wz * this.cxz) / zc;
      const v = (wx * this.cyx + wy * this.cyy + wz * this.cyz) / zc;
      if (u < uMin) uMin = u;
      if (u > uMax) uMax = u;
      if (v < vMin) vMin = v;
      if (v > vMax) vMax = v;
    }
    const i0 = Math.floor((uMin / this.sx + 1) * 0.5 * W - 0.5);
    const i1 = Math.ceil((uMax / this.sx + 1) * 0.5 * W - 0.5);
    const j0 = Math.floor((1 - vMax / this.sy) * 0.5 * H - 0.5);
    const j1 = Math.ceil((1 - vMin / this.sy) * 0.5 * H - 0.5);
    this.rx0 = i0 > 0 ? i0 : 0;
    this.rx1 = i1 < W - 1 ? i1 : W - 1;
    this.ry0 = j0 > 0 ? j0 : 0;
    this.ry1 = j1 < H - 1 ? j1 : H - 1;
    return this.rx0 <= this.rx1 && this.ry0 <= this.ry1;
  }

  private rasterize(g: number, t: number): void {
    const W = this.width;
    const depth = this.depthBuf,
      ids = this.idBuf,
      uTab = this.uTab,
      vTab = this.vTab;
    const g3 = 3 * g;
    const axx = this.gAx[g3]!,
      axy = this.gAx[g3 + 1]!,
      axz = this.gAx[g3 + 2]!;
    const ayx = this.gAy[g3]!,
      ayy = this.gAy[g3 + 1]!,
      ayz = this.gAy[g3 + 2]!;
    const azx = this.gAz[g3]!,
      azy = this.gAz[g3 + 1]!,
      azz = this.gAz[g3 + 2]!;
    const ray = RAY,
      hitOut = HIT;
    ray[0] = this.gO[g3]!;
    ray[1] = this.gO[g3 + 1]!;
    ray[2] = this.gO[g3 + 2]!;
    ray[6] = this.near;
    if (t === GEOM_ELLIPSOID) {
      ray[7] = 1;
    } // unit sphere in intersection space
    else {
      ray[7] = this.gSize[g3]!;
      ray[8] = this.gSize[g3 + 1]!;
      ray[9] = this.gSize[g3 + 2]!;
    }
    const x0 = this.rx0,
      x1 = this.rx1,
      y0 = this.ry0,
      y1 = this.ry1;
    for (let j = y0; j <= y1; j++) {
      const v = vTab[j]!;
      const bx = v * ayx - azx,
        by = v * ayy - azy,
        bz = v * ayz - azz;
      let idx = j * W + x0;
      for (let i = x0; i <= x1; i++, idx++) {
        const u = uTab[i]!;
        ray[3] = bx + u * axx;
        ray[4] = by + u * axy;
        ray[5] = bz + u * axz;
        switch (t) {
          case GEOM_SPHERE:
          case GEOM_ELLIPSOID:
            hitSphere();
            break;
          case GEOM_BOX:
            hitBox();
            break;
          case GEOM_CAPSULE:
            hitCapsule();
            break;
          case GEOM_CYLINDER:
            hitCylinder();
            break;
          default:
            hitPlane();
            break;
        }
        const hit = hitOut[0]!;
        if (hit < depth[idx]!) {
          depth[idx] = hit;
          ids[idx] = g;
        }
      }
    }
  }

  /** As rasterize(), for a mesh geom: the nearest triangle per pixel goes to triBuf. */
  private rasterizeMesh(g: number, mesh: MeshBvh): void {
    const W = this.width;
    const depth = this.depthBuf,
      ids = this.idBuf,
      tris = this.triBuf,
      uTab = this.uTab,
      vTab = this.vTab;
    const g3 = 3 * g;
    const axx = this.gAx[g3]!,
      axy = this.gAx[g3 + 1]!,
      axz = this.gAx[g3 + 2]!;
    const ayx = this.gAy[g3]!,
      ayy = this.gAy[g3 + 1]!,
      ayz = this.gAy[g3 + 2]!;
    const azx = this.gAz[g3]!,
      azy = this.gAz[g3 + 1]!,
      azz = this.gAz[g3 + 2]!;
    const ray = RAY;
    ray[0] = this.gO[g3]!;
    ray[1] = this.gO[g3 + 1]!;
    ray[2] = this.gO[g3 + 2]!;
    ray[6] = this.near;
    for (let j = this.ry0; j <= this.ry1; j++) {
      const v = vTab[j]!;
      const bx = v * ayx - azx,
        by = v * ayy - azy,
        bz = v * ayz - azz;
      let idx = j * W + this.rx0;
      for (let i = this.rx0; i <= this.rx1; i++, idx++) {
        const u = uTab[i]!;
        ray[3] = bx + u * axx;
        ray[4] = by + u * axy;
        ray[5] = bz + u * axz;
        ray[7] = depth[idx]!;
        hitMesh(mesh, false);
        const hit = HIT[0]!;
        if (hit < depth[idx]!) {
          depth[idx] = hit;
          ids[idx] = g;
          tris[idx] = HIT_TRI[0]!;
        }
      }
    }
  }

  /** True if the ray PT + s*L (s > 0) hits any shadow caster other than `self`. */
  private occluded(self: number): boolean {
    const G = SHADOW_GRID;
    const px = PT[0]!,
      py = PT[1]!,
      pz = PT[2]!;
    const ia = Math.floor((px * this.e1x + py * this.e1y + pz * this.e1z - this.gridMinA) * this.gridInvA);
    const ib = Math.floor((px * this.e2x + py * this.e2y + pz * this.e2z - this.gridMinB) * this.gridInvB);
    if (ia < 0 || ia > G || ib < 0 || ib > G) return false;
    const cell = (ib < G ? ib : G - 1) * G + (ia < G ? ia : G - 1);
    const items = this.cellItems;
    const k0 = this.cellStart[cell]!,
      k1 = this.cellStart[cell + 1]!;
    const gType = this.gType,
      gPos = this.gPos,
      gMat = this.gMat,
      gSize = this.gSize,
      gRad = this.gRad,
      gL = this.gL;
    const lx = this.lx,
      ly = this.ly,
      lz = this.lz;
    const ray = RAY;
    for (let k = k0; k < k1; k++) {
      const g = items[k]!;
      // Convex primitives cannot shadow their own lit side; a mesh is not tested against itself either
      // (no self-shadowing: it would need an offset per triangle to avoid acne).
      if (g === self) continue;
      const g3 = 3 * g;
      const wx = gPos[g3]! - px,
        wy = gPos[g3 + 1]! - py,
        wz = gPos[g3 + 2]! - pz;
      const r = gRad[g]!;
      const s = wx * lx + wy * ly + wz * lz;
      if (s < -r) continue; // entirely behind the point w.r.t. the light
      const d2 = wx * wx + wy * wy + wz * wz - s * s;
      if (d2 > r * r) continue; // ray misses the bounding sphere
      const g9 = 9 * g;
      const m = gMat;
      const t = gType[g]!;
      // local origin = R^T (p - c) = -R^T w
      const ox = -(m[g9]! * wx + m[g9 + 3]! * wy + m[g9 + 6]! * wz);
      const oy = -(m[g9 + 1]! * wx + m[g9 + 4]! * wy + m[g9 + 7]! * wz);
      const oz = -(m[g9 + 2]! * wx + m[g9 + 5]! * wy + m[g9 + 8]! * wz);
      const s0 = gSize[g3]!,
        s1 = gSize[g3 + 1]!,
        s2 = gSize[g3 + 2]!;
      ray[3] = gL[g3]!;
      ray[4] = gL[g3 + 1]!;
      ray[5] = gL[g3 + 2]!;
      ray[6] = SHADOW_TMIN;
      if (t === GEOM_ELLIPSOID) {
        ray[0] = ox * s0;
        ray[1] = oy * s1;
        ray[2] = oz * s2; // gSize holds inverse radii
        ray[7] = 1;
      } else {
        ray[0] = ox;
        ray[1] = oy;
        ray[2] = oz;
        ray[7] = s0;
        ray[8] = s1;
        ray[9] = s2;
      }
      switch (t) {
        case GEOM_SPHERE:
        case GEOM_ELLIPSOID:
          hitSphere();
          break;
        case GEOM_BOX:
          hitBox();
          break;
        case GEOM_CAPSULE:
          hitCapsule();
          break;
        case GEOM_CYLINDER:
          hitCylinder();
          break;
        case GEOM_MESH:
          ray[7] = Infinity;
          hitMesh(this.gMesh[g]!, true);
          break;
        default:
          continue; // planes do not cast shadows
      }
      if (HIT[0]! < Infinity) return true;
    }
    return false;
  }

  private shade(out: Uint8Array, doShadows: boolean): void {
    const W = this.width,
      H = this.height;
    const depth = this.depthBuf,
      ids = this.idBuf,
      uTab = this.uTab,
      vTab = this.vTab;
    const gType = this.gType,
      gMat = this.gMat,
      gSize = this.gSize,
      gRgb = this.gRgb;
    const gO = this.gO,
      gAx = this.gAx,
      gAy = this.gAy,
      gAz = this.gAz;
    const cpx = this.cpx,
      cpy = this.cpy,
      cpz = this.cpz;
    const cxx = this.cxx,
      cxy = this.cxy,
      cxz = this.cxz;
    const cyx = this.cyx,
      cyy = this.cyy,
      cyz = this.cyz;
    const czx = this.czx,
      czy = this.czy,
      czz = this.czz;
    const lx = this.lx,
      ly = this.ly,
      lz = this.lz;
    const amb = this.ambient,
      keyI = this.keyI,
      headI = this.headI;
    const bgR = to8(this.bgR),
      bgG = to8(this.bgG),
      bgB = to8(this.bgB);

    let idx = 0;
    for (let j = 0; j < H; j++) {
      const v = vTab[j]!;
      for (let i = 0; i < W; i++, idx++) {
        const o3 = 3 * idx;
        const g = ids[idx]!;
        if (g < 0) {
          out[o3] = bgR;
          out[o3 + 1] = bgG;
          out[o3 + 2] = bgB;
          continue;
        }
        const u = uTab[i]!;
        const t = depth[idx]!;
        const g3 = 3 * g,
          g9 = 9 * g;
        // hit point in intersection space
        const qx = gO[g3]! + t * (u * gAx[g3]! + v * gAy[g3]! - gAz[g3]!);
        const qy = gO[g3 + 1]! + t * (u * gAx[g3 + 1]! + v * gAy[g3 + 1]! - gAz[g3 + 1]!);
        const qz = gO[g3 + 2]! + t * (u * gAx[g3 + 2]! + v * gAy[g3 + 2]! - gAz[g3 + 2]!);
        let nx = 0,
          ny = 0,
          nz = 0;
        const s0 = gSize[g3]!,
          s1 = gSize[g3 + 1]!,
          s2 = gSize[g3 + 2]!;
        switch (gType[g]) {
          case GEOM_SPHERE:
            nx = qx;
            ny = qy;
            nz = qz;
            break;
          case GEOM_ELLIPSOID:
            nx = qx * s0;
            ny = qy * s1;
            nz = qz * s2;
            break; // gradient; s = 1/radius
          case GEOM_CAPSULE: {
            const zc = qz > s1 ? s1 : qz < -s1 ? -s1 : qz;
            nx = qx;
            ny = qy;
            nz = qz - zc;
            break;
          }
          case GEOM_CYLINDER: {
            const radial = Math.sqrt(qx * qx + qy * qy);
            if (Math.abs(qz) - s1 > radial - s0) nz = qz > 0 ? 1 : -1;
            else {
              nx = qx;
              ny = qy;
            }
            break;
          }
          case GEOM_BOX: {
            const ex = Math.abs(qx) - s0,
              ey = Math.abs(qy) - s1,
              ez = Math.abs(qz) - s2;
            if (ex >= ey && ex >= ez) nx = qx > 0 ? 1 : -1;
            else if (ey >= ez) ny = qy > 0 ? 1 : -1;
            else nz = qz > 0 ? 1 : -1;
            break;
          }
          case GEOM_MESH: {
            const normal = this.gMesh[g]!.normal,
              k = 3 * this.triBuf[idx]!;
            nx = normal[k]!;
            ny = normal[k + 1]!;
            nz = normal[k + 2]!;
            break;
          }
          default:
            nz = 1;
            break; // plane
        }
        // world normal = R * n
        let wx = gMat[g9]! * nx + gMat[g9 + 1]! * ny + gMat[g9 + 2]! * nz;
        let wy = gMat[g9 + 3]! * nx + gMat[g9 + 4]! * ny + gMat[g9 + 5]! * nz;
        let wz = gMat[g9 + 6]! * nx + gMat[g9 + 7]! * ny + gMat[g9 + 8]! * nz;
        const nl = Math.sqrt(wx * wx + wy * wy + wz * wz);
        if (nl > 0) {
          wx /= nl;
          wy /= nl;
          wz /= nl;
        } else {
          wx = -czx;
          wy = -czy;
          wz = -czz;
        }
        // world ray direction (unnormalised)
        const dx = u * cxx + v * cyx - czx;
        const dy = u * cxy + v * cyy - czy;
        const dz = u * cxz + v * cyz - czz;
        let nd = wx * dx + wy * dy + wz * dz;
        if (nd > 0) {
          wx = -wx;
          wy = -wy;
          wz = -wz;
          nd = -nd;
        } // seen from behind
        const dlen = Math.sqrt(dx * dx + dy * dy + dz * dz);
        let intensity = amb + headI * (-nd / dlen);
        const nL = wx * lx + wy * ly + wz * lz;
        if (nL > 0) {
          let lit = true;
          if (doShadows) {
            PT[0] = cpx + t * dx + SHADOW_OFFSET * wx;
            PT[1] = cpy + t * dy + SHADOW_OFFSET * wy;
            PT[2] = cpz + t * dz + SHADOW_OFFSET * wz;
            lit = !this.occluded(g);
          }
          if (lit) intensity += keyI * nL;
        }
        out[o3] = to8(gRgb[g3]! * intensity);
        out[o3 + 1] = to8(gRgb[g3 + 1]! * intensity);
        out[o3 + 2] = to8(gRgb[g3 + 2]! * intensity);
      }
    }
  }
}

function cellIndex(x: number, min: number, inv: number, G: number): number {
  const i = Math.floor((x - min) * inv);
  return i < 0 ? 0 : i >= G ? G - 1 : i;
}

function clamp01(x: number): number {
  return x > 0 ? (x < 1 ? x : 1) : 0; // NaN -> 0
}

function to8(x: number): number {
  return x > 0 ? (x < 1 ? (x * 255 + 0.5) | 0 : 255) : 0;
}

/**
 * The nearest hit of the ray origin + t·dir (t ≥ tmin) on a mesh, in the mesh's frame: t and the
 * triangle (BVH order), or t = Infinity and -1. The renderer's own routine, for tests and tools.
 */
export function intersectMesh(
  bvh: MeshBvh,
  origin: readonly number[],
  dir: readonly number[],
  tmin = 0,
): { t: number; triangle: number } {
  RAY.set([origin[0]!, origin[1]!, origin[2]!, dir[0]!, dir[1]!, dir[2]!, tmin, Infinity]);
  hitMesh(bvh, false);
  return { t: HIT[0]!, triangle: HIT_TRI[0]! };
}
