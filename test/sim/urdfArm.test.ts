/**
 * An arm described by a URDF (test/fixtures/robots/urdf_arm: box and cylinder links, one mesh,
 * a <mimic> finger): MuJoCo's compiler reads it, the toolkit adds servos, the site and a camera,
 * and it then simulates, renders and is driven by the expert like any arm. It is 0.7 times
 * vx300's size, so its task layout is scaled down to its reach.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadRobot } from '../../src/core/robotDescription.ts';
import { Rng } from '../../src/core/rng.ts';
import { runEpisode } from '../../src/envs/rollout.ts';
import { SimEnv } from '../../src/envs/simEnv.ts';
import { planEpisodes } from '../../src/tasks/episodePlan.ts';
import { sampleTask } from '../../src/tasks/sampleTask.ts';
import { ScriptedExpert } from '../../sim/experts/scriptedExpert.ts';
import { tableRegion } from '../../sim/layout.ts';
import { getMujoco } from '../../sim/mujocoRuntime.ts';
import { GEOM_MESH } from '../../sim/render/rayRenderer.ts';
import { encodePng } from '../../sim/rosbridge/png.ts';
import { convertUrdf, withCompilerOptions } from '../../sim/urdfToMjcf.ts';
import { FIXTURE_ROBOTS } from '../helpers/armFixtures.ts';
import { sideView } from '../helpers/sideView.ts';

const ARTIFACTS = join(import.meta.dirname, '..', '..', 'test-artifacts', 'own-arm');
const robot = loadRobot(join(FIXTURE_ROBOTS, 'urdf_arm', 'robot.yaml'));
let env: SimEnv;

before(async () => {
  env = await SimEnv.create({ robot, cameras: ['scene', 'wrist'] });
  mkdirSync(ARTIFACTS, { recursive: true });
});
after(() => env.close());

test("the URDF's <mujoco> compiler settings are kept; visuals and fixed links are kept too", () => {
  assert.equal(
    withCompilerOptions('<robot name="r"><mujoco><compiler meshdir="m" discardvisual="true"/></mujoco></robot>'),
    '<robot name="r"><mujoco><compiler meshdir="m" discardvisual="false" fusestatic="false"/></mujoco></robot>',
  );
  assert.equal(
    withCompilerOptions('<robot name="r"><link name="a"/></robot>'),
    '<robot name="r"><mujoco><compiler discardvisual="false" fusestatic="false"/></mujoco><link name="a"/></robot>',
  );
});

test('MuJoCo converts the URDF and the additions go where the description says', async () => {
  const mjcf = convertUrdf(await getMujoco(), robot);
  assert.match(mjcf, /<position name="waist_servo" joint="waist" kp="120" kv="10" ctrlrange="-3 3"\/>/);
  assert.match(mjcf, /<position name="gripper" joint="left_finger" kp="200" kv="8" ctrlrange="0.015 0.04"\/>/);
  // <mimic joint="left_finger" multiplier="-1">: right = -left.
  assert.match(mjcf, /<joint joint1="right_finger" joint2="left_finger" polycoef="0 -1 0 0 0"\/>/);
  // The site on the fixed-joint tool link (kept as a body), the camera on the gripper link.
  assert.match(mjcf, /<body gravcomp="1" name="tool_link"[^>]*>\n<site name="grasp"/);
  assert.match(mjcf, /<body gravcomp="1" name="gripper_link"[^>]*>\n<camera name="wrist"[^>]*fovy="75"/);
  // Collision geoms are hidden behind the visual ones.
  assert.match(mjcf, /<geom group="3" size="0.07 0.016 0.016" pos="0.07 0 0" type="box"/);
});

test('it simulates: servos track, fingers mirror, and the layout shrinks with its reach', async () => {
  const sim = env.simulator;
  assert.ok(Math.abs(sim.reach - 0.7 * 0.8186) < 0.01, `reach ${sim.reach}`);
  assert.equal(sim.layoutScale, 0.7);
  const task = sampleTask({ family: 'push' }, 'train', new Rng(2));
  await env.reset({ task, seed: 2 });
  const region = tableRegion(0.7);
  for (const o of env.layout!.objects) assert.ok(o.pos[0] >= region.xMin && o.pos[0] <= region.xMax);
  const target = [0.4, -0.2, 0.7, 0.3, 1.0, -0.5];
  for (let t = 0; t < 30; t++) sim.tick(target, robot.gripper.closed);
  const q = sim.armQpos();
  target.forEach((v, i) => assert.ok(Math.abs(q[i]! - v) < 0.03, `joint ${i}: ${q[i]} for ${v}`));
  const mj = await getMujoco();
  const qpos = sim.data.qpos as Float64Array;
  const finger = (name: string) =>
    qpos[(sim.model.jnt_qposadr as Int32Array)[mj.mj_name2id(sim.model, mj.mjtObj.mjOBJ_JOINT.value, name)]!]!;
  assert.ok(Math.abs(finger('left_finger') - robot.gripper.closed) < 2e-3, `left ${finger('left_finger')}`);
  assert.ok(Math.abs(finger('right_finger') + finger('left_finger')) < 2e-3, 'the mimic finger mirrors');
});

test('its cameras render, the mesh link included', async () => {
  const sim = env.simulator;
  await env.reset({ task: sampleTask({ family: 'reach' }, 'train', new Rng(3)), seed: 3 });
  const side = sideView(sim, [0.25, -0.55, 0.32], [0.15, 0, 0.12]);
  writeFileSync(join(ARTIFACTS, 'urdf_arm-side.png'), encodePng(side));
  const types = sim.model.geom_type as Int32Array;
  const meshPixels = side.geomIds.filter((g) => g >= 0 && types[g] === GEOM_MESH).length;
  assert.ok(meshPixels > 300, `the forearm mesh covers ${meshPixels} pixels of the side view`);
  for (const name of ['scene', 'wrist']) {
    const frame = sim.render(name);
    writeFileSync(join(ARTIFACTS, `urdf_arm-${name}-64.png`), encodePng(frame));
    const colours = new Set<number>();
    for (let i = 0; i < frame.data.length; i += 3)
      colours.add((frame.data[i]! << 16) | (frame.data[i + 1]! << 8) | frame.data[i + 2]!);
    assert.ok(colours.size > 8, `${name} frame is nearly blank`);
  }
});

test('the scripted expert reaches with it', async () => {
  const expert = await ScriptedExpert.create({ robot });
  try {
    for (const plan of planEpisodes([{ family: 'reach' }], 'train', 2, 21)) {
      const episode = await runEpisode(env, expert, plan);
      assert.ok(episode.successes[episode.steps] === 1, `${plan.task.instruction} (seed ${plan.seed}) not reached`);
    }
  } finally {
    expert.close();
  }
});
