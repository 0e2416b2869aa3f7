/**
 * An arm of one's own, as MuJoCo Menagerie lays one out (test/fixtures/robots/trossen_vx300s:
 * meshdir assets/, STL/OBJ/MSH meshes, a texture, includes, a negated right finger): it loads,
 * simulates, renders its meshes, and the scripted expert drives reach episodes with it. The
 * scene camera's picture goes to test-artifacts/own-arm/.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadRobot } from '../../src/core/robotDescription.ts';
import { Rng } from '../../src/core/rng.ts';
import { SimEnv } from '../../src/envs/simEnv.ts';
import { runEpisode } from '../../src/envs/rollout.ts';
import { planEpisodes } from '../../src/tasks/episodePlan.ts';
import { sampleTask } from '../../src/tasks/sampleTask.ts';
import { ScriptedExpert } from '../../sim/experts/scriptedExpert.ts';
import { getMujoco } from '../../sim/mujocoRuntime.ts';
import { MujocoScene } from '../../sim/render/mujocoScene.ts';
import { GEOM_MESH, RayRenderer } from '../../sim/render/rayRenderer.ts';
import { encodePng } from '../../sim/rosbridge/png.ts';
import { loadTaskScene } from '../../sim/taskScene.ts';
import { FIXTURE_ROBOTS } from '../helpers/armFixtures.ts';
import { sideView } from '../helpers/sideView.ts';

const ARTIFACTS = join(import.meta.dirname, '..', '..', 'test-artifacts', 'own-arm');
const robot = loadRobot(join(FIXTURE_ROBOTS, 'trossen_vx300s', 'robot.yaml'));
let env: SimEnv;

before(async () => {
  env = await SimEnv.create({ robot });
  mkdirSync(ARTIFACTS, { recursive: true });
});
after(() => env.close());

test('the Menagerie-layout arm compiles from the virtual file system and simulates', async () => {
  const sim = env.simulator;
  assert.equal(sim.layoutScale, 1, 'vx300 proportions: the vx300 layout');
  await env.reset({ task: sampleTask({ family: 'reach' }, 'train', new Rng(0)), seed: 0 });
  assert.equal(sim.model.nmesh, 8);
  // The right finger runs on a negative range as the negative of the left (the MJCF's equality).
  const qpos = () => sim.data.qpos as Float64Array;
  const mj = await getMujoco();
  const joint = (name: string) => mj.mj_name2id(sim.model, mj.mjtObj.mjOBJ_JOINT.value, name);
  const finger = (name: string) => qpos()[(sim.model.jnt_qposadr as Int32Array)[joint(name)]!]!;
  assert.equal(finger('left_finger'), robot.gripper.open);
  assert.equal(finger('right_finger'), -robot.gripper.open);
  for (let t = 0; t < 20; t++) sim.tick(robot.arm.home, robot.gripper.closed);
  assert.ok(Math.abs(finger('left_finger') - robot.gripper.closed) < 2e-3, `left ${finger('left_finger')}`);
  assert.ok(Math.abs(finger('right_finger') + finger('left_finger')) < 2e-3, 'fingers stay mirrored');
  for (const q of sim.armQpos()) assert.ok(Number.isFinite(q));
});

test('the camera renderer draws the mesh geoms', async () => {
  const sim = env.simulator;
  await env.reset({ task: sampleTask({ family: 'reach' }, 'train', new Rng(1)), seed: 1 });
  const frame = sim.render('scene');
  writeFileSync(join(ARTIFACTS, 'trossen_vx300s-scene-64.png'), encodePng(frame));
  // The same camera, larger, to look at.
  const view = new MujocoScene(sim.model);
  const mj = await getMujoco();
  const camera = mj.mj_name2id(sim.model, mj.mjtObj.mjOBJ_CAMERA.value, 'scene');
  const renderer = new RayRenderer({ width: 320, height: 320 });
  const big = renderer.render(view.geoms(sim.data), view.camera(sim.data, camera));
  writeFileSync(join(ARTIFACTS, 'trossen_vx300s-scene.png'), encodePng({ width: 320, height: 320, data: big }));
  writeFileSync(
    join(ARTIFACTS, 'trossen_vx300s-side.png'),
    encodePng(sideView(sim, [0.35, -0.75, 0.45], [0.2, 0, 0.2])),
  );
  const types = sim.model.geom_type as Int32Array;
  const meshPixels = renderer.geomIds.filter((g) => g >= 0 && types[g] === GEOM_MESH).length;
  assert.ok(meshPixels > 2000, `mesh geoms cover ${meshPixels} of ${320 * 320} pixels`);
  // Visual meshes (group 2) show; collision geoms (group 3) do not.
  const groups = sim.model.geom_group as Int32Array;
  assert.ok(renderer.geomIds.every((g) => g < 0 || groups[g] !== 3));
  // The arm's material is white with a dark texture: drawn in the texture's mean colour, not white.
  const visual = [...renderer.geomIds].find((g) => g >= 0 && types[g] === GEOM_MESH && view.rgba[4 * g]! < 0.5);
  assert.ok(visual !== undefined, 'a mesh in the texture colour is in view');
  assert.ok(Math.abs(view.rgba[4 * visual]! - 46 / 255) < 1e-6, `texture mean ${view.rgba[4 * visual]}`);
});

test('the scripted expert reaches with it', async () => {
  const expert = await ScriptedExpert.create({ robot });
  try {
    for (const plan of planEpisodes([{ family: 'reach' }], 'train', 2, 11)) {
      const episode = await runEpisode(env, expert, plan);
      assert.ok(episode.successes[episode.steps] === 1, `${plan.task.instruction} (seed ${plan.seed}) not reached`);
    }
  } finally {
    expert.close();
  }
});

test('a task scene for it lays out as for vx300', async () => {
  const task = sampleTask({ family: 'push' }, 'train', new Rng(4));
  const { layout } = loadTaskScene(env.simulator, task, 4);
  for (const o of layout.objects) assert.ok(o.pos[0] >= 0.26 && o.pos[0] <= 0.5);
});
