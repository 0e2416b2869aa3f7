/**
 * The mesh and texture files of the test robot fixtures under test/fixtures/robots/, made here
 * so their bytes are explained (test/core/modelFiles.test.ts checks the committed files still
 * match). Shapes follow the ViperX 300 (vx300s) proportions, in millimetres as Menagerie's
 * STLs are (the MJCF scales them by 0.001).
 *
 *   node --import tsx test/helpers/armFixtures.ts --write   (rewrites the committed files)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { encodePng } from '../../sim/rosbridge/png.ts';
import { binaryStl, boxMesh, cylinderMesh, joinMeshes, mshFile, objText } from './meshFiles.ts';

export const FIXTURE_ROBOTS = join(import.meta.dirname, '..', 'fixtures', 'robots');

/** A small dark-grey RGB texture (the role of Menagerie's interbotix_black.png). */
function darkTexture(): Uint8Array {
  const size = 4;
  const data = new Uint8Array(size * size * 3);
  for (let i = 0; i < size * size; i++) data.set(i % 2 ? [52, 52, 58] : [40, 40, 44], 3 * i);
  return encodePng({ width: size, height: size, data });
}

/** trossen_vx300s: files under its folder, by relative path. */
export function menagerieArmAssets(): Map<string, Uint8Array | string> {
  return new Map<string, Uint8Array | string>([
    ['assets/vx300s_1_base.stl', binaryStl(boxMesh([60, 60, 20], [0, 0, 20]))],
    ['assets/vx300s_2_shoulder.obj', objText(cylinderMesh(45, -30, 30, 2))],
    // An L of two boxes: a mesh that is not convex.
    [
      'assets/vx300s_3_upper_arm.stl',
      binaryStl(joinMeshes(boxMesh([25, 25, 150], [0, 0, 150]), boxMesh([32, 22, 22], [30, 0, 300]))),
    ],
    ['assets/vx300s_4_upper_forearm.stl', binaryStl(boxMesh([100, 22, 22], [100, 0, 0]))],
    ['assets/vx300s_5_lower_forearm.obj', objText(cylinderMesh(20, 0, 100, 0))],
    ['assets/vx300s_6_wrist.msh', mshFile(boxMesh([25, 22, 22], [25, 0, 0]))],
    ['assets/vx300s_7_gripper.stl', binaryStl(boxMesh([12, 65, 22], [12, 0, 0]))],
    ['assets/vx300s_10_gripper_finger.stl', binaryStl(boxMesh([45, 6, 14], [45, 0, 0]))],
    ['assets/interbotix_black.png', darkTexture()],
  ]);
}

/** urdf_arm: its one mesh (the upper forearm), in metres. */
export function urdfArmAssets(): Map<string, Uint8Array | string> {
  return new Map<string, Uint8Array | string>([
    ['meshes/forearm.stl', binaryStl(boxMesh([0.07, 0.016, 0.016], [0.07, 0, 0]))],
  ]);
}

export function writeFixtureAssets(): void {
  for (const [robot, files] of [
    ['trossen_vx300s', menagerieArmAssets()],
    ['urdf_arm', urdfArmAssets()],
  ] as const) {
    for (const [path, data] of files) {
      const file = join(FIXTURE_ROBOTS, robot, path);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, data);
    }
  }
}

if (process.argv.includes('--write') && process.argv[1]?.endsWith('armFixtures.ts')) writeFixtureAssets();
