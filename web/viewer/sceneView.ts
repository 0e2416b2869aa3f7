/**
 * The 3D view: MuJoCo geoms as three.js meshes (z-up world, as MuJoCo), posed per time step
 * from the server's geom poses. The real episode is solid; each ensemble member's imagined
 * arm (and objects, when the model predicts them) is a translucent ghost coloured by how far
 * that member's end effector is from the ensemble mean at that step (blue: agrees, red: ≥ 5 cm
 * off). End-effector paths: real solid black, imagined per member in its ghost colour. Mesh
 * geoms are drawn as their meshes, built once per mesh set (the server sends a set once).
 */
import * as THREE from 'three';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';
import { GEOM_TYPE, type EpisodeView, type GeomList, type MeshGeometry } from '../../src/viewer/messages.ts';

const POSE = 12;
/** Member deviation (m) shown fully red. */
export const DEVIATION_SCALE = 0.05;

export class SceneView {
  readonly renderer: THREE.WebGLRenderer;
  #scene = new THREE.Scene();
  #camera: THREE.PerspectiveCamera;
  #controls: OrbitControls;
  #content = new THREE.Group();
  #real: THREE.Mesh[] = [];
  #ghosts: { meshes: THREE.Mesh[]; material: THREE.MeshStandardMaterial; path: THREE.Line }[] = [];
  #view: EpisodeView | null = null;
  /** The robot's meshes as three.js geometries, kept across episodes of the same mesh set. */
  #meshes: { key: string; geometries: THREE.BufferGeometry[] } | null = null;
  #frame = 0;
  #dirty = true;
  /** The frame the canvas last showed (tests and the readout wait on it). */
  renderedFrame = -1;

