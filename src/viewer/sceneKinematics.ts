/**
 * Geometry for the viewer: the robot's MJCF geoms and the task scene's objects, compiled by
 * MuJoCo exactly as the simulator does, and the world pose of every geom for recorded or
 * imagined states by forward kinematics (no physics). The page draws what this sends; it never
 * parses MJCF itself.
 */
import type { RobotDescription } from '../core/robotDescription.ts';
import type { Episode } from '../core/types.ts';
import { loadTaskScene } from '../../sim/taskScene.ts';
import { meshArrays, type MjModelLike, MujocoScene } from '../../sim/render/mujocoScene.ts';
import { Simulator } from '../../sim/simulator.ts';
import { getMujoco, type Mujoco } from '../../sim/mujocoRuntime.ts';
import { GEOM_TYPE, type GeomList, type GeomRole, type MeshGeometry } from './messages.ts';

/** Floats per geom pose: position (3) + row-major rotation (9). */
export const POSE_FLOATS = 12;

/**
 * A state to pose: the episode layout of qpos (arm joints, then gripper opening in [0,1]) and optional object poses.
 */
export interface PoseState {
  qpos: ArrayLike<number>;
  /** Per object: xyz + quaternion wxyz (the simulator's privileged state layout). */
  objects?: ArrayLike<number>;
}

export class SceneKinematics {
  readonly robot: RobotDescription;
  #sim: Simulator;
  #mj: Mujoco;
  #geoms: GeomList | undefined;
  /** The robot's meshes: the only meshes of every scene, so the same for every episode. */
  #meshes: { key: string; meshes: MeshGeometry[] } | undefined;

  private constructor(mj: Mujoco, sim: Simulator) {
    this.#mj = mj;
    this.#sim = sim;
    this.robot = sim.robot;
  }

  static async create(robot: RobotDescription): Promise<SceneKinematics> {
    return new SceneKinematics(await getMujoco(), await Simulator.create({ robot }));
  }

  /** Load the scene an episode ran in (its task and seed reproduce the layout) and list its geoms. */
  load(episode: Episode): GeomList {
    if (episode.robot !== this.robot.name)
      throw new Error(`episode ${episode.id} is for robot '${episode.robot}', the viewer loaded '${this.robot.name}'`);
    loadTaskScene(this.#sim, episode.task, episode.seed);
    const model = this.#sim.model;
    const view = new MujocoScene(model);
    const n = model.ngeom;
    const bodyOf = model.geom_bodyid as Int32Array;
    const rootOf = model.body_rootid as Int32Array;
    const name = (type: number, id: number) => this.#mj.mj_id2name(model, type, id) ?? '';
    const T = this.#mj.mjtObj;
    // The arm is the body tree holding the end-effector site; objects and zones are named by the scene builder.
    const site = this.#mj.mj_name2id(model, T.mjOBJ_SITE.value, this.robot.endEffectorSite);
    const robotRoot = rootOf[(model.site_bodyid as Int32Array)[site]!]!;
    const roles: GeomRole[] = [];
    const names: string[] = [];
    for (let g = 0; g < n; g++) {
      const root = rootOf[bodyOf[g]!]!;
      const rootName = name(T.mjOBJ_BODY.value, root);
      roles.push(root === 0 ? 'world' : root === robotRoot ? 'robot' : rootName.startsWith('zone') ? 'zone' : 'object');
      names.push(name(T.mjOBJ_GEOM.value, g));
    }
    this.#meshes ??= robotMeshes(this.robot.name, model);
    const dataid = model.geom_dataid as Int32Array;
    const types = model.geom_type as Int32Array;
    this.#geoms = {
      count: n,
      type: Array.from(model.geom_type as Int32Array),
      size: Array.from(model.geom_size as Float64Array, (v) => +v.toFixed(6)),
      rgba: Array.from(view.rgba, (v) => +v.toFixed(4)),
      role: roles,
      name: names,
      visible: Array.from(view.visible),
      mesh: Array.from({ length: n }, (_, g) => (types[g] === GEOM_TYPE.mesh ? dataid[g]! : -1)),
      meshKey: this.#meshes.key,
      meshes: this.#meshes.meshes,
    };
    return this.#geoms;
  }

  /**
   * Poses of the given geoms (all when omitted) for each state, N × geoms × 12, and the
   * end-effector position of each state, N × 3. States without object poses keep the objects
   * where the layout (or the previous state) put them.
   */
  poses(states: PoseState[], geoms?: number[]): { poses: Float32Array; ee: Float32Array } {
    const list = this.#geoms;
    if (!list) throw new Error('load() an episode first');
    const ids = geoms ?? Array.from({ length: list.count }, (_, g) => g);
    const poses = new Float32Array(states.length * ids.length * POSE_FLOATS);
    const ee = new Float32Array(states.length * 3);
    const arm = this.robot.arm.joints.length;
    const { open, closed } = this.robot.gripper;
    states.forEach((s, i) => {
      if (s.qpos.length < arm + 1)
        throw new Error(
          `a state has ${s.qpos.length} joint values; robot '${this.robot.name}' ` +
            `needs ${arm + 1} (arm joints, then gripper opening)`,
        );
      const opening = Math.min(1, Math.max(0, s.qpos[arm]!));
      this.#sim.setPose({
        arm: Array.from({ length: arm }, (_, j) => s.qpos[j]!),
        finger: closed + opening * (open - closed),
        ...(s.objects ? { objects: s.objects } : {}),
      });
      const data = this.#sim.data;
      const xpos = data.geom_xpos as Float64Array;
      const xmat = data.geom_xmat as Float64Array;
      ids.forEach((g, j) => {
        const o = (i * ids.length + j) * POSE_FLOATS;
        for (let k = 0; k < 3; k++) poses[o + k] = xpos[3 * g + k]!;
        for (let k = 0; k < 9; k++) poses[o + 3 + k] = xmat[9 * g + k]!;
      });
      ee.set(this.#sim.endEffector().pos, 3 * i);
    });
    return { poses, ee };
  }

  /** Object count of the loaded scene. */
  get objectCount(): number {
    return this.#sim.objectCount;
  }

  close(): void {
    this.#sim.close();
  }
}

/** A model's meshes and a key naming them (robot and a hash of the data, so a changed mesh is sent again). */
function robotMeshes(robot: string, model: MjModelLike): { key: string; meshes: MeshGeometry[] } {
  const meshes: MeshGeometry[] = [];
  let hash = 2166136261;
  for (let m = 0; m < (model.nmesh ?? 0); m++) {
    const mesh = meshArrays(model, m);
    for (const array of [new Uint32Array(mesh.vertices.buffer), mesh.faces])
      for (let i = 0; i < array.length; i++) hash = Math.imul(hash ^ array[i]!, 16777619) >>> 0;
    meshes.push(mesh);
  }
  return { key: `${robot}:${meshes.length}:${hash.toString(16)}`, meshes };
}

/** The per-step states of a recorded episode (object poses from its privileged state, when recorded). */
export function episodeStates(episode: Episode, objectCount: number): PoseState[] {
  const { qposDim: Q, stateDim: S, steps } = episode;
  const hasObjects = S >= 7 * objectCount && episode.state.length === (steps + 1) * S && objectCount > 0;
  return Array.from({ length: steps + 1 }, (_, t) => ({
    qpos: episode.qpos.subarray(t * Q, (t + 1) * Q),
    ...(hasObjects ? { objects: episode.state.subarray(t * S, t * S + 7 * objectCount) } : {}),
  }));
}
