/**
 * Glue between a `mujoco` (WASM) model/data pair and RayRenderer inputs.
 *
 * Structural types only, so this module does not import the mujoco package.
 * Field views are re-read from model/data on every call (WASM memory growth can
 * detach old typed-array views); nothing per frame is allocated by this module
 * except those views, which the bindings create.
 */
import type { CameraPose, SceneGeoms } from './rayRenderer.ts';

export interface MjModelLike {
  ngeom: number;
  ncam: number;
  readonly geom_type: ArrayLike<number>;
  readonly geom_size: ArrayLike<number>;
  readonly geom_rgba: ArrayLike<number>;
  readonly geom_group: ArrayLike<number>;
  readonly geom_matid: ArrayLike<number>;
  readonly mat_rgba: ArrayLike<number>;
  readonly cam_fovy: ArrayLike<number>;
}

export interface MjDataLike {
  readonly geom_xpos: ArrayLike<number>;
  readonly geom_xmat: ArrayLike<number>;
  readonly cam_xpos: ArrayLike<number>;
  readonly cam_xmat: ArrayLike<number>;
}

export interface MujocoSceneOptions {
  /** Geom groups to show (MuJoCo's viewer default shows groups 0, 1, 2). */
  groups?: readonly number[];
  /** Extra per-geom mask (1 = show), e.g. to hide the robot's own gripper for a wrist camera. */
  visible?: ArrayLike<number>;
}

/**
 * Resolves geom colours once (geom rgba, or the material rgba when the geom keeps
 * MuJoCo's default 0.5/0.5/0.5/1 and has a material, as mjv does) and the
 * group-based visibility mask, then hands out SceneGeoms / CameraPose views.
 */
export class MujocoScene {
  readonly rgba: Float64Array;
  readonly visible: Uint8Array;
  private readonly scene: SceneGeoms;
  private readonly cam: { pos: Float64Array; mat: Float64Array; fovy: number };

  constructor(
    private readonly model: MjModelLike,
    opts: MujocoSceneOptions = {},
  ) {
    const n = model.ngeom;
    const groups = new Set(opts.groups ?? [0, 1, 2]);
    const grgba = model.geom_rgba;
    const matid = model.geom_matid;
    const mrgba = model.mat_rgba;
    const group = model.geom_group;
    this.rgba = new Float64Array(4 * n);
    this.visible = new Uint8Array(n);
    for (let g = 0; g < n; g++) {
      const r = grgba[4 * g]!,
        gg = grgba[4 * g + 1]!,
        b = grgba[4 * g + 2]!,
        a = grgba[4 * g + 3]!;
      const mid = matid[g]!;
      const isDefault =
        Math.fround(r) === Math.fround(0.5) &&
        Math.fround(gg) === Math.fround(0.5) &&
        Math.fround(b) === Math.fround(0.5) &&
        a === 1;
      for (let k = 0; k < 4; k++) {
        this.rgba[4 * g + k] = mid >= 0 && isDefault ? mrgba[4 * mid + k]! : grgba[4 * g + k]!;
      }
      const extra = opts.visible === undefined ? 1 : opts.visible[g]!;
      this.visible[g] = groups.has(group[g]!) && extra ? 1 : 0;
    }
    this.scene = {
      ngeom: n,
      type: model.geom_type,
      size: model.geom_size,
      xpos: new Float64Array(3 * n),
      xmat: new Float64Array(9 * n),
      rgba: this.rgba,
      visible: this.visible,
    };
    this.cam = { pos: new Float64Array(3), mat: new Float64Array(9), fovy: 45 };
  }

  /** Scene geoms for the current data (call after mj_forward / mj_step). The returned object is reused. */
  geoms(data: MjDataLike): SceneGeoms {
    this.scene.type = this.model.geom_type;
    this.scene.size = this.model.geom_size;
    this.scene.xpos = data.geom_xpos;
    this.scene.xmat = data.geom_xmat;
    return this.scene;
  }

  /** Pose of MJCF camera `camId` for the current data. The returned object is reused. */
  camera(data: MjDataLike, camId: number): CameraPose {
    if (!(camId >= 0 && camId < this.model.ncam)) throw new Error(`MujocoScene: camera id ${camId} out of range`);
    const p = data.cam_xpos,
      m = data.cam_xmat;
    for (let k = 0; k < 3; k++) this.cam.pos[k] = p[3 * camId + k]!;
    for (let k = 0; k < 9; k++) this.cam.mat[k] = m[9 * camId + k]!;
    this.cam.fovy = this.model.cam_fovy[camId]!;
    return this.cam;
  }
}
