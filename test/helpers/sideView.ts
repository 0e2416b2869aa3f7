/** A picture of a simulator's scene from a given viewpoint (not a robot camera), for a person to look at. */
import type { Image } from '../../src/core/types.ts';
import { MujocoScene } from '../../sim/render/mujocoScene.ts';
import { RayRenderer } from '../../sim/render/rayRenderer.ts';
import { lookAtXyAxes } from '../../sim/sceneBuilder.ts';
import type { Simulator } from '../../sim/simulator.ts';

/** The picture and, per pixel, the geom it shows (-1: background). */
export function sideView(
  sim: Simulator,
  pos: number[],
  target: number[],
  width = 320,
  height = 240,
): Image & { geomIds: Int32Array } {
  const axes = lookAtXyAxes(pos, target);
  const [x, y] = [axes.slice(0, 3), axes.slice(3)] as [number[], number[]];
  const z = [x[1]! * y[2]! - x[2]! * y[1]!, x[2]! * y[0]! - x[0]! * y[2]!, x[0]! * y[1]! - x[1]! * y[0]!];
  // Row-major; the columns are the camera's x, y and (backward) z axes.
  const mat = [x[0]!, y[0]!, z[0]!, x[1]!, y[1]!, z[1]!, x[2]!, y[2]!, z[2]!];
  const renderer = new RayRenderer({ width, height });
  const data = renderer.render(new MujocoScene(sim.model).geoms(sim.data), { pos, mat, fovy: 50 });
  return { width, height, data, geomIds: Int32Array.from(renderer.geomIds) };
}
