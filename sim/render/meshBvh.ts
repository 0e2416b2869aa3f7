/**
 * A bounding-volume hierarchy over one mesh's triangles (in the mesh's own frame, which is the
 * geom frame MuJoCo poses), for the CPU ray caster: built once per compiled model, then a ray
 * visits only the boxes it passes through. Median split on the longest axis of the triangle
 * centroids, up to LEAF_SIZE triangles per leaf; nodes and triangles live in flat typed arrays.
 */

const LEAF_SIZE = 4;

export class MeshBvh {
  /** Triangles in leaf order, 9 floats each: v0, then the edges v1 − v0 and v2 − v0. */
  readonly tri: Float64Array;
  /** Unit normal of each triangle (in leaf order), 3 floats; zero for a degenerate one. */
  readonly normal: Float64Array;
  /** Per node: min xyz, max xyz. */
  readonly bounds: Float64Array;
  /**
   * Per node: [first triangle, count] for a leaf (count > 0); inside, [left child, −1 − axis] with
   * right = left + 1 and the left child holding the triangles lower along the split axis (so a
   * ray visits the nearer child first).
   */
  readonly nodes: Int32Array;
  readonly triangles: number;
  /** Radius of the sphere about the frame origin that holds every vertex. */
  readonly radius: number;
  /** Deepest path from the root, in nodes (sizes the traversal stack). */
  readonly depth: number;

  private constructor(
    tri: Float64Array,
    normal: Float64Array,
    bounds: Float64Array,
    nodes: Int32Array,
    radius: number,
    depth: number,
  ) {
    this.tri = tri;
    this.normal = normal;
    this.bounds = bounds;
    this.nodes = nodes;
    this.triangles = tri.length / 9;
    this.radius = radius;
    this.depth = depth;
  }

  /** Build over `vertices` (xyz per vertex) and `faces` (three vertex indices per triangle). */
  static build(vertices: ArrayLike<number>, faces: ArrayLike<number>): MeshBvh {
    const n = Math.floor(faces.length / 3);
    const nv = Math.floor(vertices.length / 3);
    let radius = 0;
    for (let v = 0; v < nv; v++)
      radius = Math.max(radius, Math.hypot(+vertices[3 * v]!, +vertices[3 * v + 1]!, +vertices[3 * v + 2]!));
    const centroid = new Float64Array(3 * n);
    for (let f = 0; f < n; f++) {
      for (let k = 0; k < 3; k++) {
        const i = faces[3 * f + k]!;
        if (!(i >= 0 && i < nv)) throw new Error(`mesh face ${f} names vertex ${i}; the mesh has ${nv}`);
        for (let c = 0; c < 3; c++) centroid[3 * f + c]! += +vertices[3 * i + c]! / 3;
      }
    }
    const order = Int32Array.from({ length: n }, (_, i) => i);
    // A binary tree whose leaves hold at least one triangle has fewer than 2n nodes.
    const maxNodes = 2 * n + 1;
    const bounds = new Float64Array(6 * maxNodes);
    const nodes = new Int32Array(2 * maxNodes);
    let count = 1;
    let depth = 1;
    // Work list of [node, first, end, depth]; a node's children are allocated together.
    const work: number[][] = [[0, 0, n, 1]];
    while (work.length > 0) {
      const [node, first, end, d] = work.pop()!;
      depth = Math.max(depth, d!);
      const box = triangleBounds(vertices, faces, order, first!, end!);
      bounds.set(box, 6 * node!);
      const size = end! - first!;
      if (size <= LEAF_SIZE) {
        nodes[2 * node!] = first!;
        nodes[2 * node! + 1] = size;
        continue;
      }
      // Split at the median centroid along the centroids' longest axis.
      const lo = [Infinity, Infinity, Infinity];
      const hi = [-Infinity, -Infinity, -Infinity];
      for (let i = first!; i < end!; i++)
        for (let c = 0; c < 3; c++) {
          const x = centroid[3 * order[i]! + c]!;
          if (x < lo[c]!) lo[c] = x;
          if (x > hi[c]!) hi[c] = x;
        }
      const axis =
        hi[0]! - lo[0]! >= hi[1]! - lo[1]! && hi[0]! - lo[0]! >= hi[2]! - lo[2]!
          ? 0
          : hi[1]! - lo[1]! >= hi[2]! - lo[2]!
            ? 1
            : 2;
      const mid = (first! + end!) >> 1;
      selectMedian(order, centroid, axis, first!, end!, mid);
      const left = count;
      count += 2;
      nodes[2 * node!] = left;
      nodes[2 * node! + 1] = -1 - axis;
      work.push([left, first!, mid, d! + 1], [left + 1, mid, end!, d! + 1]);
    }
    const tri = new Float64Array(9 * n);
    const normal = new Float64Array(3 * n);
    for (let k = 0; k < n; k++) {
      const f = order[k]!;
      const a = 3 * faces[3 * f]!,
        b = 3 * faces[3 * f + 1]!,
        c = 3 * faces[3 * f + 2]!;
      const ax = +vertices[a]!,
        ay = +vertices[a + 1]!,
        az = +vertices[a + 2]!;
      const e1x = +vertices[b]! - ax,
        e1y = +vertices[b + 1]! - ay,
        e1z = +vertices[b + 2]! - az;
      const e2x = +vertices[c]! - ax,
        e2y = +vertices[c + 1]! - ay,
        e2z = +vertices[c + 2]! - az;
      tri.set([ax, ay, az, e1x, e1y, e1z, e2x, e2y, e2z], 9 * k);
      const nx = e1y * e2z - e1z * e2y,
        ny = e1z * e2x - e1x * e2z,
        nz = e1x * e2y - e1y * e2x;
      const len = Math.hypot(nx, ny, nz);
      if (len > 0) normal.set([nx / len, ny / len, nz / len], 3 * k);
    }
    return new MeshBvh(tri, normal, bounds.slice(0, 6 * count), nodes.slice(0, 2 * count), radius, depth);
  }
}

/** Reorder order[first, end) so that order[k] is the triangle whose centroid is k-th along `axis` (quickselect). */
function selectMedian(order: Int32Array, centroid: Float64Array, axis: number, first: number, end: number, k: number) {
  let lo = first;
  let hi = end - 1;
  while (lo < hi) {
    const pivot = centroid[3 * order[(lo + hi) >> 1]! + axis]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (centroid[3 * order[i]! + axis]! < pivot) i++;
      while (centroid[3 * order[j]! + axis]! > pivot) j--;
      if (i <= j) {
        const t = order[i]!;
        order[i] = order[j]!;
        order[j] = t;
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return;
  }
}

function triangleBounds(
  vertices: ArrayLike<number>,
  faces: ArrayLike<number>,
  order: Int32Array,
  first: number,
  end: number,
): number[] {
  const box = [Infinity, Infinity, Infinity, -Infinity, -Infinity, -Infinity];
  for (let i = first; i < end; i++) {
    const f = order[i]!;
    for (let k = 0; k < 3; k++) {
      const v = 3 * faces[3 * f + k]!;
      for (let c = 0; c < 3; c++) {
        const x = +vertices[v + c]!;
        if (x < box[c]!) box[c] = x;
        if (x > box[3 + c]!) box[3 + c] = x;
      }
    }
  }
  return box;
}
