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

  /** Whether the fingers have closed on the grasp point (the lift has begun): what comes next is the lift. */
  get closed(): boolean {
    return this.#phase === 'lift';
  }

  /** The yaw the fingers close at (the block's when the grasp began). */
  get yaw(): number | undefined {
    return this.#yaw;
  }
}

/** Place: the block's centre this far (m) above where it rests when the fingers open over the zone. */
export const RELEASE_ABOVE = 0.005;
/** Place lowers the block once it is this close (m, table plane) to where it is set down. */
const CARRIED_WITHIN = 0.01;
/** Place lowers the block at most this far (m) a tick: slowly enough that it meets the table without a knock. */
const LOWER_STEP = 0.015;
/** Place lets go once the block is low, this close (m, table plane) to where it is set down and this still (m/tick). */
const PLACED_WITHIN = 0.008;
const STILL = 0.004;
/** Ticks the lowering may take before the fingers open anyway (the block may never settle where it is aimed). */
const LOWER_TICKS = 12;
/** Ticks the fingers take to open over the zone before the gripper leaves. */
const OPEN_TICKS = 4;
/**
 * Place starts over (a new grasp where the block lies) when the block has left the fingers before it was set down
 * (it lies on the table with the gripper this far, m, above its centre), or lies this far (m, table plane) from the
 * zone's centre once the gripper has waited RETREAT_TICKS above it. so101's jaw shifts the block as it opens (about
 * 1.7 cm, always the same way); its zone is small (3.7 cm), so the next try aims that much the other way.
 */
const DROPPED = 0.03;
const REPLACE_BEYOND = 0.012;
const RETREAT_TICKS = 6;

/**
 * Place: pick's grasp (hover, descend, close; a slip aims it as pick's does, at every try), then lift straight up to
 * the hover height, carry the block over the zone (the goal: its centre at the height the block rests at), lower it
 * slowly until it is just above the table, centred and still, open the fingers there and retreat straight up. The
 * carry and the lowering aim the block, not the gripper: the target is the zone plus where the gripper holds the
 * block, measured each tick. A block dropped on the way, or lying off the zone's centre after the retreat, is picked
 * up again and set down, aimed against where the last one came to lie.
 */
class PlacePlanner implements Planner {
  #grasp: PickPlanner;
  #phase: 'grasp' | 'lift' | 'carry' | 'lower' | 'open' | 'retreat' = 'grasp';
  #ticks = 0;
  /** Where the gripper closed, then where it lets go: the lift and the retreat go straight up from there. */
  #from: [number, number, number] = [0, 0, 0];
  /** The block's position a tick ago (how still it is). */
  #last: [number, number, number] | undefined;
  /** Where (x, y) the block is set down, less the zone's centre: moved against where a set-down block came to lie. */
  #aim: [number, number] = [0, 0];
  readonly #slip: PlannerSlip | undefined;

  constructor(slip?: PlannerSlip) {
    this.#slip = slip;
    this.#grasp = new PickPlanner(slip);
  }

  next(v: ExpertView): CartesianTarget {
    const [ox, oy] = [v.object[0] - v.goal[0], v.object[1] - v.goal[1]];
    const hz = v.ee[2]! - v.object[2];
    const onTable = v.object[2] < v.goal[2] + 0.01;
    const dropped = ['lift', 'carry', 'lower'].includes(this.#phase) && onTable && hz > DROPPED;
    const misplaced = this.#phase === 'retreat' && this.#ticks >= RETREAT_TICKS && Math.hypot(ox, oy) > REPLACE_BEYOND;
    if (misplaced) this.#aim = [this.#aim[0] - ox, this.#aim[1] - oy];
    if (dropped || misplaced) {
      this.#grasp = new PickPlanner(this.#slip);
      this.#phase = 'grasp';
      this.#ticks = 0;
    }
    const last = this.#last ?? v.object;
    this.#last = [...v.object];
    if (this.#phase === 'grasp') {
      if (!this.#grasp.closed) return this.#grasp.next(v);
      this.#phase = 'lift';
      this.#from = [v.ee[0]!, v.ee[1]!, v.ee[2]!];
    }
    const yaw = this.#grasp.yaw ?? v.objectYaw;
    const at = (pos: [number, number, number], close: boolean): CartesianTarget => ({
      pos,
      yaw,
      yawPeriod: BLOCK,
      close,
    });
    // Where the gripper holds the block (the gripper minus its centre), and how far the block is from where it is set.
    const [hx, hy] = [v.ee[0]! - v.object[0], v.ee[1]! - v.object[1]];
    const [ax, ay] = [v.goal[0] + this.#aim[0], v.goal[1] + this.#aim[1]];
    const off = Math.hypot(v.object[0] - ax, v.object[1] - ay);
    const still = near(v.object, last, STILL);
    if (this.#phase === 'lift') {
      if (v.ee[2]! > HOVER - 0.015) this.#phase = 'carry';
      else return at([this.#from[0], this.#from[1], HOVER], true);
    }
    const over: [number, number, number] = [ax + hx, ay + hy, HOVER];
    if (this.#phase === 'carry') {
      if (off < CARRIED_WITHIN) this.#phase = 'lower';
      else return at(over, true);
    }
    if (this.#phase === 'lower') {
      const release = v.goal[2] + RELEASE_ABOVE + hz;
      const down: [number, number, number] = [over[0], over[1], Math.max(release, v.ee[2]! - LOWER_STEP)];
      const low = v.object[2] < v.goal[2] + RELEASE_ABOVE + 0.003;
      if ((low && off < PLACED_WITHIN && still) || ++this.#ticks >= LOWER_TICKS) {
        this.#phase = 'open';
        this.#ticks = 0;
        this.#from = [down[0], down[1], release];
      } else return at(down, true);
    }
    const [rx, ry, rz] = this.#from;
    if (this.#phase === 'open') {
      if (++this.#ticks < OPEN_TICKS) return at([rx, ry, rz], false);
      this.#phase = 'retreat';
      this.#ticks = 0;
    }
    if (v.ee[2]! > HOVER - 0.015) this.#ticks++;
    return at([rx, ry, HOVER], false);
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
  place: (slip) => new PlacePlanner(slip),
};

/** The scripted experts a family file may name. */
export const EXPERTS = Object.keys(PLANNERS);

/** The planner named `expert`; a slip applies to pick's grasp and place's (the other planners ignore it). */
export function createPlanner(expert: string, slip?: PlannerSlip): Planner {
  const make = PLANNERS[expert];
  if (!make) throw new Error(`no scripted expert '${expert}'; known: ${EXPERTS.join(', ')}`);
  return make(slip);
}
