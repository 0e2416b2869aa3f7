/**
 * A robot's model in MuJoCo's virtual file system, and scenes compiled around it. The robot's
 * files go in at their own paths; the scene file is written beside the robot's MJCF, so the
 * robot's `meshdir`, includes and asset paths (relative to the main file's folder in MuJoCo)
 * resolve exactly as they would with the robot's MJCF as the main file. A URDF robot is first
 * converted to MJCF (urdfToMjcf.ts), which is then staged the same way.
 */
import { basename, dirname, join } from 'node:path';
import type { MjModel } from 'mujoco';
import type { RobotDescription } from '../src/core/robotDescription.ts';
import { compileModel, type Mujoco, vfsPath, writeVirtualFiles } from './mujocoRuntime.ts';
import { convertUrdf } from './urdfToMjcf.ts';

/** Write the robot's files into the virtual file system; returns the host-style path of its MJCF. */
export function stageRobotModel(mj: Mujoco, robot: RobotDescription): string {
  writeVirtualFiles(mj, robot.model.files);
  if (robot.model.format === 'mjcf') return robot.model.main;
  const mjcf = join(dirname(robot.model.main), `.wmrl-${basename(robot.model.main)}.xml`);
  writeVirtualFiles(mj, [[mjcf, convertUrdf(mj, robot)]]);
  return mjcf;
}

/**
 * Compile a scene around the robot. `sceneXml` gets the file name to `<include>` the robot by;
 * `tag` names this scene's file (one per simulator and scene structure).
 */
export function compileRobotScene(
  mj: Mujoco,
  robot: RobotDescription,
  sceneXml: (robotFile: string) => string,
  tag: string,
): MjModel {
  const robotMjcf = stageRobotModel(mj, robot);
  const scene = join(dirname(robotMjcf), `.wmrl-scene-${tag}.xml`);
  writeVirtualFiles(mj, [[scene, sceneXml(basename(robotMjcf))]]);
  try {
    return compileModel(mj, vfsPath(scene));
  } catch (err) {
    throw new Error(`robot '${robot.name}' (${robot.model.main}): ${(err as Error).message}`, { cause: err });
  } finally {
    mj.FS.unlink(vfsPath(scene));
  }
}
