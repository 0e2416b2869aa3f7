/**
 * The files a model reads, found as MuJoCo finds them: each layout below is collected, then
 * written alone into MuJoCo's virtual file system and compiled there, so the resolution rules
 * are checked against the real loader, not against themselves.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { collectModelFiles, ModelFileError, type ModelFormat } from '../../src/core/modelFiles.ts';
import { loadRobot, RobotDescriptionError } from '../../src/core/robotDescription.ts';
import { compileModel, getMujoco, vfsPath, writeVirtualFiles } from '../../sim/mujocoRuntime.ts';
import { FIXTURE_ROBOTS, menagerieArmAssets, urdfArmAssets } from '../helpers/armFixtures.ts';
import { binaryStl, boxMesh, objText } from '../helpers/meshFiles.ts';

const BOX = binaryStl(boxMesh([0.02, 0.02, 0.02]));
const OBJ = objText(boxMesh([0.01, 0.02, 0.03]));

/** Write `files` (relative path → content) into a fresh folder; returns it. */
function folder(files: Record<string, string | Uint8Array>): string {
  const dir = mkdtempSync(join(tmpdir(), 'wmrl-model-files-'));
  for (const [path, data] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), data);
  }
  return dir;
}

/** Collect, then compile with only the collected files in the virtual file system; returns the mesh count. */
async function collectAndCompile(main: string, format: ModelFormat = 'mjcf'): Promise<number> {
  const mj = await getMujoco();
  const files = collectModelFiles(main, format);
  writeVirtualFiles(mj, files.files);
  const model = compileModel(mj, vfsPath(files.main));
  try {
    return model.nmesh;
  } finally {
    model.delete();
  }
}

const geoms = (...meshes: string[]) =>
  `<worldbody><body name="b">${meshes.map((m) => `<geom type="mesh" mesh="${m}"/>`).join('')}</body></worldbody>`;

