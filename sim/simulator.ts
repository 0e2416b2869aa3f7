/**
 * The MuJoCo simulation of one robot in a task scene. It knows physics, scene state and
 * cameras; tasks and actions are the Env adapter's business (src/envs/simEnv.ts).
 */
import type { MjData, MjModel } from 'mujoco';
import type { RobotDescription } from '../src/core/robotDescription.ts';
import type { Image } from '../src/core/types.ts';
import { getMujoco, type Mujoco } from './mujocoRuntime.ts';
import { armReach, layoutScale } from './armReach.ts';
import { fingerCoupling, type FingerPositions } from './fingerCoupling.ts';
import { compileRobotScene } from './robotModel.ts';
import { buildSceneXml, structureKey, structureOf, type SceneStructure } from './sceneBuilder.ts';
import type { ColorName } from '../src/tasks/vocabulary.ts';
import { COLOR_RGB } from './colorRgb.ts';
import type { SceneLayout } from './layout.ts';
import { RayRenderer } from './render/rayRenderer.ts';
import { MujocoScene } from './render/mujocoScene.ts';

/** Indices into one compiled scene model, looked up once per model. */
interface ModelIndex {
  armQposAdr: number[];
  armDofAdr: number[];
  armActuators: number[];
  gripperActuator: number;
  fingerQposAdr: number[];
  fingerDofAdr: number[];
  /** Every finger's position given the first's (the gripper's coupling). */
  fingers: FingerPositions;
  objectQposAdr: number[];
  objectGeoms: number[];
  zoneMocap: number[];
  zoneGeoms: number[];
  eeSite: number;
  cameras: Map<string, number>;
}

interface CompiledScene {
  model: MjModel;
  index: ModelIndex;
  /** The model's size (mj_sizeModel). */
  bytes: number;
}

/**
 * Bytes of compiled scene models a simulator keeps (the most recently used, by MuJoCo's mj_sizeModel; the loaded
 * one always): every distinct mix of objects compiles the arm anew, and a mesh arm's model is tens of megabytes of
 * the 2 GB WebAssembly heap, so keeping every one runs out of memory after a few dozen scenes. A freed model's memory
 * is reused by the next. A primitive arm's scenes (tens of kilobytes each) all stay.
 */
export const MAX_COMPILED_SCENE_BYTES = 256 * 2 ** 20;

export interface SimulatorOptions {
  /** Physics steps per control tick follow from the model timestep and the robot's control rate. */
  robot: RobotDescription;
  /** Bytes of compiled scene models kept (default MAX_COMPILED_SCENE_BYTES). */
  compiledSceneBytes?: number;
}

export class Simulator {
  readonly robot: RobotDescription;
  readonly substeps: number;
  /** The arm's reach (m, armReach.ts) and the task layout's scale that follows from it (1 for vx300). */
  readonly reach: number;
  readonly layoutScale: number;
  #mj: Mujoco;
  #scenes = new Map<string, CompiledScene>();
  #sceneBytes: number;
  #scene: CompiledScene | undefined;
  #data: MjData | undefined;
  /** Render view of the loaded scene (colours resolved after load() sets them). */
  #view: MujocoScene | undefined;
  #renderers = new Map<string, RayRenderer>();
  #id: number;
  static #instances = 0;

  private constructor(mj: Mujoco, robot: RobotDescription, sceneBytes = MAX_COMPILED_SCENE_BYTES) {
    this.#mj = mj;
    this.robot = robot;
    this.#sceneBytes = sceneBytes;
    this.#id = Simulator.#instances++;
    // Compile a probe scene once to validate the robot's MJCF against its description early.
    this.layoutScale = 1;
    const probe = this.#compile({ objects: [], zones: 0 });
    const timestep = probe.model.opt.timestep;
    this.reach = armReach(mj, probe.model, robot);
    this.layoutScale = layoutScale(this.reach);
    if (this.layoutScale !== 1) {
      // The probe's table was sized for scale 1; the next scene without objects compiles again.
      this.#scenes.clear();
      probe.model.delete();
    }
    this.substeps = Math.max(1, Math.round(1 / robot.controlHz / timestep));
    for (const cam of robot.cameras)
      this.#renderers.set(cam.name, new RayRenderer({ width: cam.width, height: cam.height }));
  }