  constructor(canvas: HTMLCanvasElement) {
    // preserveDrawingBuffer: the canvas can be read back (screenshots, pixel checks).
    this.renderer = new THREE.WebGLRenderer({ canvas, antialias: true, preserveDrawingBuffer: true });
    this.renderer.setPixelRatio(Math.min(2, window.devicePixelRatio));
    this.#scene.background = new THREE.Color(0xdfe3e8);
    this.#camera = new THREE.PerspectiveCamera(45, 1, 0.01, 20);
    this.#camera.up.set(0, 0, 1);
    this.#camera.position.set(0.95, -0.75, 0.65);
    this.#controls = new OrbitControls(this.#camera, canvas);
    this.#controls.target.set(0.28, 0, 0.12);
    this.#controls.update();
    this.#controls.addEventListener('change', () => (this.#dirty = true));
    this.#scene.add(new THREE.HemisphereLight(0xffffff, 0x666666, 1.6));
    const sun = new THREE.DirectionalLight(0xffffff, 1.6);
    sun.position.set(0.5, -0.8, 1.5);
    this.#scene.add(sun);
    this.#scene.add(this.#content);
    new ResizeObserver(() => this.#resize()).observe(canvas);
    this.#resize();
    const loop = () => {
      if (this.#dirty) this.#render();
      requestAnimationFrame(loop);
    };
    requestAnimationFrame(loop);
  }

  /** Show an episode: rebuild the meshes for its scene and ensemble. */
  show(view: EpisodeView, frame: number): void {
    this.#clear();
    this.#view = view;
    const g = view.geoms;
    const meshes = this.#meshGeometries(g);
    for (let i = 0; i < g.count; i++) {
      const meshId = g.mesh[i]!;
      const mesh = new THREE.Mesh(
        meshId >= 0 ? meshes[meshId]! : geometryOf(g, i),
        new THREE.MeshStandardMaterial({
          color: new THREE.Color(g.rgba[4 * i]!, g.rgba[4 * i + 1]!, g.rgba[4 * i + 2]!),
          roughness: 0.7,
          metalness: 0.05,
          // MuJoCo meshes (STL boxes and the like) read best with one normal per face.
          flatShading: meshId >= 0,
        }),
      );
      mesh.matrixAutoUpdate = false;
      mesh.visible = g.visible[i] === 1;
      this.#real.push(mesh);
      this.#content.add(mesh);
    }
    this.#content.add(pathLine(view.ee, 0x111111, 1));
    const im = view.imagined;
    if (im) {
      for (let k = 0; k < im.members; k++) {
        // Pulled towards the camera: where a member agrees with
        // reality its ghost tints the arm instead of z-fighting it.
        const material = new THREE.MeshStandardMaterial({
          color: 0x3477ff,
          transparent: true,
          opacity: ghostOpacity(im.members),
          depthWrite: false,
          roughness: 0.9,
          polygonOffset: true,
          polygonOffsetFactor: -1,
          polygonOffsetUnits: -4,
        });
        const meshes = im.ghostGeoms.map((geom) => {
          const mesh = new THREE.Mesh(this.#real[geom]!.geometry, material);
          mesh.matrixAutoUpdate = false;
          mesh.renderOrder = 1;
          this.#content.add(mesh);
          return mesh;
        });
        const ee = new Float32Array((im.horizon + 1) * 3);
        for (let t = 0; t <= im.horizon; t++)
          ee.set(im.ghostEe.subarray((t * im.members + k) * 3, (t * im.members + k) * 3 + 3), t * 3);
        const path = pathLine(ee, 0x3477ff, 0.8);
        this.#content.add(path);
        this.#ghosts.push({ meshes, material, path });
      }
    }
    this.setFrame(frame);
  }

  setFrame(frame: number): void {
    const view = this.#view;
    if (!view) return;
    const T = view.poses.length / (view.geoms.count * POSE) - 1;
    this.#frame = Math.max(0, Math.min(T, frame));
    const base = this.#frame * view.geoms.count * POSE;
    this.#real.forEach((mesh, i) => setPose(mesh, view.poses, base + i * POSE));
    const im = view.imagined;
    if (im) {
      const t = Math.min(this.#frame, im.horizon);
      const deviation = memberDeviation(im.ghostEe, t, im.members);
      this.#ghosts.forEach((ghost, k) => {
        ghost.meshes.forEach((mesh, j) =>
          setPose(mesh, im.ghostPoses, ((t * im.members + k) * im.ghostGeoms.length + j) * POSE),
        );
        const colour = deviationColour(deviation[k]!);
        ghost.material.color.copy(colour);
        (ghost.path.material as THREE.LineBasicMaterial).color.copy(colour);
      });
    }
    this.#dirty = true;
  }

  get frame(): number {
    return this.#frame;
  }

  /** Triangles drawn for mesh geoms in the shown episode (tests check a mesh arrived and is drawn). */
  get meshTriangles(): number {
    const g = this.#view?.geoms;
    if (!g) return 0;
    return this.#real.reduce((sum, mesh, i) => {
      if (g.mesh[i]! < 0 || !mesh.visible) return sum;
      const index = mesh.geometry.getIndex();
      return sum + (index ? index.count / 3 : 0);
    }, 0);
  }

  /** The geometries of the episode's mesh set: built from the message, or the ones built before. */
  #meshGeometries(g: GeomList): THREE.BufferGeometry[] {
    if (g.meshes) {
      for (const geometry of this.#meshes?.geometries ?? []) geometry.dispose();
      this.#meshes = { key: g.meshKey, geometries: g.meshes.map(meshGeometry) };
    } else if (this.#meshes?.key !== g.meshKey) {
      throw new Error(`episode names mesh set ${g.meshKey}, which this page was never sent`);
    }
    return this.#meshes!.geometries;
  }

  #render(): void {
    this.#dirty = false;
    this.renderer.render(this.#scene, this.#camera);
    this.renderedFrame = this.#view ? this.#frame : -1;
  }

  #resize(): void {
    const canvas = this.renderer.domElement;
    const w = Math.max(1, canvas.clientWidth);
    const h = Math.max(1, canvas.clientHeight);
    this.renderer.setSize(w, h, false);
    this.#camera.aspect = w / h;
    this.#camera.updateProjectionMatrix();
    this.#dirty = true;
  }

  #clear(): void {
    for (const obj of [...this.#content.children]) {
      this.#content.remove(obj);
      if (obj instanceof THREE.Line) {
        obj.geometry.dispose();
        (obj.material as THREE.Material).dispose();
      }
    }
    const view = this.#view;
    this.#real.forEach((mesh, i) => {
      // Mesh geometries are kept for the next episode of the same robot.
      if (!view || view.geoms.mesh[i]! < 0) mesh.geometry.dispose();
      (mesh.material as THREE.Material).dispose();
    });
    for (const g of this.#ghosts) g.material.dispose();
    this.#real = [];
    this.#ghosts = [];
  }
}

