/**
 * The bundled SO-101 (robots/so101, its MJCF; robots/so101-urdf, its URDF): a 5-joint arm with a
 * revolute jaw. Its end-effector frame is derived from the model (approach out of the gripper,
 * closing the way the jaw turns), the scripted experts do every task family with it, and the
 * goal zones scale with its layout.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadRobot, parseRobotDescription, type RobotDescription } from '../../src/core/robotDescription.ts';
import { Rng } from '../../src/core/rng.ts';
import { runEpisode } from '../../src/envs/rollout.ts';
import { SimEnv } from '../../src/envs/simEnv.ts';
import { planEpisodes } from '../../src/tasks/episodePlan.ts';
import { sampleTask } from '../../src/tasks/sampleTask.ts';
import { ArmKinematics } from '../../sim/armKinematics.ts';
import { ScriptedExpert } from '../../sim/experts/scriptedExpert.ts';
import { sampleLayout, ZONE_RADIUS } from '../../sim/layout.ts';

const so101 = loadRobot('so101');
const readText = (file: string) => readFileSync(file, 'utf8');
let env: SimEnv;
let expert: ScriptedExpert;

before(async () => {
  env = await SimEnv.create({ robot: so101 });
  expert = await ScriptedExpert.create({ robot: so101 });
});
after(() => {
  expert.close();
  env.close();
});

async function axesOf(robot: RobotDescription) {
  const kinematics = await ArmKinematics.create(robot);
  try {
    return kinematics.axes;
  } finally {
    kinematics.close();
  }
}

test('the end-effector frame is derived from the model: parallel fingers and a revolute jaw', async () => {
  assert.deepEqual(await axesOf(loadRobot('vx300')), {
    approach: '+x',
    closing: 'y',
    fit: { approach: 1, closing: 1 },
    gripper: 'slide',
  });
  const mjcf = (await axesOf(so101)) as { approach: string; closing: string; gripper: string };
  assert.deepEqual([mjcf.approach, mjcf.closing, mjcf.gripper], ['+x', 'z', 'hinge']);
  // The URDF's frame is its link's: the same directions under other names.
  const urdf = (await axesOf(loadRobot('so101-urdf'))) as { approach: string; closing: string; gripper: string };
  assert.deepEqual([urdf.approach, urdf.closing, urdf.gripper], ['-z', 'x', 'hinge']);
});

test('declared axes are used as written', async () => {
  const text = `${readText(so101.file)}\nendEffectorAxes: { approach: '-z', closing: 'y' }\n`;
  const declared = parseRobotDescription(text, so101.file);
  assert.deepEqual(await axesOf(declared), { approach: '-z', closing: 'y' });
  assert.throws(
    () =>
      parseRobotDescription(`${readText(so101.file)}\nendEffectorAxes: { approach: '+y', closing: 'y' }\n`, so101.file),
    /approach and closing must be different axes/,
  );
});

test('the scripted expert reaches, picks and pushes with the SO-101', async () => {
  const wins: Record<string, number> = {};
  for (const family of ['reach', 'pick', 'push'] as const) {
    wins[family] = 0;
    for (const plan of planEpisodes([{ family }], 'train', 3, 7)) {
      const episode = await runEpisode(env, expert, plan);
      if (episode.success) wins[family]! += 1;
    }
  }
  assert.ok(wins.reach === 3 && wins.pick! >= 2 && wins.push! >= 2, JSON.stringify(wins));
});

test('goal zones scale with the layout; vx300 keeps its zones', () => {
  const task = sampleTask({ family: 'push' }, 'train', new Rng(3));
  assert.equal(sampleLayout(task, new Rng(1)).zones[0]!.radius, ZONE_RADIUS);
  const scale = env.simulator.layoutScale;
  assert.ok(scale > 0.5 && scale < 0.65, `SO-101's layout scale ${scale}`);
  const small = sampleLayout(task, new Rng(1), scale);
  for (const zone of small.zones) assert.equal(zone.radius, ZONE_RADIUS * scale);
});

test('a URDF whose mesh paths keep their folder says how to make MuJoCo find them', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wmrl-urdf-meshdir-'));
  try {
    const arm = join(dir, 'arm');
    mkdirSync(join(arm, 'meshes'), { recursive: true });
    const fixture = loadRobot('so101-urdf');
    // A one-triangle binary STL.
    const stl = Buffer.alloc(84 + 50);
    stl.writeUInt32LE(1, 80);
    writeFileSync(join(arm, 'meshes', 'link.stl'), stl);
    writeFileSync(
      join(arm, 'arm.urdf'),
      '<robot name="arm"><link name="base"><visual><geometry><mesh filename="meshes/link.stl"/></geometry>' +
        '</visual></link></robot>',
    );
    const yaml = readText(fixture.file)
      .replace('name: so101-urdf', 'name: arm')
      .replace(/urdf: .*/, 'urdf: arm.urdf');
    assert.throws(
      () => parseRobotDescription(yaml, join(arm, 'robot.yaml')),
      /strips the folders[\s\S]*add <mujoco><compiler meshdir="meshes"\/><\/mujoco> inside <robot>/,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
