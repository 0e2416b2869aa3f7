/**
 * Phase logic of the scripted experts, one planner per kind of task (a family's file names its expert:
 * `scene.expert`). Each returns the next Cartesian target for the IK controller; they keep only their phase
 * between ticks.
 */
import type { CartesianTarget } from './ikController.ts';
import type { ExpertView } from './expertView.ts';

export interface Planner {
  next(view: ExpertView): CartesianTarget;
}

/** Height (m) the experts move at above the table before they descend to an object. */
export const HOVER = 0.1;
/** Pick's grasp point: this far (m) above the block's centre. */
export const GRASP_ABOVE_CENTRE = 0.006;
/** Push: height (m) of the closed fingers' paddle above the table. */
export const PUSH_HEIGHT = 0.025;
const near = (a: ArrayLike<number>, b: ArrayLike<number>, tol: number) =>
  Math.hypot(a[0]! - b[0]!, a[1]! - b[1]!, a[2]! - b[2]!) < tol;
const BLOCK = Math.PI / 2;

/** Reach: over the object at a safe height, then down to the hover point. */
class ReachPlanner implements Planner {
  next(v: ExpertView): CartesianTarget {
    const far = Math.hypot(v.ee[0]! - v.goal[0], v.ee[1]! - v.goal[1]) > 0.03;
    const z = far ? Math.max(v.goal[2], HOVER) : v.goal[2];
    return { pos: [v.goal[0], v.goal[1], z], yaw: Math.PI / 2, yawPeriod: Math.PI, close: false };
  }
}

/** How a planner's episode departs from the expert's: the grasp aimed this far off the block (metres). */
export interface PlannerSlip {
  graspOffset: [number, number, number];
}

/** Ticks a descent toward an offset grasp may take before the fingers close anyway (it may end on the block). */
const OFFSET_DESCENT_TICKS = 12;

/**
 * Pick: hover above the block, descend with open fingers, close, lift. With a grasp offset (a deliberate
 * miss, world-model data) it hovers, descends and closes at the offset point instead, then lifts.
 */
class PickPlanner implements Planner {
  #phase: 'hover' | 'descend' | 'close' | 'lift' = 'hover';
  #closing = 0;
  #descending = 0;
  #yaw: number | undefined;
  readonly #offset: [number, number, number] | undefined;

  constructor(slip?: PlannerSlip) {
    this.#offset = slip?.graspOffset;
  }

  next(v: ExpertView): CartesianTarget {
    // Fingers close across the block's faces: finger axis along the block's local x.
    this.#yaw ??= v.objectYaw;
    const yaw = this.#yaw;
    const [dx, dy, dz] = this.#offset ?? [0, 0, 0];
    const [x, y, z] = [v.object[0] + dx, v.object[1] + dy, v.object[2] + dz];
    const grasp: [number, number, number] = [x, y, z + GRASP_ABOVE_CENTRE];
    if (this.#phase === 'hover') {
      const above: [number, number, number] = [x, y, z + HOVER];
      if (near(v.ee, above, 0.015)) this.#phase = 'descend';
      return { pos: above, yaw, yawPeriod: BLOCK, close: false };
    }
    if (this.#phase === 'descend') {
      // An offset grasp may sit on the block's top, which the fingers never get within 8 mm of.
      const stuck = this.#offset !== undefined && ++this.#descending >= OFFSET_DESCENT_TICKS;
      if (near(v.ee, grasp, 0.008) || stuck) this.#phase = 'close';
      return { pos: grasp, yaw, yawPeriod: BLOCK, close: false };
    }
    if (this.#phase === 'close') {
      if (++this.#closing >= 4) this.#phase = 'lift';
      return { pos: grasp, yaw, yawPeriod: BLOCK, close: true };
    }
    return { pos: [v.goal[0], v.goal[1], v.goal[2] + 0.04], yaw, yawPeriod: BLOCK, close: true };
  }
}

/**
 * Push: closed fingers form a paddle across the push direction; go behind the block (away
 * from the zone), lower, push through; if the block slips sideways, lift and re-approach.
 */
class PushPlanner implements Planner {
  #phase: 'approach' | 'lower' | 'push' = 'approach';
  static readonly BEHIND = 0.06;

  next(v: ExpertView): CartesianTarget {
    const [bx, by] = v.object;
    const dx = v.goal[0] - bx;
    const dy = v.goal[1] - by;
    const dist = Math.hypot(dx, dy) || 1e-9;
    const ux = dx / dist;
    const uy = dy / dist;
    const paddleYaw = Math.atan2(uy, ux) + Math.PI / 2;
    const pre: [number, number, number] = [bx - ux * PushPlanner.BEHIND, by - uy * PushPlanner.BEHIND, PUSH_HEIGHT];
    const target = (pos: [number, number, number]): CartesianTarget => ({
      pos,
      yaw: paddleYaw,
      yawPeriod: Math.PI,
      close: true,
    });
    // Gripper position relative to the block, along and across the push direction.
    const rx = v.ee[0]! - bx;
    const ry = v.ee[1]! - by;
    const along = rx * ux + ry * uy;
    const across = Math.abs(-rx * uy + ry * ux);
    if (this.#phase === 'push' && (across > 0.022 || along > -0.02 || v.ee[2]! > 0.06)) this.#phase = 'approach';
    if (this.#phase === 'approach') {
      const above: [number, number, number] = [pre[0], pre[1], HOVER];
      if (near(v.ee, above, 0.02)) this.#phase = 'lower';
      return target(above);
    }
    if (this.#phase === 'lower') {
      if (near(v.ee, pre, 0.012)) this.#phase = 'push';
      return target(pre);
    }
    // Push through: aim a little past the zone centre so the block keeps moving until inside.
    const step = Math.min(0.04, dist + 0.01);
    return target([bx - ux * 0.045 + ux * step, by - uy * 0.045 + uy * step, PUSH_HEIGHT]);
  }
}

const PLANNERS: Readonly<Record<string, (slip?: PlannerSlip) => Planner>> = {
  reach: () => new ReachPlanner(),
  pick: (slip) => new PickPlanner(slip),
  push: () => new PushPlanner(),
};

/** The scripted experts a family file may name. */
export const EXPERTS = Object.keys(PLANNERS);

/** The planner named `expert`; a slip applies to pick only (the other planners ignore it). */
export function createPlanner(expert: string, slip?: PlannerSlip): Planner {
  const make = PLANNERS[expert];
  if (!make) throw new Error(`no scripted expert '${expert}'; known: ${EXPERTS.join(', ')}`);
  return make(slip);
}