  static async create(options: SimulatorOptions): Promise<Simulator> {
    return new Simulator(await getMujoco(), options.robot, options.compiledSceneBytes);
  }

  get model(): MjModel {
    return this.#current().model;
  }

  get data(): MjData {
    if (!this.#data) throw new Error('simulator has no scene loaded: call load() first');
    return this.#data;
  }

  /** Simulated seconds since load(). */
  get time(): number {
    return this.data.time;
  }

  /** Build (or reuse) the scene for `layout`, put the arm at home with the gripper open. */
  load(layout: SceneLayout): void {
    const scene = this.#compile(structureOf(layout));
    this.#data?.delete();
    this.#scene = scene;
    const data = new this.#mj.MjData(scene.model);
    this.#data = data;
    const { model, index } = scene;
    const qpos = data.qpos as Float64Array;
    const ctrl = data.ctrl as Float64Array;
    this.robot.arm.home.forEach((q, i) => {
      qpos[index.armQposAdr[i]!] = q;
      ctrl[index.armActuators[i]!] = q;
    });
    const fingers = index.fingers(this.robot.gripper.open);
    index.fingerQposAdr.forEach((adr, i) => (qpos[adr] = fingers[i]!));
    ctrl[index.gripperActuator] = this.robot.gripper.open;
    const rgba = model.geom_rgba as Float32Array;
    layout.objects.forEach((o, i) => {
      const adr = index.objectQposAdr[i]!;
      qpos.set([o.pos[0], o.pos[1], o.pos[2], Math.cos(o.yaw / 2), 0, 0, Math.sin(o.yaw / 2)], adr);
      setColor(rgba, index.objectGeoms[i]!, o.color);
    });
    const mocap = data.mocap_pos as Float64Array;
    layout.zones.forEach((z, i) => {
      mocap.set([z.pos[0], z.pos[1], 0], 3 * index.zoneMocap[i]!);
      setColor(rgba, index.zoneGeoms[i]!, z.color);
    });
    this.#mj.mj_forward(model, data);
    this.#view = new MujocoScene(model);
  }

  /** Set the arm's joint targets (radians) and the gripper target, then advance one control tick. */
  tick(armTargets: ArrayLike<number>, gripperTarget: number): void {
    const { model, index } = this.#current();
    const data = this.data;
    const ctrl = data.ctrl as Float64Array;
    for (let i = 0; i < index.armActuators.length; i++) ctrl[index.armActuators[i]!] = armTargets[i]!;
    ctrl[index.gripperActuator] = gripperTarget;
    for (let s = 0; s < this.substeps; s++) this.#mj.mj_step(model, data);
  }

  /**
   * Place the loaded scene in a recorded state by forward kinematics only (no physics step):
   * arm joint positions, finger position (m, as `gripperState`) and, optionally, object poses
   * (xyz + quaternion wxyz per object, as `objectPose`; objects not given stay put). For viewers
   * that replay episodes.
   */
  setPose(pose: { arm: ArrayLike<number>; finger: number; objects?: ArrayLike<number> }): void {
    const { model, index } = this.#current();
    const qpos = this.data.qpos as Float64Array;
    index.armQposAdr.forEach((adr, i) => (qpos[adr] = pose.arm[i]!));
    const fingers = index.fingers(pose.finger);
    index.fingerQposAdr.forEach((adr, i) => (qpos[adr] = fingers[i]!));
    const objects = pose.objects ?? [];
    // Objects beyond those given stay where they are.
    for (let i = 0; i < Math.min(index.objectQposAdr.length, Math.floor(objects.length / 7)); i++) {
      for (let k = 0; k < 7; k++) qpos[index.objectQposAdr[i]! + k] = objects[7 * i + k]!;
    }
    this.#mj.mj_kinematics(model, this.data);
  }

  armQpos(): Float64Array {
    const qpos = this.data.qpos as Float64Array;
    return Float64Array.from(this.#current().index.armQposAdr, (a) => qpos[a]!);
  }

  armQvel(): Float64Array {
    const qvel = this.data.qvel as Float64Array;
    return Float64Array.from(this.#current().index.armDofAdr, (a) => qvel[a]!);
  }

  /** Finger position (m from the gripper centre) and velocity, of the first finger. */
  gripperState(): { position: number; velocity: number } {
    const { index } = this.#current();
    return {
      position: (this.data.qpos as Float64Array)[index.fingerQposAdr[0]!]!,
      velocity: (this.data.qvel as Float64Array)[index.fingerDofAdr[0]!]!,
    };
  }

  /** Object i's position xyz and quaternion wxyz. */
  objectPose(i: number): Float64Array {
    const adr = this.#current().index.objectQposAdr[i];
    if (adr === undefined) throw new Error(`scene has no object ${i}`);
    return (this.data.qpos as Float64Array).slice(adr, adr + 7);
  }

  get objectCount(): number {
    return this.#current().index.objectQposAdr.length;
  }

  zonePosition(i: number): Float64Array {
    const id = this.#current().index.zoneMocap[i];
    if (id === undefined) throw new Error(`scene has no zone ${i}`);
    return (this.data.mocap_pos as Float64Array).slice(3 * id, 3 * id + 3);
  }

  /** The world position of a site or body of the robot's model, by its name in the MJCF. */
  namedPosition(kind: 'site' | 'body', name: string): Float64Array {
    const mj = this.#mj;
    const { model } = this.#current();
    const type = kind === 'site' ? mj.mjtObj.mjOBJ_SITE : mj.mjtObj.mjOBJ_BODY;
    const id = mj.mj_name2id(model, type.value, name);
    if (id < 0)
      throw new Error(`robot '${this.robot.name}' has no ${kind} '${name}' (a task family's ${kind}:${name})`);
    const xpos = (kind === 'site' ? this.data.site_xpos : this.data.xpos) as Float64Array;
    return xpos.slice(3 * id, 3 * id + 3);
  }

  /** End-effector site position (world) and orientation (row-major 3×3). */
  endEffector(): { pos: Float64Array; mat: Float64Array } {
    const site = this.#current().index.eeSite;
    return {
      pos: (this.data.site_xpos as Float64Array).slice(3 * site, 3 * site + 3),
      mat: (this.data.site_xmat as Float64Array).slice(9 * site, 9 * site + 9),
    };
  }

  /** Render a camera of the robot description; deterministic for a given state. */
  render(camera: string): Image {
    const { index } = this.#current();
    const renderer = this.#renderers.get(camera);
    const id = index.cameras.get(camera);
    if (!renderer || id === undefined)
      throw new Error(`unknown camera '${camera}'; cameras: ${[...this.#renderers.keys()].join(', ')}`);
    const view = this.#view!;
    // render() returns a fresh buffer per call, so frames can be kept without copying.
    const pixels = renderer.render(view.geoms(this.data), view.camera(this.data, id));
    return { width: renderer.width, height: renderer.height, data: pixels };
  }

  close(): void {
    this.#data?.delete();
    this.#data = undefined;
    this.#view = undefined;
    for (const s of this.#scenes.values()) s.model.delete();
    this.#scenes.clear();
    this.#scene = undefined;
  }

  #current(): CompiledScene {
    if (!this.#scene) throw new Error('simulator has no scene loaded: call load() first');
    return this.#scene;
  }

  #compile(structure: SceneStructure): CompiledScene {
    const key = structureKey(structure);
    const cached = this.#scenes.get(key);
    if (cached) {
      // The most recently used last: re-inserting moves it there.
      this.#scenes.delete(key);
      this.#scenes.set(key, cached);
      return cached;
    }
    this.#evictScenes();
    const model = compileRobotScene(
      this.#mj,
      this.robot,
      (robotFile) => buildSceneXml(this.robot, structure, { robotFile, scale: this.layoutScale }),
      `sim${this.#id}`,
    );
    try {
      const scene = { model, index: this.#indexModel(model, structure), bytes: Number(this.#mj.mj_sizeModel(model)) };
      this.#scenes.set(key, scene);
      return scene;
    } catch (err) {
      model.delete();
      throw err;
    }
  }

  /** Free the least recently used compiled scenes (never the loaded one) while they hold more than the budget. */
  #evictScenes(budget = this.#sceneBytes): void {
    let held = this.compiledSceneBytes;
    for (const [key, scene] of this.#scenes) {
      if (held <= budget) return;
      if (scene === this.#scene) continue;
      scene.model.delete();
      this.#scenes.delete(key);
      held -= scene.bytes;
    }
  }

  /** The compiled scene models this simulator holds: how many, and their bytes (mj_sizeModel). */
  get compiledScenes(): number {
    return this.#scenes.size;
  }

  get compiledSceneBytes(): number {
    let bytes = 0;
    for (const s of this.#scenes.values()) bytes += s.bytes;
    return bytes;
  }

  #indexModel(model: MjModel, structure: SceneStructure): ModelIndex {
    const mj = this.#mj;
    const T = mj.mjtObj;
    const id = (type: { value: number }, kind: string, name: string): number => {
      const i = mj.mj_name2id(model, type.value, name);
      if (i < 0)
        throw new Error(`robot '${this.robot.name}': ${kind} '${name}' named in robot.yaml is missing from the MJCF`);
      return i;
    };
    const jntQposAdr = model.jnt_qposadr as Int32Array;
    const jntDofAdr = model.jnt_dofadr as Int32Array;
    const armJoints = this.robot.arm.joints.map((j) => id(T.mjOBJ_JOINT, 'joint', j.name));
    const fingerJoints = this.robot.gripper.joints.map((j) => id(T.mjOBJ_JOINT, 'joint', j));
    const bodyMocap = model.body_mocapid as Int32Array;
    const cameras = new Map<string, number>();
    for (const cam of this.robot.cameras) cameras.set(cam.name, id(T.mjOBJ_CAMERA, 'camera', cam.name));
    return {
      armQposAdr: armJoints.map((j) => jntQposAdr[j]!),
      armDofAdr: armJoints.map((j) => jntDofAdr[j]!),
      armActuators: this.robot.arm.joints.map((j) => id(T.mjOBJ_ACTUATOR, 'actuator', j.actuator ?? j.name)),
      gripperActuator: id(T.mjOBJ_ACTUATOR, 'actuator', this.robot.gripper.actuator),
      fingerQposAdr: fingerJoints.map((j) => jntQposAdr[j]!),
      fingerDofAdr: fingerJoints.map((j) => jntDofAdr[j]!),
      fingers: fingerCoupling(mj, model, fingerJoints),
      objectQposAdr: structure.objects.map((_, i) => jntQposAdr[id(T.mjOBJ_JOINT, 'joint', `object${i}`)]!),
      objectGeoms: structure.objects.map((_, i) => id(T.mjOBJ_GEOM, 'geom', `object${i}`)),
      zoneMocap: Array.from({ length: structure.zones }, (_, i) => bodyMocap[id(T.mjOBJ_BODY, 'body', `zone${i}`)]!),
      zoneGeoms: Array.from({ length: structure.zones }, (_, i) => id(T.mjOBJ_GEOM, 'geom', `zone${i}`)),
      eeSite: id(T.mjOBJ_SITE, 'site', this.robot.endEffectorSite),
      cameras,
    };
  }
}

function setColor(rgba: Float32Array, geom: number, color: ColorName): void {
  const c = COLOR_RGB[color];
  rgba.set([c[0], c[1], c[2], 1], 4 * geom);
}