test('includes resolve from the main file, else beside the including file; meshdir from the main file', async () => {
  const dir = folder({
    'robot.xml':
      '<mujoco><compiler meshdir="assets"/><include file="parts/assets.xml"/>' +
      `<include file="parts/arm.xml"/></mujoco>`,
    // Beside its includer (parts/), not beside the main file.
    'parts/assets.xml': '<mujoco><include file="more_assets.xml"/><asset><mesh file="box.stl"/></asset></mujoco>',
    'parts/more_assets.xml': '<mujoco><asset><mesh name="tet" file="sub/part.obj"/></asset></mujoco>',
    'parts/arm.xml': `<mujoco>${geoms('box', 'tet')}</mujoco>`,
    'assets/box.stl': BOX,
    'assets/sub/part.obj': OBJ,
    'unused.stl': BOX,
  });
  try {
    const files = collectModelFiles(join(dir, 'robot.xml'), 'mjcf');
    assert.deepEqual([...files.files.keys()].map((p) => p.slice(dir.length + 1)).sort(), [
      'assets/box.stl',
      'assets/sub/part.obj',
      'parts/arm.xml',
      'parts/assets.xml',
      'parts/more_assets.xml',
      'robot.xml',
    ]);
    assert.match(files.xml, /<body name="b">/, 'included text is searchable for names');
    // MuJoCo reads only the virtual file system: without the meshes written there it fails.
    const mj = await getMujoco();
    writeVirtualFiles(
      mj,
      [...files.files].filter(([path]) => path.endsWith('.xml')),
    );
    assert.throws(() => compileModel(mj, vfsPath(files.main)), /Error opening file/);
    assert.equal(await collectAndCompile(join(dir, 'robot.xml')), 2);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the last compiler setting wins; assetdir serves meshes and textures; strippath drops folders', async () => {
  const png = readFileSync(join(FIXTURE_ROBOTS, 'trossen_vx300s/assets/interbotix_black.png'));
  const dir = folder({
    'last.xml':
      '<mujoco><compiler meshdir="old"/><asset><mesh file="box.stl"/></asset><compiler meshdir="new"/>' +
      `${geoms('box')}</mujoco>`,
    'new/box.stl': BOX,
    'shared.xml':
      '<mujoco><compiler assetdir="shared" strippath="true"/>' +
      '<asset><mesh file="deep/path/box.stl"/><texture name="t" type="2d" file="x/skin.png"/></asset>' +
      `${geoms('box')}</mujoco>`,
    'shared/box.stl': BOX,
    'shared/skin.png': png,
  });
  try {
    assert.ok(collectModelFiles(join(dir, 'last.xml'), 'mjcf').files.has(join(dir, 'new/box.stl')));
    assert.equal(await collectAndCompile(join(dir, 'last.xml')), 1);
    const shared = collectModelFiles(join(dir, 'shared.xml'), 'mjcf');
    assert.ok(shared.files.has(join(dir, 'shared/box.stl')) && shared.files.has(join(dir, 'shared/skin.png')));
    assert.equal(await collectAndCompile(join(dir, 'shared.xml')), 1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a sub-model (<model file>, for <attach>) reads its meshes from its own folder and meshdir', async () => {
  const dir = folder({
    'main.xml':
      '<mujoco><asset><model name="arm" file="sub/arm.xml"/></asset>' +
      '<worldbody><body name="mount"><attach model="arm" body="b" prefix="a_"/></body></worldbody></mujoco>',
    'sub/arm.xml': `<mujoco><compiler meshdir="assets"/><asset><mesh file="box.stl"/></asset>${geoms('box')}</mujoco>`,
    'sub/assets/box.stl': BOX,
  });
  try {
    assert.ok(collectModelFiles(join(dir, 'main.xml'), 'mjcf').files.has(join(dir, 'sub/assets/box.stl')));
    assert.equal(await collectAndCompile(join(dir, 'main.xml')), 1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a missing file is named with the element that wanted it and where it was looked for', () => {
  const dir = folder({
    'robot.xml': '<mujoco>\n<compiler meshdir="assets"/>\n<include file="parts.xml"/>\n</mujoco>',
    'parts.xml': '<mujoco>\n  <asset>\n    <mesh file="gone.stl"/>\n  </asset>\n</mujoco>',
    'bad.xml': '<mujoco><include file="nowhere.xml"/></mujoco>',
    'ascii.xml': '<mujoco><asset><mesh file="a.stl"/></asset></mujoco>',
    'a.stl': 'solid a\nfacet normal 0 0 1\nendsolid a\n',
  });
  try {
    assert.throws(
      () => collectModelFiles(join(dir, 'robot.xml'), 'mjcf'),
      (e: Error) =>
        e instanceof ModelFileError &&
        e.message.includes(`${join(dir, 'parts.xml')}:3: <mesh file="gone.stl">: file not found`) &&
        e.message.includes(join(dir, 'assets', 'gone.stl')),
    );
    assert.throws(
      () => collectModelFiles(join(dir, 'bad.xml'), 'mjcf'),
      /bad\.xml:1: <include file="nowhere.xml">: file not found/,
    );
    assert.throws(
      () => collectModelFiles(join(dir, 'ascii.xml'), 'mjcf'),
      /a\.stl is an ASCII STL; MuJoCo reads binary/,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a URDF reads its meshes from its <mujoco> meshdir, package:// paths stripped', async () => {
  const link = (name: string, geometry: string) =>
    `<link name="${name}"><visual><geometry>${geometry}</geometry></visual>` +
    '<inertial><mass value="0.1"/><inertia ixx="1e-4" iyy="1e-4" izz="1e-4" ixy="0" ixz="0" iyz="0"/></inertial>' +
    '</link>';
  const urdf = (compiler: string) =>
    `<robot name="r"><mujoco><compiler ${compiler} discardvisual="false"/></mujoco>` +
    link('base', '<box size="0.1 0.1 0.1"/>') +
    link('l1', '<mesh filename="package://r/meshes/part.stl"/>') +
    '<joint name="j" type="revolute"><parent link="base"/><child link="l1"/><axis xyz="0 0 1"/>' +
    '<limit lower="-1" upper="1" effort="1" velocity="1"/></joint></robot>';
  const dir = folder({
    'r.urdf': urdf('meshdir="meshes"'),
    'keep.urdf': urdf('meshdir="meshes" strippath="false"'),
    'meshes/part.stl': BOX,
  });
  try {
    const files = collectModelFiles(join(dir, 'r.urdf'), 'urdf');
    assert.ok(files.files.has(join(dir, 'meshes/part.stl')));
    assert.equal(await collectAndCompile(join(dir, 'r.urdf'), 'urdf'), 1);
    assert.throws(() => collectModelFiles(join(dir, 'keep.urdf'), 'urdf'), /MuJoCo does not resolve URIs/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the fixture arms load, with names found inside included files', () => {
  const arm = loadRobot(join(FIXTURE_ROBOTS, 'trossen_vx300s', 'robot.yaml'));
  assert.equal(arm.model.format, 'mjcf');
  // pinch and the finger joints are defined in vx300s_gripper.xml, an included file.
  assert.ok(!/name="pinch"/.test(arm.mjcfXml));
  assert.equal(arm.model.files.size, 12);
  const urdf = loadRobot(join(FIXTURE_ROBOTS, 'urdf_arm', 'robot.yaml'));
  assert.equal(urdf.model.format, 'urdf');
  assert.deepEqual(
    [...urdf.model.files.keys()].map((p) => p.slice(urdf.dir.length + 1)),
    ['robot.urdf', 'meshes/forearm.stl'],
  );
});

test('the committed fixture meshes are what test/helpers/armFixtures.ts makes', () => {
  for (const [robot, files] of [
    ['trossen_vx300s', menagerieArmAssets()],
    ['urdf_arm', urdfArmAssets()],
  ] as const) {
    for (const [path, data] of files) {
      const committed = readFileSync(join(FIXTURE_ROBOTS, robot, path));
      const made = typeof data === 'string' ? Buffer.from(data) : Buffer.from(data);
      assert.ok(
        committed.equals(made),
        `${robot}/${path} differs: run node --import tsx ${'test/helpers/armFixtures.ts'} --write`,
      );
    }
  }
});

test('robot descriptions: mjcf or urdf, urdfAdditions with urdf, and names checked in the right places', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wmrl-robots-'));
  const src = join(FIXTURE_ROBOTS, 'urdf_arm');
  const yaml = readFileSync(join(src, 'robot.yaml'), 'utf8');
  const write = (text: string) => {
    mkdirSync(join(dir, 'urdf_arm', 'meshes'), { recursive: true });
    writeFileSync(join(dir, 'urdf_arm', 'robot.urdf'), readFileSync(join(src, 'robot.urdf')));
    writeFileSync(join(dir, 'urdf_arm', 'meshes', 'forearm.stl'), readFileSync(join(src, 'meshes', 'forearm.stl')));
    writeFileSync(join(dir, 'urdf_arm', 'robot.yaml'), text);
    return join(dir, 'urdf_arm', 'robot.yaml');
  };
  try {
    assert.equal(loadRobot(write(yaml)).name, 'urdf_arm');
    assert.throws(
      () => loadRobot(write(yaml.replace('urdf: robot.urdf', 'urdf: robot.urdf\nmjcf: x.xml'))),
      /either mjcf or urdf/,
    );
    assert.throws(
      () => loadRobot(write(yaml.replace(/urdfAdditions:[\s\S]*?controlHz/, 'controlHz'))),
      /urdfAdditions goes with urdf/,
    );
    assert.throws(
      () => loadRobot(write(yaml.replace('link: tool_link', 'link: hand_link'))),
      (e: Error) => e instanceof RobotDescriptionError && /link 'hand_link' is not defined in the URDF/.test(e.message),
    );
    assert.throws(
      () => loadRobot(write(yaml.replace('{ name: wrist, link', '{ name: palm, link'))),
      /camera 'wrist' has no pos\/lookAt and is not in urdfAdditions.cameras/,
    );
    rmSync(join(dir, 'urdf_arm', 'meshes', 'forearm.stl'));
    assert.throws(
      () => loadRobot(join(dir, 'urdf_arm', 'robot.yaml')),
      (e: Error) =>
        e instanceof RobotDescriptionError &&
        /robot\.urdf:\d+: <mesh filename="package:\/\/urdf_arm\/meshes\/forearm\.stl">: file not found/.test(e.message),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
