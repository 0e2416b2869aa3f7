/**
 * How far an arm reaches, from its kinematics: the length of the chain from the first arm
 * joint's anchor through every arm joint's anchor to the end-effector site. Each segment is
 * fixed in one link (a joint turns about its own anchor), so the length is the same in every
 * pose: the arm's reach when stretched out. The task layout scales with it.
 */
import type { MjModel } from 'mujoco';
import type { RobotDescription } from '../src/core/robotDescription.ts';
import type { Mujoco } from './mujocoRuntime.ts';

/** vx300's chain length (m); the layout was sized for it. */
export const VX300_REACH = 0.8186;

/** Chain length (m) of the robot's arm in a compiled model. */
export function armReach(mj: Mujoco, model: MjModel, robot: RobotDescription): number {
  const data = new mj.MjData(model);
  try {
    mj.mj_kinematics(model, data);
    const anchor = data.xanchor as Float64Array;
    const points = robot.arm.joints.map((j) => {
      const id = mj.mj_name2id(model, mj.mjtObj.mjOBJ_JOINT.value, j.name);
      return [anchor[3 * id]!, anchor[3 * id + 1]!, anchor[3 * id + 2]!];
    });
    const site = mj.mj_name2id(model, mj.mjtObj.mjOBJ_SITE.value, robot.endEffectorSite);
    const sitePos = data.site_xpos as Float64Array;
    points.push([sitePos[3 * site]!, sitePos[3 * site + 1]!, sitePos[3 * site + 2]!]);
    let length = 0;
    for (let i = 1; i < points.length; i++) length += Math.hypot(...points[i]!.map((v, k) => v - points[i - 1]![k]!));
    return length;
  } finally {
    data.delete();
  }
}

/**
 * The layout scale of an arm: its reach over vx300's, in steps of 0.01, so that vx300 (and an
 * arm of its size) gets exactly 1 and with it the layout numbers the benchmarks were run on.
 */
export function layoutScale(reach: number): number {
  return Math.round((100 * reach) / VX300_REACH) / 100;
}
