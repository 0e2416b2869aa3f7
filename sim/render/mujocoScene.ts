/**
 * Glue between a `mujoco` (WASM) model/data pair and RayRenderer inputs.
 *
 * Structural types only, so this module does not import the mujoco package.
 * Field views are re-read from model/data on every call (WASM memory growth can
 * detach old typed-array views); nothing per frame is allocated by this module
 * except those views, which the bindings create.
 */
import { MeshBvh } from './meshBvh.ts';
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
  /** Meshes (absent in hand-made models without any). */
  nmesh?: number;
  readonly geom_dataid?: ArrayLike<number>;
  readonly mesh_vert?: ArrayLike<number>;
  readonly mesh_vertadr?: ArrayLike<number>;
  readonly mesh_vertnum?: ArrayLike<number>;
  readonly mesh_face?: ArrayLike<number>;
  readonly mesh_faceadr?: ArrayLike<number>;
  readonly mesh_facenum?: ArrayLike<number>;
  /** Textures (absent in hand-made models without any). */
  nmat?: number;
  ntex?: number;
  readonly mat_texid?: ArrayLike<number>;
  readonly tex_data?: ArrayLike<number>;
  readonly tex_adr?: ArrayLike<number | bigint>;
  readonly tex_width?: ArrayLike<number>;
  readonly tex_height?: ArrayLike<number>;
  readonly tex_nchannel?: ArrayLike<number>;
}

/** Texture roles per material in mat_texid (mjNTEXROLE) and the colour roles among them (mjTEXROLE_RGB, _RGBA). */
const TEXTURE_ROLES = 10;
const COLOUR_ROLES = [1, 8];

const textureCache = new WeakMap<object, (Float64Array | null)[]>();

/**
 * Per material, the mean colour of its colour texture (null without one). The renderer draws no
 * textures; a material whose look is all texture (Menagerie's arms: white rgba, a black texture)
 * is drawn in the texture's mean colour instead of white.
 */
export function materialTextureColours(model: MjModelLike): (Float64Array | null)[] {
  const cached = textureCache.get(model);
  if (cached) return cached;
  const nmat = model.nmat ?? 0;
  const out: (Float64Array | null)[] = new Array(nmat).fill(null);
  if ((model.ntex ?? 0) > 0 && model.mat_texid && model.tex_data) {
    const texid = model.mat_texid,
      data = model.tex_data,
      adr = model.tex_adr!,
      width = model.tex_width!,
      height = model.tex_height!,
      channels = model.tex_nchannel!;
    const means = new Map<number, Float64Array>();
    for (let m = 0; m < nmat; m++) {
      const t = COLOUR_ROLES.map((role) => texid[m * TEXTURE_ROLES + role]!).find((id) => id >= 0);
      if (t === undefined) continue;
      let mean = means.get(t);
      if (!mean) {
        const nc = channels[t]!,
          texels = width[t]! * height[t]!,
          start = Number(adr[t]!); // mjtSize: a BigInt64Array in the bindings
        mean = new Float64Array(3).fill(1);
        if (nc >= 3 && texels > 0) {
          const sum = [0, 0, 0];
          for (let i = 0; i < texels; i++) for (let c = 0; c < 3; c++) sum[c]! += data[start + i * nc + c]!;
          for (let c = 0; c < 3; c++) mean[c] = sum[c]! / texels / 255;
        }
        means.set(t, mean);
      }
      out[m] = mean;
    }
  }
  textureCache.set(model, out);
  return out;
}

/** The model's meshes as BVHs, built once per model object. */
const meshCache = new WeakMap<object, MeshBvh[]>();

export function modelMeshes(model: MjModelLike): MeshBvh[] {
  const cached = meshCache.get(model);
  if (cached) return cached;
  const meshes: MeshBvh[] = [];
  for (let m = 0; m < (model.nmesh ?? 0); m++) {
    const { vertices, faces } = meshArrays(model, m);
    meshes.push(MeshBvh.build(vertices, faces));
  }
  meshCache.set(model, meshes);
  return meshes;
}

/** Mesh m's vertices (xyz, in the frame MuJoCo poses its geoms in) and faces (vertex indices within the mesh). */
export function meshArrays(model: MjModelLike, m: number): { vertices: Float32Array; faces: Uint32Array } {
  // Each read of a model field makes a new view of WASM memory: read each once.
  const vadr = model.mesh_vertadr![m]!,
    vnum = model.mesh_vertnum![m]!;
  const fadr = model.mesh_faceadr![m]!,
    fnum = model.mesh_facenum![m]!;
  const vert = model.mesh_vert!,
    face = model.mesh_face!;
  const vertices = new Float32Array(3 * vnum);
  for (let i = 0; i < vertices.length; i++) vertices[i] = vert[3 * vadr + i]!;
  const faces = new Uint32Array(3 * fnum);
  for (let i = 0; i < faces.length; i++) faces[i] = face[3 * fadr + i]!;
  return { vertices, faces };
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
 * MuJoCo's default 0.5/0.5/0.5/1 and has a material, as mjv does, times the mean colour of
 * the material's texture) and the
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
    const textures = materialTextureColours(model);
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
      const fromMaterial = mid >= 0 && isDefault;
      for (let k = 0; k < 4; k++) this.rgba[4 * g + k] = fromMaterial ? mrgba[4 * mid + k]! : grgba[4 * g + k]!;
      const texture = fromMaterial ? textures[mid] : null;
      if (texture) for (let k = 0; k < 3; k++) this.rgba[4 * g + k]! *= texture[k]!;
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
      ...((model.nmesh ?? 0) > 0 ? { dataid: model.geom_dataid, meshes: modelMeshes(model) } : {}),
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
