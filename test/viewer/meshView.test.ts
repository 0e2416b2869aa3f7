/** The viewer's scene of a mesh arm: which geoms are meshes, and the meshes themselves, from MuJoCo's model. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GEOM_TYPE } from '../../src/viewer/messages.ts';
import { ViewerData } from '../../src/viewer/viewerData.ts';
import { makeMeshDataset, type MeshDataset } from './meshFixture.ts';

const dir = mkdtempSync(join(tmpdir(), 'wmrl-viewer-mesh-'));
let dataset: MeshDataset;
let data: ViewerData;

before(async () => {
  dataset = await makeMeshDataset(dir);
  data = new ViewerData({ dataDirs: [dataset.dataDir], robots: [dataset.robot] });
  await data.poll();
});
after(async () => {
  await data?.close();
  rmSync(dir, { recursive: true, force: true });
});

test('an episode of a mesh arm lists its meshes and which geoms draw them', async () => {
  const view = await data.episodeView(dataset.episodeIds[0]!);
  const g = view.geoms;
  assert.equal(g.meshes?.length, 8);
  const meshGeoms = g.type.flatMap((t, i) => (t === GEOM_TYPE.mesh ? [i] : []));
  assert.ok(meshGeoms.length >= 9, `${meshGeoms.length} mesh geoms (the finger mesh is drawn twice)`);
  for (let i = 0; i < g.count; i++) assert.equal(g.mesh[i]! >= 0, g.type[i] === GEOM_TYPE.mesh, `geom ${g.name[i]}`);
  for (const m of g.meshes!) {
    assert.ok(m.vertices instanceof Float32Array && m.faces instanceof Uint32Array);
    assert.ok(m.faces.length >= 36 && m.faces.every((v) => v < m.vertices.length / 3));
  }
  // Mesh 0, the base: a 120 × 120 × 40 mm box in the STL, in metres, turned to its principal axes by MuJoCo
  // (the geoms' poses turn it back).
  const base = g.meshes![0]!;
  const extent = [0, 1, 2].map((c) => {
    const xs = Array.from({ length: base.vertices.length / 3 }, (_, v) => base.vertices[3 * v + c]!);
    return +(Math.max(...xs) - Math.min(...xs)).toFixed(4);
  });
  assert.deepEqual(
    extent.sort((x, y) => x - y),
    [0.04, 0.12, 0.12],
  );
  const second = await data.episodeView(dataset.episodeIds[1]!);
  assert.equal(second.geoms.meshKey, g.meshKey, 'the same arm: the same mesh set');
});