/** A geom's shape in its own frame (MuJoCo sizes are half-extents; capsules and cylinders run along z). */
function geometryOf(g: GeomList, i: number): THREE.BufferGeometry {
  const [a, b, c] = [g.size[3 * i]!, g.size[3 * i + 1]!, g.size[3 * i + 2]!];
  switch (g.type[i]) {
    case GEOM_TYPE.plane:
      return new THREE.PlaneGeometry(2 * (a || 1), 2 * (b || 1));
    case GEOM_TYPE.sphere:
      return new THREE.SphereGeometry(a, 24, 16);
    case GEOM_TYPE.ellipsoid:
      return new THREE.SphereGeometry(1, 24, 16).scale(a, b, c);
    case GEOM_TYPE.capsule:
      return new THREE.CapsuleGeometry(a, 2 * b, 6, 16).rotateX(Math.PI / 2);
    case GEOM_TYPE.cylinder:
      return new THREE.CylinderGeometry(a, a, 2 * b, 24).rotateX(Math.PI / 2);
    case GEOM_TYPE.box:
      return new THREE.BoxGeometry(2 * a, 2 * b, 2 * c);
    default:
      // Height fields and other types: a small marker, so the geom is at least located.
      return new THREE.SphereGeometry(0.01, 8, 6);
  }
}

function meshGeometry(m: MeshGeometry): THREE.BufferGeometry {
  const geometry = new THREE.BufferGeometry();
  geometry.setAttribute('position', new THREE.BufferAttribute(m.vertices, 3));
  geometry.setIndex(new THREE.BufferAttribute(m.faces, 1));
  geometry.computeBoundingSphere();
  return geometry;
}

function setPose(mesh: THREE.Object3D, poses: Float32Array, o: number): void {
  const p = poses;
  mesh.matrix.set(
    p[o + 3]!,
    p[o + 4]!,
    p[o + 5]!,
    p[o]!,
    p[o + 6]!,
    p[o + 7]!,
    p[o + 8]!,
    p[o + 1]!,
    p[o + 9]!,
    p[o + 10]!,
    p[o + 11]!,
    p[o + 2]!,
    0,
    0,
    0,
    1,
  );
  mesh.matrixWorldNeedsUpdate = true;
}

function pathLine(ee: Float32Array, colour: number, opacity: number): THREE.Line {
  const geometry = new THREE.BufferGeometry();
  geometry.setAttribute('position', new THREE.BufferAttribute(ee, 3));
  return new THREE.Line(geometry, new THREE.LineBasicMaterial({ color: colour, transparent: opacity < 1, opacity }));
}

/** Where all K ghosts overlap (members agree) they cover about 45% of the real arm, whatever K. */
function ghostOpacity(K: number): number {
  return Math.min(0.3, Math.max(0.12, 1 - 0.55 ** (1 / K)));
}

/** Each member's end-effector distance (m) from the members' mean at step t. */
export function memberDeviation(ee: Float32Array, t: number, K: number): number[] {
  const mean = [0, 0, 0];
  for (let k = 0; k < K; k++) for (let d = 0; d < 3; d++) mean[d]! += ee[(t * K + k) * 3 + d]! / K;
  return Array.from({ length: K }, (_, k) => Math.hypot(...[0, 1, 2].map((d) => ee[(t * K + k) * 3 + d]! - mean[d]!)));
}

/** Blue (agrees) through green and yellow to red (≥ DEVIATION_SCALE off). */
export function deviationColour(deviation: number): THREE.Color {
  const x = Math.min(1, deviation / DEVIATION_SCALE);
  return new THREE.Color().setHSL(0.62 * (1 - x), 0.85, 0.5);
}
