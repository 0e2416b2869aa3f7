/**
 * Where a gripper's other finger joints are when its first one is at a given position, read from
 * the model's joint equality constraints, so a pose can be set without the constraint yanking the
 * fingers on the first step. Menagerie's grippers, for example, couple the right finger as the
 * negative of the left (`polycoef="0 -1 0 0 0"`, the right finger's range negative); vx300's as
 * equal. MuJoCo's joint equality: y − y0 = a0 + a1·(x − x0) + … + a4·(x − x0)⁴, with y joint1, x
 * joint2 and y0, x0 their positions in qpos0. A finger without such a constraint moves as the first.
 */
import type { MjModel } from 'mujoco';
import type { Mujoco } from './mujocoRuntime.ts';

export type FingerPositions = (first: number) => number[];

/** Positions of every finger joint (`joints`, model ids; the first is the reference) given the first's. */
export function fingerCoupling(mj: Mujoco, model: MjModel, joints: number[]): FingerPositions {
  const first = joints[0]!;
  const eqType = model.eq_type as Int32Array;
  const obj1 = model.eq_obj1id as Int32Array;
  const obj2 = model.eq_obj2id as Int32Array;
  const active = model.eq_active0 as Uint8Array;
  const data = model.eq_data as Float64Array;
  const stride = model.neq > 0 ? data.length / model.neq : 0;
  const qpos0 = model.qpos0 as Float64Array;
  const adr = model.jnt_qposadr as Int32Array;
  const ref = (j: number) => qpos0[adr[j]!]!;
  const JOINT = mj.mjtEq.mjEQ_JOINT.value;
  const follow = joints.map((j): ((q: number) => number) => {
    if (j === first) return (q) => q;
    for (let e = 0; e < model.neq; e++) {
      if (eqType[e] !== JOINT || !active[e]) continue;
      const c = data.subarray(e * stride, e * stride + 5);
      if (obj1[e] === j && obj2[e] === first) {
        // This finger is the polynomial of the first.
        return (q) => {
          const x = q - ref(first);
          return ref(j) + c[0]! + x * (c[1]! + x * (c[2]! + x * (c[3]! + x * c[4]!)));
        };
      }
      if (obj1[e] === first && obj2[e] === j && c[1]! !== 0 && c[2] === 0 && c[3] === 0 && c[4] === 0) {
        // The first is a linear function of this finger: invert it.
        return (q) => ref(j) + (q - ref(first) - c[0]!) / c[1]!;
      }
    }
    return (q) => q;
  });
  return (q) => follow.map((f) => f(q));
}
