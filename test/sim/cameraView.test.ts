/**
 * What a world-fixed camera sees of the table region (sim/cameraView.ts), checked against the pictures the
 * renderer takes with MuJoCo's camera: a ball on each of the region's corners and its centre shows in the image
 * exactly when the projection says it is inside, for a square and a wide image; and the proposed pose sees them all.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadRobot, type RobotDescription } from '../../src/core/robotDescription.ts';
import { project, proposeCameraPose, unseenTablePoints } from '../../sim/cameraView.ts';
import { OBJECT_HALF_HEIGHT, regionPoints, type SceneLayout, tableRegion } from '../../sim/layout.ts';
import { getMujoco } from '../../sim/mujocoRuntime.ts';
import { MujocoScene } from '../../sim/render/mujocoScene.ts';
import { RayRenderer } from '../../sim/render/rayRenderer.ts';
import { Simulator } from '../../sim/simulator.ts';
import { COLOR_NAMES } from '../../src/tasks/vocabulary.ts';

const vx300 = loadRobot('vx300');
const region = tableRegion(1);
const POS = [0.78, 0, 0.5] as const;

function withCamera(lookAt: [number, number, number], width: number, height: number): RobotDescription {
  return { ...vx300, cameras: [{ name: 'scene', width, height, fovy: 45, pos: [...POS], lookAt }] };
}

/** Which of the region's points (balls on the table there) the robot's camera shows. */
async function ballsInPicture(robot: RobotDescription): Promise<boolean[]> {
  const mj = await getMujoco();
  const sim = await Simulator.create({ robot });
  try {
    const points = regionPoints(region);
    const layout: SceneLayout = {
      objects: points.map((p, i) => ({
        kind: 'ball',
        color: COLOR_NAMES[i]!,
        pos: [p.xy[0], p.xy[1], OBJECT_HALF_HEIGHT.ball],
        yaw: 0,
      })),
      zones: [],
    };
    sim.load(layout);
    const camera = robot.cameras[0]!;
    const renderer = new RayRenderer({ width: camera.width, height: camera.height });
    const view = new MujocoScene(sim.model);
    const id = mj.mj_name2id(sim.model, mj.mjtObj.mjOBJ_CAMERA.value, camera.name);
    renderer.render(view.geoms(sim.data), view.camera(sim.data, id));
    const seen = new Set(renderer.geomIds);
    return points.map((_, i) => seen.has(mj.mj_name2id(sim.model, mj.mjtObj.mjOBJ_GEOM.value, `object${i}`)));
  } finally {
    sim.close();
  }
}

for (const [lookAt, width, height] of [
  [[0.32, 0, 0], 64, 64],
  [[0.6, 0, 0], 64, 64],
  [[0.32, 0.3, 0], 96, 48],
] as [[number, number, number], number, number][]) {
  test(`the projection agrees with the picture: lookAt [${lookAt}], ${width}×${height}`, async () => {
    const robot = withCamera(lookAt, width, height);
    const camera = { ...robot.cameras[0]!, pos: POS, lookAt };
    const inPicture = await ballsInPicture(robot);
    const projected = regionPoints(region).map((p) => project(camera, [p.xy[0], p.xy[1], OBJECT_HALF_HEIGHT.ball]));
    projected.forEach((p, i) => {
      // A ball's own size blurs the edge: only points clearly inside or outside are compared.
      const edge = Math.max(Math.abs(p.u), Math.abs(p.v));
      if (edge < 0.9) assert.ok(inPicture[i], `point ${i} projects to (${p.u}, ${p.v}) but is not in the picture`);
      if (edge > 1.1) assert.ok(!inPicture[i], `point ${i} projects to (${p.u}, ${p.v}) but is in the picture`);
    });
    assert.deepEqual(
      unseenTablePoints(camera, region).length === 0,
      inPicture.every(Boolean),
      'the region is seen exactly when every ball is in the picture',
    );
  });
}

test("vx300's camera sees its table region; one looking away does not, and the proposed pose does", () => {
  const camera = { pos: POS, lookAt: [0.32, 0, 0], fovy: 45, width: 64, height: 64 };
  assert.deepEqual(unseenTablePoints(camera, region), []);
  const away = { ...camera, lookAt: [0.6, 0, 0] };
  assert.deepEqual(unseenTablePoints(away, region), ['near left corner', 'near right corner']);
  assert.deepEqual(proposeCameraPose(away, region, 1), { pos: [0.78, 0, 0.5], lookAt: [0.32, 0, 0] });
  // A narrow camera of a smaller arm: the scaled pose moves back along its line of sight until it sees the region.
  const narrow = { ...camera, fovy: 25 };
  const small = tableRegion(0.57);
  const proposed = proposeCameraPose(narrow, small, 0.57);
  assert.deepEqual(proposed.lookAt, [0.182, 0, 0]);
  assert.ok(proposed.pos[0] > 0.78 * 0.57, `moved back: ${proposed.pos}`);
  assert.deepEqual(unseenTablePoints({ ...narrow, ...proposed }, small), []);
});
