/**
 * Which of a step's G groups run for real (docs/design.md, active anchor selection).
 *
 * Two independent draws, each with known inclusion probabilities:
 *  - the uniform part: a simple random sample of `uniform` groups (each group in it with
 *    probability uniform/G). It alone keeps the plain PPI estimate unbiased;
 *  - the active part (optional): `active` groups drawn by systematic probability-proportional-
 *    to-size sampling on a per-group priority (ensemble disagreement, or calibration-map
 *    uncertainty), so group g is in it with probability q_g = min(1, active·u_g/Σu) (capped
 *    and renormalised). Unlike "take the top k", every group keeps q_g > 0, which is what
 *    lets importance weighting (Zrnic & Candès 2024) stay unbiased.
 * A group is an anchor when either draw picks it: π_g = 1 − (1 − uniform/G)(1 − q_g).
 * With no active part the draw is exactly the trainer's historical one (rng.shuffle(0..G-1)
 * and the first `uniform`), so existing runs reproduce bit for bit.
 */
import type { Rng } from '../core/rng.ts';

export interface AnchorSelectionOptions {
  /** G: groups this step. */
  groups: number;
  /** Groups drawn uniformly at random. */
  uniform: number;
  /** Expected extra groups drawn by priority (0: none). */
  active?: number;
  /** Per-group priority ≥ 0 (e.g. mean ensemble variance); required when active > 0. */
  priority?: ArrayLike<number>;
  /** Smallest share of the active draw any group keeps (so q_g > 0 even at priority 0). Default 0.05. */
  floor?: number;
}

export interface AnchorSelection {
  /** Anchor groups, ascending. */
  anchors: number[];
  /** Picked by the uniform draw (ascending). */
  uniform: number[];
  /** Picked by the active draw and not by the uniform one (ascending). */
  active: number[];
  /** π_g for every group g (length G): the probability it is an anchor, before the draw. */
  inclusion: number[];
  /** The uniform draw's per-group probability, uniform/G. */
  uniformProbability: number;
}

export function selectAnchorGroups(rng: Rng, o: AnchorSelectionOptions): AnchorSelection {
  const G = o.groups;
  if (!Number.isInteger(G) || G < 1) throw new Error(`anchor selection: groups must be a positive integer, got ${G}`);
  if (!Number.isInteger(o.uniform) || o.uniform < 0 || o.uniform > G)
    throw new Error(`anchor selection: uniform must be an integer in [0, ${G}], got ${o.uniform}`);
  const active = o.active ?? 0;
  if (!Number.isInteger(active) || active < 0 || active > G)
    throw new Error(`anchor selection: active must be an integer in [0, ${G}], got ${active}`);
  // The historical uniform draw, kept verbatim (same rng consumption).
  const uniform = rng
    .shuffle(Array.from({ length: G }, (_, i) => i))
    .slice(0, o.uniform)
    .sort((a, b) => a - b);
  const p = o.uniform / G;
  if (active === 0) {
    return {
      anchors: uniform,
      uniform,
      active: [],
      inclusion: Array.from({ length: G }, () => p),
      uniformProbability: p,
    };
  }
  if (!o.priority || o.priority.length !== G)
    throw new Error(
      `anchor selection: active picks need a priority for each of the ${G} groups (got ${o.priority?.length ?? 0})`,
    );
  const q = activeProbabilities(o.priority, active, o.floor ?? 0.05);
  const drawn = systematicSample(q, rng.next());
  const inUniform = new Set(uniform);
  const activeOnly = drawn.filter((g) => !inUniform.has(g));
  const anchors = [...uniform, ...activeOnly].sort((a, b) => a - b);
  const inclusion = q.map((qg) => 1 - (1 - p) * (1 - qg));
  return { anchors, uniform, active: activeOnly, inclusion, uniformProbability: p };
}

/**
 * First-order inclusion probabilities of a size-`n` πps design: q_g ∝ max(u_g, floor·mean u),
 * with every q capped at 1 and the excess spread over the rest until Σq = n.
 */
export function activeProbabilities(priority: ArrayLike<number>, n: number, floor: number): number[] {
  const G = priority.length;
  const u = Array.from(priority, (v, g) => {
    if (!Number.isFinite(v) || v < 0)
      throw new Error(`anchor selection: priority of group ${g} must be a finite number >= 0, got ${v}`);
    return v;
  });
  const meanU = u.reduce((s, v) => s + v, 0) / G;
  // All-zero priorities: nothing to prefer, so the active draw is uniform too.
  const w = u.map((v) => (meanU > 0 ? Math.max(v, floor * meanU) : 1));
  const q = new Array<number>(G).fill(0);
  const capped = new Set<number>();
  for (;;) {
    const free = w.map((_, g) => g).filter((g) => !capped.has(g));
    const room = n - capped.size;
    const total = free.reduce((s, g) => s + w[g]!, 0);
    let changed = false;
    for (const g of free) {
      q[g] = (room * w[g]!) / total;
      if (q[g]! >= 1) {
        q[g] = 1;
        capped.add(g);
        changed = true;
      }
    }
    if (!changed) return q;
  }
}

/** Madow's systematic sampling: exactly Σq units, unit g with probability q_g; `start` uniform in [0, 1). */
export function systematicSample(q: number[], start: number): number[] {
  const n = Math.round(q.reduce((s, v) => s + v, 0));
  const picked: number[] = [];
  let cum = 0;
  let j = 0;
  for (let g = 0; g < q.length && j < n; g++) {
    const next = cum + q[g]!;
    // Points start, start+1, … that fall in [cum, next) pick unit g (at most one, as q_g ≤ 1).
    while (j < n && start + j < next - 1e-12) {
      if (start + j >= cum - 1e-12) picked.push(g);
      j++;
    }
    cum = next;
  }
  return [...new Set(picked)];
}
