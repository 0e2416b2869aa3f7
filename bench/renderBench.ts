/**
 * RayRenderer throughput on a representative tabletop scene (~30 primitive geoms:
 * floor, table, 6-DoF capsule/cylinder/box arm with a gripper, 5 small objects), and on the
 * same scene with every arm geom a mesh of its shape (about 2,000 triangles each, 30,000 in
 * all, as an arm from MuJoCo Menagerie brings).
 *
 *   npx tsx bench/renderBench.ts [--seconds 1] [--scene primitives|meshes|both] [--png /tmp/render]
 *   (--png writes one image per config)
 *
 * Prints one JSON object to stdout with frames/s per scene, resolution, camera and shadow setting.
 */
import { writeFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';
import { MeshBvh } from '../sim/render/meshBvh.ts';
import { GEOM_MESH, RayRenderer, type CameraPose, type SceneGeoms } from '../sim/render/rayRenderer.ts';

type Vec3 = [number, number, number];
type Mat3 = number[]; // row-major

const I3: Mat3 = [1, 0, 0, 0, 1, 0, 0, 0, 1];
function mul(a: Mat3, b: Mat3): Mat3 {
  const m = new Array<number>(9).fill(0);
  for (let i = 0; i < 3; i++)
    for (let j = 0; j < 3; j++) for (let k = 0; k < 3; k++) m[3 * i + j]! += a[3 * i + k]! * b[3 * k + j]!;
  return m;
}
function apply(a: Mat3, v: Vec3): Vec3 {
  return [0, 1, 2].map((i) => a[3 * i]! * v[0] + a[3 * i + 1]! * v[1] + a[3 * i + 2]! * v[2]) as Vec3;
}
function rot(axis: 'x' | 'y' | 'z', ang: number): Mat3 {
  const c = Math.cos(ang),
    s = Math.sin(ang);
  if (axis === 'x') return [1, 0, 0, 0, c, -s, 0, s, c];
  if (axis === 'y') return [c, 0, s, 0, 1, 0, -s, 0, c];
  return [c, -s, 0, s, c, 0, 0, 0, 1];
}
const add = (a: Vec3, b: Vec3): Vec3 => [a[0] + b[0], a[1] + b[1], a[2] + b[2]];

interface Geom {
  type: number;
  size: Vec3;
  pos: Vec3;
  mat: Mat3;
  rgba: [number, number, number, number];
}

const TABLE_Z = 0.75;

/** The scene at arm joint angles q (6 values, radians). */
function buildScene(q: number[]): Geom[] {
  const gs: Geom[] = [];
  const g = (type: number, size: Vec3, pos: Vec3, mat: Mat3, rgba: Geom['rgba']) =>
    gs.push({ type, size, pos, mat, rgba });
  const wood: Geom['rgba'] = [0.55, 0.4, 0.25, 1];
  g(0, [0, 0, 0.05], [0, 0, 0], I3, [0.5, 0.5, 0.52, 1]); // floor
  g(6, [0.6, 0.4, 0.02], [0, 0, TABLE_Z - 0.02], I3, wood); // table top
  for (const [x, y] of [
    [-0.55, -0.35],
    [0.55, -0.35],
    [-0.55, 0.35],
    [0.55, 0.35],
  ] as const) {
    g(6, [0.025, 0.025, (TABLE_Z - 0.04) / 2], [x, y, (TABLE_Z - 0.04) / 2], I3, wood); // legs
  }
  g(6, [1.5, 0.02, 0.8], [0, 1.2, 0.8], I3, [0.85, 0.85, 0.8, 1]); // back wall

  // 6-DoF arm: yaw, pitch, pitch, roll, pitch, roll; links along the body z axis
  const grey: Geom['rgba'] = [0.75, 0.75, 0.78, 1];
  const dark: Geom['rgba'] = [0.2, 0.2, 0.22, 1];
  let p: Vec3 = [0, -0.3, TABLE_Z];
  let R = I3;
  g(5, [0.07, 0.03, 0], add(p, [0, 0, 0.03]), R, dark); // base plate
  const link = (len: number, radius: number, jointAxis: 'x' | 'y' | 'z', angle: number, kind: number) => {
    R = mul(R, rot(jointAxis, angle));
    // joint housing: cylinder whose axis is the joint axis
    const housing = jointAxis === 'z' ? R : mul(R, jointAxis === 'y' ? rot('x', Math.PI / 2) : rot('y', Math.PI / 2));
    g(5, [radius * 1.25, radius * 1.1, 0], p, housing, dark);
    const mid = add(p, apply(R, [0, 0, len / 2]));
    if (kind === 3) g(3, [radius, len / 2, 0], mid, R, grey);
    else g(kind, kind === 6 ? [radius, radius, len / 2] : [radius, len / 2, 0], mid, R, grey);
    p = add(p, apply(R, [0, 0, len]));
  };
  R = mul(R, rot('x', 0)); // base frame
  link(0.12, 0.05, 'z', q[0]!, 5);
  link(0.3, 0.04, 'y', q[1]!, 3);
  link(0.25, 0.035, 'y', q[2]!, 3);
  link(0.06, 0.03, 'z', q[3]!, 5);
  link(0.08, 0.03, 'y', q[4]!, 6);
  link(0.03, 0.025, 'z', q[5]!, 5);
  // gripper: palm + two fingers
  g(6, [0.05, 0.015, 0.01], add(p, apply(R, [0, 0, 0.01])), R, dark);
  g(6, [0.008, 0.012, 0.035], add(p, apply(R, [-0.035, 0, 0.055])), R, grey);
  g(6, [0.008, 0.012, 0.035], add(p, apply(R, [0.035, 0, 0.055])), R, grey);

  // objects on the table
  const top = TABLE_Z;
  g(6, [0.025, 0.025, 0.025], [0.1, 0.1, top + 0.025], rot('z', 0.4), [0.9, 0.1, 0.1, 1]); // red cube
  g(2, [0.03, 0, 0], [-0.15, 0.15, top + 0.03], I3, [0.1, 0.3, 0.9, 1]); // blue ball
  g(5, [0.025, 0.045, 0], [0.25, 0.0, top + 0.045], I3, [0.95, 0.85, 0.1, 1]); // yellow can
  g(4, [0.04, 0.025, 0.02], [-0.05, -0.05, top + 0.02], rot('z', 1.0), [0.95, 0.5, 0.05, 1]); // orange ellipsoid
  // green capsule
  g(3, [0.015, 0.05, 0], [0.0, 0.25, top + 0.015], mul(rot('z', 0.7), rot('y', Math.PI / 2)), [0.1, 0.7, 0.2, 1]);
  return gs;
}

function toSceneGeoms(frames: Geom[][]): { scenes: SceneGeoms[]; ngeom: number } {
  const scenes = frames.map((gs) => {
    const n = gs.length;
    const s: SceneGeoms = {
      ngeom: n,
      type: new Int32Array(n),
      size: new Float64Array(3 * n),
      xpos: new Float64Array(3 * n),
      xmat: new Float64Array(9 * n),
      rgba: new Float32Array(4 * n),
    };
    gs.forEach((g, i) => {
      (s.type as Int32Array)[i] = g.type;
      (s.size as Float64Array).set(g.size, 3 * i);
      (s.xpos as Float64Array).set(g.pos, 3 * i);
      (s.xmat as Float64Array).set(g.mat, 9 * i);
      (s.rgba as Float32Array).set(g.rgba, 4 * i);
    });
    return s;
  });
  return { scenes, ngeom: scenes[0]!.ngeom };
}

/**
 * A closed tessellated surface of a primitive geom in its own frame: `segments` around, `rings`
 * along (capsule and cylinder along z), a box's faces as grids.
 */
function tessellate(type: number, size: Vec3, segments = 96, rings = 9): { vertices: number[]; faces: number[] } {
  const vertices: number[] = [];
  const faces: number[] = [];
  const grid = (point: (u: number, v: number) => Vec3, nu: number, nv: number) => {
    const base = vertices.length / 3;
    for (let j = 0; j <= nv; j++) for (let i = 0; i <= nu; i++) vertices.push(...point(i / nu, j / nv));
    for (let j = 0; j < nv; j++)
      for (let i = 0; i < nu; i++) {
        const a = base + j * (nu + 1) + i;
        faces.push(a, a + 1, a + nu + 2, a, a + nu + 2, a + nu + 1);
      }
  };
  if (type === 6) {
    const n = Math.round(Math.sqrt((segments * rings) / 3));
    for (const axis of [0, 1, 2])
      for (const sign of [-1, 1])
        grid(
          (u, v) => {
            const p: Vec3 = [0, 0, 0];
            p[axis] = sign * size[axis]!;
            p[(axis + 1) % 3] = (2 * u - 1) * size[(axis + 1) % 3]!;
            p[(axis + 2) % 3] = (2 * v - 1) * size[(axis + 2) % 3]! * sign;
            return p;
          },
          n,
          n,
        );
    return { vertices, faces };
  }
  const [r, h] = [size[0], size[1]];
  const around = (u: number, z: number, radius: number): Vec3 => [
    radius * Math.cos(2 * Math.PI * u),
    radius * Math.sin(2 * Math.PI * u),
    z,
  ];
  grid((u, v) => around(u, -h + 2 * h * v, r), segments, rings);
  for (const sign of [-1, 1]) {
    if (type === 3) {
      // hemispherical caps
      grid(
        (u, v) => {
          const phi = (Math.PI / 2) * v;
          return around(u, sign * (h + r * Math.sin(phi)), r * Math.cos(phi));
        },
        segments,
        rings,
      );
    } else grid((u, v) => around(u, sign * h, r * (1 - v)), segments, 1);
  }
  return { vertices, faces };
}

/** The scenes with every arm geom (capsule, cylinder or box between `first` and `end`) drawn as a mesh of its shape. */
function withMeshArm(scenes: SceneGeoms[], first: number, end: number): { scenes: SceneGeoms[]; triangles: number } {
  const s0 = scenes[0]!;
  const meshes: MeshBvh[] = [];
  const dataid = new Int32Array(s0.ngeom).fill(-1);
  const type = Int32Array.from(s0.type);
  for (let g = first; g < end; g++) {
    if (![3, 5, 6].includes(type[g]!)) continue;
    const size: Vec3 = [+s0.size[3 * g]!, +s0.size[3 * g + 1]!, +s0.size[3 * g + 2]!];
    const { vertices, faces } = tessellate(type[g]!, size);
    dataid[g] = meshes.length;
    meshes.push(MeshBvh.build(vertices, faces));
    type[g] = GEOM_MESH;
  }
  const triangles = meshes.reduce((n, m) => n + m.triangles, 0);
  return { scenes: scenes.map((s) => ({ ...s, type, dataid, meshes })), triangles };
}

/** Camera at `pos` looking at `target` (world +z up), MuJoCo convention. */
function lookAt(pos: Vec3, target: Vec3, fovy: number): CameraPose {
  const f = [target[0] - pos[0], target[1] - pos[1], target[2] - pos[2]];
  const fl = Math.hypot(f[0]!, f[1]!, f[2]!);
  const z = f.map((v) => -v / fl) as Vec3; // camera z points backwards
  let x: Vec3 = [0 * z[2] - 1 * z[1], 1 * z[0] - 0 * z[2], 0]; // up x z
  const xl = Math.hypot(...x);
  x = x.map((v) => v / xl) as Vec3;
  const y: Vec3 = [z[1] * x[2] - z[2] * x[1], z[2] * x[0] - z[0] * x[2], z[0] * x[1] - z[1] * x[0]];
  return { pos, mat: [x[0], y[0], z[0], x[1], y[1], z[1], x[2], y[2], z[2]], fovy };
}

function png(path: string, w: number, h: number, rgb: Uint8Array): void {
  const crcTable = new Int32Array(256).map((_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c;
  });
  const crc = (b: Buffer) => {
    let c = -1;
    for (const x of b) c = crcTable[(c ^ x) & 255]! ^ (c >>> 8);
    return (c ^ -1) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const c = Buffer.alloc(4);
    c.writeUInt32BE(crc(td));
    return Buffer.concat([len, td, c]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  const raw = Buffer.alloc(h * (3 * w + 1));
  for (let y = 0; y < h; y++) Buffer.from(rgb.buffer, rgb.byteOffset + 3 * w * y, 3 * w).copy(raw, y * (3 * w + 1) + 1);
  writeFileSync(
    path,
    Buffer.concat([
      Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
      chunk('IHDR', ihdr),
      chunk('IDAT', deflateSync(raw)),
      chunk('IEND', Buffer.alloc(0)),
    ]),
  );
}

function main(): void {
  const args = process.argv.slice(2);
  const argVal = (name: string) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const seconds = Number(argVal('--seconds') ?? 1);
  const pngDir = argVal('--png');
  const which = argVal('--scene') ?? 'both';
  if (!['primitives', 'meshes', 'both'].includes(which))
    throw new Error(`--scene: primitives, meshes or both, not ${which}`);

  // 32 arm poses along a smooth trajectory, precomputed so the timed loop only renders
  const poses: number[][] = [];
  for (let k = 0; k < 32; k++) {
    const s = (2 * Math.PI * k) / 32;
    poses.push([
      0.6 * Math.sin(s),
      0.6 + 0.3 * Math.sin(2 * s),
      1.2 + 0.3 * Math.cos(s),
      0.5 * s,
      1.0,
      0.3 * Math.cos(s),
    ]);
  }
  const { scenes: primitives, ngeom } = toSceneGeoms(poses.map(buildScene));
  // The arm's geoms: after the floor, table top, 4 legs and the wall; before the 5 objects.
  const meshArm = withMeshArm(primitives, 7, ngeom - 5);
  const sceneSets = Object.entries({ primitives, meshes: meshArm.scenes }).filter(
    ([name]) => which === 'both' || which === name,
  );
  const cameras: Record<string, CameraPose> = {
    front: lookAt([0, -1.3, 1.35], [0, 0.05, TABLE_Z], 45),
    side: lookAt([1.1, -0.6, 1.2], [0, 0, TABLE_Z + 0.1], 50),
  };

  const results: Record<string, unknown>[] = [];
  for (const [sceneName, scenes] of sceneSets)
    for (const [w, h] of [
      [32, 32],
      [64, 64],
      [128, 128],
    ] as const) {
      for (const shadows of [false, true]) {
        for (const [camName, cam] of Object.entries(cameras)) {
          const r = new RayRenderer({ width: w, height: h, shadows });
          const out = new Uint8Array(w * h * 3);
          for (let k = 0; k < 64; k++) r.render(scenes[k % scenes.length]!, cam, out); // warm-up / JIT
          let frames = 0;
          const t0 = process.hrtime.bigint();
          const deadline = t0 + BigInt(Math.round(seconds * 1e9));
          let t = t0;
          while (t < deadline) {
            for (let k = 0; k < 16; k++) r.render(scenes[(frames + k) % scenes.length]!, cam, out);
            frames += 16;
            t = process.hrtime.bigint();
          }
          const sec = Number(t - t0) / 1e9;
          results.push({
            scene: sceneName,
            width: w,
            height: h,
            camera: camName,
            shadows,
            frames,
            fps: Math.round(frames / sec),
            msPerFrame: +((1000 * sec) / frames).toFixed(3),
          });
          if (pngDir !== undefined) {
            r.render(scenes[0]!, cam, out);
            png(`${pngDir}/render_${sceneName}_${w}x${h}_${camName}_${shadows ? 'shadow' : 'flat'}.png`, w, h, out);
          }
        }
      }
    }
  const meshTriangles = meshArm.triangles;
  console.log(
    JSON.stringify({ bench: 'RayRenderer', ngeom, meshTriangles, node: process.version, seconds, results }, null, 2),
  );
}

main();
