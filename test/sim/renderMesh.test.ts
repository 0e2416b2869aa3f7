/** Mesh geoms in the CPU ray caster: its BVH against brute force, and a mesh box drawn exactly as a box. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rng } from '../../src/core/rng.ts';
import { compileModel, getMujoco, vfsPath, writeVirtualFiles } from '../../sim/mujocoRuntime.ts';
import { MeshBvh } from '../../sim/render/meshBvh.ts';
import { MujocoScene } from '../../sim/render/mujocoScene.ts';
import { intersectMesh, RayRenderer } from '../../sim/render/rayRenderer.ts';
import { binaryStl, boxMesh, cylinderMesh, joinMeshes } from '../helpers/meshFiles.ts';

/** Möller–Trumbore over every triangle: the answer the BVH must give. */
function bruteForce(v: number[], f: number[], o: number[], d: number[]): number {
  let best = Infinity;
  for (let k = 0; k < f.length / 3; k++) {
    const [a, b, c] = [0, 1, 2].map((i) => v.slice(3 * f[3 * k + i]!, 3 * f[3 * k + i]! + 3));
    const e1 = [0, 1, 2].map((i) => b![i]! - a![i]!);
    const e2 = [0, 1, 2].map((i) => c![i]! - a![i]!);
    const cross = (x: number[], y: number[]) => [
      x[1]! * y[2]! - x[2]! * y[1]!,
      x[2]! * y[0]! - x[0]! * y[2]!,
      x[0]! * y[1]! - x[1]! * y[0]!,
    ];
    const dot = (x: number[], y: number[]) => x[0]! * y[0]! + x[1]! * y[1]! + x[2]! * y[2]!;
    const p = cross(d, e2);
    const det = dot(e1, p);
    if (Math.abs(det) < 1e-18) continue;
    const s = [0, 1, 2].map((i) => o[i]! - a![i]!);
    const u = dot(s, p) / det;
    const q = cross(s, e1);
    const w = dot(d, q) / det;
    const t = dot(e2, q) / det;
    if (u >= 0 && u <= 1 && w >= 0 && u + w <= 1 && t >= 0 && t < best) best = t;
  }
  return best;
}

test('the BVH finds the same nearest hit as testing every triangle, on a non-convex mesh', () => {
  const rng = new Rng(3);
  // A cylinder and two boxes apart from it, plus a soup of random triangles.
  const parts = joinMeshes(cylinderMesh(0.05, -0.1, 0.1, 2, 24), boxMesh([0.03, 0.1, 0.02], [0.2, 0, 0]));
  const v = parts.vertices.flat();
  const f = parts.faces.flat();
  for (let k = 0; k < 200; k++) {
    const base = v.length / 3;
    const c = [rng.uniform(-0.3, 0.3), rng.uniform(-0.3, 0.3), rng.uniform(-0.3, 0.3)];
    for (let i = 0; i < 3; i++) v.push(...c.map((x) => x + rng.uniform(-0.05, 0.05)));
    f.push(base, base + 1, base + 2);
  }
  const bvh = MeshBvh.build(v, f);
  assert.ok(bvh.nodes.length / 2 > 10, 'a real hierarchy');
  let hits = 0;
  for (let i = 0; i < 2000; i++) {
    const o = [rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(-1, 1)];
    const target = [rng.uniform(-0.3, 0.3), rng.uniform(-0.3, 0.3), rng.uniform(-0.3, 0.3)];
    const d = target.map((x, k) => x - o[k]!);
    const expected = bruteForce(v, f, o, d);
    const got = intersectMesh(bvh, o, d).t;
    if (expected === Infinity) assert.equal(got, Infinity, `ray ${i} should miss`);
    else {
      hits++;
      assert.ok(Math.abs(got - expected) < 1e-9, `ray ${i}: ${got} vs ${expected}`);
    }
  }
  assert.ok(hits > 500, `${hits} of 2000 rays hit`);
});

test('a mesh box renders pixel for pixel as the box primitive, shadows included', async () => {
  const mj = await getMujoco();
  const dir = '/wmrl-test/render-mesh';
  writeVirtualFiles(mj, [[`${dir}/box.stl`, binaryStl(boxMesh([0.05, 0.08, 0.03]))]]);
  const scene = (geom: string) =>
    `<mujoco><asset><mesh name="box" file="box.stl"/></asset><worldbody>` +
    '<geom type="plane" size="1 1 0.01" rgba="0.6 0.6 0.6 1"/>' +
    `<body pos="0.02 0.01 0.1" euler="0.3 0.2 0.5"><geom ${geom} rgba="0.9 0.2 0.2 1"/></body>` +
    '<camera name="c" pos="0.5 -0.5 0.5" xyaxes="0.707 0.707 0 -0.4 0.4 0.8"/></worldbody></mujoco>';
  const render = (name: string, xml: string) => {
    writeVirtualFiles(mj, [[`${dir}/${name}.xml`, xml]]);
    const model = compileModel(mj, vfsPath(`${dir}/${name}.xml`));
    const data = new mj.MjData(model);
    try {
      mj.mj_forward(model, data);
      const view = new MujocoScene(model);
      const renderer = new RayRenderer({ width: 64, height: 64 });
      return { image: renderer.render(view.geoms(data), view.camera(data, 0)), ids: Int32Array.from(renderer.geomIds) };
    } finally {
      data.delete();
      model.delete();
    }
  };
  const primitive = render('primitive', scene('type="box" size="0.05 0.08 0.03"'));
  const mesh = render('mesh', scene('type="mesh" mesh="box"'));
  const boxPixels = mesh.ids.filter((g) => g === 1).length;
  assert.ok(boxPixels > 100, `the box covers ${boxPixels} pixels`);
  assert.deepEqual(mesh.ids, primitive.ids);
  assert.deepEqual(mesh.image, primitive.image);
});
