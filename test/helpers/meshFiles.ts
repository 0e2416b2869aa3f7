/**
 * Small mesh files in the formats MuJoCo reads (binary STL, OBJ, legacy MSH), for robot
 * fixtures: boxes and cylinders, so a test knows exactly what shape it rendered.
 */

type Vec3 = [number, number, number];

export interface TriangleMesh {
  vertices: Vec3[];
  /** Counter-clockwise seen from outside. */
  faces: [number, number, number][];
}

/** An axis-aligned box with half-extents `half` around `centre`. */
export function boxMesh(half: Vec3, centre: Vec3 = [0, 0, 0]): TriangleMesh {
  const corner = (x: number, y: number, z: number): Vec3 => [
    centre[0] + x * half[0],
    centre[1] + y * half[1],
    centre[2] + z * half[2],
  ];
  const vertices = [
    corner(-1, -1, -1),
    corner(1, -1, -1),
    corner(1, 1, -1),
    corner(-1, 1, -1),
    corner(-1, -1, 1),
    corner(1, -1, 1),
    corner(1, 1, 1),
    corner(-1, 1, 1),
  ];
  const faces: TriangleMesh['faces'] = [
    [0, 2, 1],
    [0, 3, 2],
    [4, 5, 6],
    [4, 6, 7],
    [0, 1, 5],
    [0, 5, 4],
    [1, 2, 6],
    [1, 6, 5],
    [2, 3, 7],
    [2, 7, 6],
    [3, 0, 4],
    [3, 4, 7],
  ];
  return { vertices, faces };
}

/** A closed cylinder of `radius` around `axis` (0 x, 1 y, 2 z) from `from` to `to` along it, `segments` sides. */
export function cylinderMesh(radius: number, from: number, to: number, axis: 0 | 1 | 2, segments = 16): TriangleMesh {
  const place = (a: number, b: number, h: number): Vec3 =>
    axis === 2 ? [a, b, h] : axis === 0 ? [h, a, b] : [b, h, a];
  const vertices: Vec3[] = [place(0, 0, from), place(0, 0, to)];
  for (let i = 0; i < segments; i++) {
    const t = (2 * Math.PI * i) / segments;
    const [a, b] = [radius * Math.cos(t), radius * Math.sin(t)];
    vertices.push(place(a, b, from), place(a, b, to));
  }
  const faces: TriangleMesh['faces'] = [];
  for (let i = 0; i < segments; i++) {
    const [lo, hi] = [2 + 2 * i, 3 + 2 * i];
    const [lo2, hi2] = [2 + 2 * ((i + 1) % segments), 3 + 2 * ((i + 1) % segments)];
    faces.push([0, lo2, lo], [1, hi, hi2], [lo, lo2, hi2], [lo, hi2, hi]);
  }
  // Counter-clockwise about +axis for the place() permutations above (x: y→z, y: z→x, z: x→y).
  return { vertices, faces };
}

/** Several meshes as one (a non-convex mesh when they do not overlap). */
export function joinMeshes(...meshes: TriangleMesh[]): TriangleMesh {
  const out: TriangleMesh = { vertices: [], faces: [] };
  for (const m of meshes) {
    const offset = out.vertices.length;
    out.vertices.push(...m.vertices);
    out.faces.push(...m.faces.map((f) => f.map((i) => i + offset) as [number, number, number]));
  }
  return out;
}

/** Binary STL: 80-byte header, triangle count, then per triangle a normal, three vertices and 2 spare bytes. */
export function binaryStl(mesh: TriangleMesh): Uint8Array {
  const out = Buffer.alloc(84 + 50 * mesh.faces.length);
  out.write('wmrl test fixture', 0, 'ascii');
  out.writeUInt32LE(mesh.faces.length, 80);
  mesh.faces.forEach((face, i) => {
    const o = 84 + 50 * i;
    face.forEach((v, k) => mesh.vertices[v]!.forEach((x, c) => out.writeFloatLE(x, o + 12 + 12 * k + 4 * c)));
  });
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}

/** Wavefront OBJ text (1-based vertex indices). */
export function objText(mesh: TriangleMesh): string {
  const fmt = (x: number) => +x.toFixed(6);
  return [
    '# wmrl test fixture',
    ...mesh.vertices.map((v) => `v ${v.map(fmt).join(' ')}`),
    ...mesh.faces.map((f) => `f ${f.map((i) => i + 1).join(' ')}`),
    '',
  ].join('\n');
}

/** MuJoCo's legacy binary MSH: vertex, normal, texcoord and face counts (int32), vertices (float32), faces (int32). */
export function mshFile(mesh: TriangleMesh): Uint8Array {
  const nv = mesh.vertices.length;
  const nf = mesh.faces.length;
  const out = Buffer.alloc(16 + 12 * nv + 12 * nf);
  out.writeInt32LE(nv, 0);
  out.writeInt32LE(0, 4);
  out.writeInt32LE(0, 8);
  out.writeInt32LE(nf, 12);
  mesh.vertices.forEach((v, i) => v.forEach((x, c) => out.writeFloatLE(x, 16 + 12 * i + 4 * c)));
  mesh.faces.forEach((f, i) => f.forEach((x, c) => out.writeInt32LE(x, 16 + 12 * nv + 12 * i + 4 * c)));
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}
