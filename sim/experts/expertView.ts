/**
 * What an expert reads from an observation: its own end effector (from forward kinematics of
 * the measured joints) and the privileged object state laid out by the Env.
 */
import type { Observation } from '../../src/core/types.ts';

export interface ExpertView {
  t: number;
  /** Measured arm joint positions. */
  q: Float32Array;
  ee: Float64Array;
  /** Target object position xyz and its yaw about z. */
  object: [number, number, number];
  objectYaw: number;
  /** Task goal point (hover point, zone centre, lift point). */
  goal: [number, number, number];
  /** Gripper opening in [0, 1]. */
  gripperOpening: number;
}

/** Parse the privileged state vector (object poses ×7 padded, then the goal xyz). */
export function readState(
  obs: Observation,
  nArm: number,
): Pick<ExpertView, 'object' | 'objectYaw' | 'goal' | 'q' | 'gripperOpening'> {
  const s = obs.state;
  if (!s || s.length < 10)
    throw new Error('scripted experts need privileged object state in observations (simulator or sim-server)');
  const w = s[3]!;
  const z = s[6]!;
  const goal = s.subarray(s.length - 3);
  return {
    q: obs.qpos.subarray(0, nArm),
    gripperOpening: obs.qpos[nArm]!,
    object: [s[0]!, s[1]!, s[2]!],
    objectYaw: 2 * Math.atan2(z, w),
    goal: [goal[0]!, goal[1]!, goal[2]!],
  };
}
