import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RayRenderer, type CameraPose, type SceneGeoms } from '../../sim/render/rayRenderer.ts';

// ---------------------------------------------------------------- helpers

interface GeomSpec {
  type: number;
  size: [number, number, number];
  pos: [number, number, number];
  mat?: number[]; // row-major, world = R * local
  rgba: [number, number, number, number];
  visible?: number;
}

function scene(specs: GeomSpec[]): SceneGeoms {
  const n = specs.length;
  const type = new Int32Array(n);
  const size = new Float64Array(3 * n);
  const xpos = new Float64Array(3 * n);
  const xmat = new Float64Array(9 * n);
  const rgba = new Float64Array(4 * n);
  const visible = new Uint8Array(n);
  specs.forEach((s, g) => {
    type[g] = s.type;
    size.set(s.size, 3 * g);
    xpos.set(s.pos, 3 * g);
    xmat.set(s.mat ?? [1, 0, 0, 0, 1, 0, 0, 0, 1], 9 * g);
    rgba.set(s.rgba, 4 * g);
    visible[g] = s.visible ?? 1;
  });
  return { ngeom: n, type, size, xpos, xmat, rgba, visible };
}

/** Camera at the origin looking along world -z, x right, y up. */
const CAM_IDENTITY: CameraPose = { pos: [0, 0, 0], mat: [1, 0, 0, 0, 1, 0, 0, 0, 1], fovy: 45 };

/** Camera at `pos` looking along +y (MJCF xyaxes="1 0 0 0 0 1"): right = +x, up = +z, z-axis = -y. */
function camLookingPlusY(pos: [number, number, number], fovy = 45): CameraPose {
  // columns: x = (1,0,0), y = (0,0,1), z = x cross y = (0,-1,0)
  return { pos, mat: [1, 0, 0, 0, 0, -1, 0, 1, 0], fovy };
}

/** Camera at `pos` looking along +y, pitched down by `deg` degrees. */
function camPitched(pos: [number, number, number], deg: number, fovy: number): CameraPose {
  const a = (deg * Math.PI) / 180,
    s = Math.sin(a),
    c = Math.cos(a);
  // columns: x = (1,0,0), y (up) = (0, s, c), z (backwards) = (0, -c, s)
  return { pos, mat: [1, 0, 0, 0, s, -c, 0, c, s], fovy };
}

function rotX(deg: number): number[] {
  const a = (deg * Math.PI) / 180,
    c = Math.cos(a),
    s = Math.sin(a);
  return [1, 0, 0, 0, c, -s, 0, s, c];
}
function rotY(deg: number): number[] {
  const a = (deg * Math.PI) / 180,
    c = Math.cos(a),
    s = Math.sin(a);
  return [c, 0, s, 0, 1, 0, -s, 0, c];
}

function px(img: Uint8Array, W: number, x: number, y: number): [number, number, number] {
  const o = 3 * (y * W + x);
  return [img[o]!, img[o + 1]!, img[o + 2]!];
}

const RED: [number, number, number, number] = [0.9, 0.1, 0.1, 1];
const GREEN: [number, number, number, number] = [0.1, 0.8, 0.1, 1];
const BLUE: [number, number, number, number] = [0.1, 0.2, 0.9, 1];

function isRedish([r, g, b]: [number, number, number]): boolean {
  return r > 80 && r > 2 * g && r > 2 * b;
}
function isGreenish([r, g, b]: [number, number, number]): boolean {
  return g > 80 && g > 2 * r && g > 2 * b;
}
function isBlueish([r, g, b]: [number, number, number]): boolean {
  return b > 80 && b > 2 * r && b > 1.5 * g;
}

/** Pixel bounding box and centroid of geom `g` in the last render. */
function footprint(r: RayRenderer, g: number) {
  const W = r.width,
    H = r.height,
    ids = r.geomIds;
  let n = 0,
    sx = 0,
    sy = 0,
    x0 = W,
    x1 = -1,
    y0 = H,
    y1 = -1;
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      if (ids[y * W + x] !== g) continue;
      n++;
      sx += x;
      sy += y;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
    }
  }
  return { n, cx: sx / Math.max(n, 1), cy: sy / Math.max(n, 1), x0, x1, y0, y1 };
}

// ---------------------------------------------------------------- tests

test('sphere straight ahead appears centred with its colour; corners are background', () => {
  const r = new RayRenderer({ width: 64, height: 48 });
  const img = r.render(scene([{ type: 2, size: [0.2, 0, 0], pos: [0, 0, -2], rgba: RED }]), CAM_IDENTITY);
  assert.equal(img.length, 64 * 48 * 3);
  assert.ok(isRedish(px(img, 64, 32, 24)), `centre ${px(img, 64, 32, 24)}`);
  assert.equal(r.geomIds[24 * 64 + 32], 0);
  const f = footprint(r, 0);
  assert.ok(Math.abs(f.cx - 31.5) < 0.75 && Math.abs(f.cy - 23.5) < 0.75, `centroid ${f.cx},${f.cy}`);
  // expected radius in pixels: (r/d) / tan(fovy/2) * H/2 (approx.)
  const expR = (0.2 / 2 / Math.tan((22.5 * Math.PI) / 180)) * 24;
  assert.ok(Math.abs(f.n - Math.PI * expR * expR) / (Math.PI * expR * expR) < 0.15, `area ${f.n}`);
  assert.equal(r.geomIds[0], -1);
  const bg = px(img, 64, 0, 0);
  assert.deepEqual(px(img, 64, 63, 47), bg);
  // depth at the centre ~ 2 - 0.2
  assert.ok(Math.abs(r.depth[24 * 64 + 32]! - 1.8) < 0.01);
});

test('camera convention: +x camera right, +y camera up (identity and MJCF-style camera)', () => {
  const r = new RayRenderer({ width: 64, height: 64 });
  const box = (pos: [number, number, number], rgba: [number, number, number, number]): GeomSpec => ({
    type: 6,
    size: [0.1, 0.1, 0.1],
    pos,
    rgba,
  });

  r.render(scene([box([0.5, 0, -2], RED), box([0, 0.5, -2], GREEN)]), CAM_IDENTITY);
  let a = footprint(r, 0),
    b = footprint(r, 1);
  assert.ok(a.n > 0 && b.n > 0);
  assert.ok(a.cx > 40 && Math.abs(a.cy - 31.5) < 3, `+x box at ${a.cx},${a.cy}`);
  assert.ok(b.cy < 24 && Math.abs(b.cx - 31.5) < 3, `+y box at ${b.cx},${b.cy}`);

  // camera 2 m behind the origin along -y, looking along +y: world +x is right, world +z is up
  r.render(
    scene([box([0.5, 0, 0], RED), box([0, 0, 0.5], GREEN), box([-0.5, 0, 0], BLUE)]),
    camLookingPlusY([0, -2, 0]),
  );
  a = footprint(r, 0);
  b = footprint(r, 1);
  const c = footprint(r, 2);
  assert.ok(a.cx > 40, `world +x box at ${a.cx}`);
  assert.ok(c.cx < 24, `world -x box at ${c.cx}`);
  assert.ok(b.cy < 24, `world +z box at row ${b.cy}`);
});

test('occlusion: the nearer geom wins regardless of geom order', () => {
  const near: GeomSpec = { type: 2, size: [0.1, 0, 0], pos: [0, 0, -1], rgba: RED };
  const far: GeomSpec = { type: 6, size: [0.5, 0.5, 0.1], pos: [0, 0, -3], rgba: GREEN };
  const r = new RayRenderer({ width: 32, height: 32 });
  for (const order of [
    [near, far],
    [far, near],
  ]) {
    const img = r.render(scene(order), CAM_IDENTITY);
    assert.ok(isRedish(px(img, 32, 16, 16)), 'centre shows the near sphere');
    assert.ok(isGreenish(px(img, 32, 16, 10)) && isGreenish(px(img, 32, 10, 16)), 'far box visible around it');
  }
});

test('capsule, cylinder, ellipsoid, box and plane each render with their colour', () => {
  const r = new RayRenderer({ width: 48, height: 48 });
  const cases: { spec: GeomSpec; check: (p: [number, number, number]) => boolean }[] = [
    { spec: { type: 3, size: [0.1, 0.3, 0], pos: [0, 0, -2], mat: rotY(90), rgba: RED }, check: isRedish },
    { spec: { type: 5, size: [0.2, 0.2, 0], pos: [0, 0, -2], mat: rotX(30), rgba: GREEN }, check: isGreenish },
    { spec: { type: 4, size: [0.3, 0.1, 0.2], pos: [0, 0, -2], rgba: BLUE }, check: isBlueish },
    { spec: { type: 6, size: [0.2, 0.1, 0.1], pos: [0, 0, -2], mat: rotY(30), rgba: RED }, check: isRedish },
    // floor plane 1 m below an MJCF-style camera looking along +y
    { spec: { type: 0, size: [0, 0, 0.05], pos: [0, 0, 0], rgba: GREEN }, check: isGreenish },
  ];
  for (const [k, { spec, check }] of cases.entries()) {
    const cam = spec.type === 0 ? camLookingPlusY([0, 0, 1]) : CAM_IDENTITY;
    const img = r.render(scene([spec]), cam);
    const f = footprint(r, 0);
    assert.ok(f.n > 20, `case ${k}: only ${f.n} pixels`);
    let good = 0;
    for (let i = 0; i < 48 * 48; i++) {
      if (r.geomIds[i] === 0 && check([img[3 * i]!, img[3 * i + 1]!, img[3 * i + 2]!])) good++;
    }
    assert.equal(good, f.n, `case ${k}: every covered pixel has the geom's hue`);
    if (spec.type === 0) {
      // camera looks horizontally at height 1: floor fills exactly the lower half
      assert.equal(f.y0, 24);
      assert.equal(f.y1, 47);
      assert.equal(f.n, 24 * 48);
    }
  }
  // capsule rotated 90 deg about y lies along world x: wider than tall, rounded ends
  r.render(scene([cases[0]!.spec]), CAM_IDENTITY);
  const cap = footprint(r, 0);
  assert.ok(cap.x1 - cap.x0 > 2.5 * (cap.y1 - cap.y0), `capsule extent ${cap.x1 - cap.x0} x ${cap.y1 - cap.y0}`);
  // ellipsoid radii 0.3 x 0.1: about 3x wider than tall
  r.render(scene([cases[2]!.spec]), CAM_IDENTITY);
  const ell = footprint(r, 0);
  const ratio = (ell.x1 - ell.x0 + 1) / (ell.y1 - ell.y0 + 1);
  assert.ok(ratio > 2.4 && ratio < 3.6, `ellipsoid aspect ${ratio}`);
});

test('finite plane is bounded; plane is visible from above only where it exists', () => {
  const r = new RayRenderer({ width: 32, height: 32 });
  // looking straight down from 2 m at a 0.2 x 0.2 half-size plane: camera looks along -z (identity)
  r.render(scene([{ type: 0, size: [0.2, 0.2, 0.1], pos: [0, 0, -2], rgba: GREEN }]), CAM_IDENTITY);
  const f = footprint(r, 0);
  assert.ok(f.n > 0 && f.x0 > 0 && f.x1 < 31 && f.y0 > 0 && f.y1 < 31, `plane footprint ${JSON.stringify(f)}`);
});

test('lighting: normals give shading variation but colours stay recognisable', () => {
  const r = new RayRenderer({ width: 64, height: 64, shadows: false });
  const yellow: [number, number, number, number] = [0.95, 0.85, 0.1, 1];
  const orange: [number, number, number, number] = [0.95, 0.5, 0.05, 1];
  const img = r.render(
    scene([
      { type: 2, size: [0.25, 0, 0], pos: [-0.3, 0, -2], rgba: yellow },
      { type: 2, size: [0.25, 0, 0], pos: [0.3, 0, -2], rgba: orange },
    ]),
    CAM_IDENTITY,
  );
  let minY = 1e9,
    maxY = -1;
  for (let i = 0; i < 64 * 64; i++) {
    const g = r.geomIds[i];
    if (g === -1) continue;
    const [R, G, B] = [img[3 * i]!, img[3 * i + 1]!, img[3 * i + 2]!];
    const ratio = G / R;
    if (g === 0) {
      assert.ok(ratio > 0.8, `yellow pixel ${R},${G},${B}`);
      minY = Math.min(minY, R);
      maxY = Math.max(maxY, R);
    } else assert.ok(ratio > 0.4 && ratio < 0.65, `orange pixel ${R},${G},${B}`);
    assert.ok(R >= 0.5 * 255 * 0.95, 'shading stays mild');
  }
  assert.ok(maxY - minY > 20, 'sphere shows some shading');
});

test('hard shadows: floor under a floating box is darker than floor elsewhere', () => {
  const specs: GeomSpec[] = [
    { type: 0, size: [0, 0, 0.05], pos: [0, 0, 0], rgba: [0.8, 0.8, 0.8, 1] },
    { type: 6, size: [0.15, 0.15, 0.15], pos: [0, 1.5, 0.5], rgba: RED },
  ];
  const cam = camPitched([0, 0, 1.2], 35, 60);
  const opts = { width: 64, height: 64, keyDirection: [0, 0, 1] as [number, number, number] };
  const withS = new RayRenderer({ ...opts, shadows: true });
  const noS = new RayRenderer({ ...opts, shadows: false });
  const a = withS.render(scene(specs), cam);
  const b = noS.render(scene(specs), cam);
  let darker = 0,
    floorPx = 0;
  for (let i = 0; i < 64 * 64; i++) {
    if (withS.geomIds[i] !== 0) continue;
    floorPx++;
    if (a[3 * i]! < b[3 * i]!) darker++;
    else assert.equal(a[3 * i], b[3 * i]);
  }
  assert.ok(darker > 10, `shadow pixels: ${darker}`);
  assert.ok(darker < floorPx / 4, 'shadow is local');
  // the box itself is lit identically on its top (convex: no self-shadowing)
  for (let i = 0; i < 64 * 64; i++) if (withS.geomIds[i] === 1) assert.equal(a[3 * i], b[3 * i]);
});

test('primary-ray culling is conservative: identical to brute force on a random scene', () => {
  let seed = 12345;
  const rnd = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const specs: GeomSpec[] = [{ type: 0, size: [0, 0, 0.05], pos: [0, 0, 0], rgba: [0.7, 0.7, 0.7, 1] }];
  const types = [2, 3, 4, 5, 6];
  for (let k = 0; k < 40; k++) {
    const t = types[k % types.length]!;
    const mat = rotX(360 * rnd());
    const R = rotY(360 * rnd());
    // compose R * mat
    const m = new Array<number>(9).fill(0);
    for (let i = 0; i < 3; i++)
      for (let j = 0; j < 3; j++) for (let q = 0; q < 3; q++) m[3 * i + j]! += R[3 * i + q]! * mat[3 * q + j]!;
    specs.push({
      type: t,
      size: [0.03 + 0.1 * rnd(), 0.03 + 0.1 * rnd(), 0.03 + 0.1 * rnd()],
      pos: [-0.8 + 1.6 * rnd(), 0.3 + 1.5 * rnd(), 0.4 * rnd()],
      mat: m,
      rgba: [rnd(), rnd(), rnd(), 1],
    });
  }
  const sc = scene(specs);
  const cam = camLookingPlusY([0.1, -0.4, 0.5], 70);
  const tilted = camPitched([0, -0.6, 0.8], 25, 60);
  for (const c of [cam, tilted]) {
    const culled = new RayRenderer({ width: 48, height: 40 });
    const brute = new RayRenderer({ width: 48, height: 40, cull: false });
    const x = culled.render(sc, c);
    const y = brute.render(sc, c);
    assert.deepEqual(culled.geomIds, brute.geomIds);
    assert.deepEqual(x, y);
    assert.ok(new Set(culled.geomIds).size > 10, 'many geoms visible');
  }
});

test('deterministic output, no NaN, not blank', () => {
  const specs: GeomSpec[] = [
    { type: 0, size: [0, 0, 0.05], pos: [0, 0, 0], rgba: [0.6, 0.6, 0.6, 1] },
    { type: 6, size: [0.4, 0.3, 0.02], pos: [0, 1, 0.4], rgba: [0.55, 0.4, 0.25, 1] },
    { type: 3, size: [0.03, 0.15, 0], pos: [0, 0.8, 0.6], mat: rotX(40), rgba: [0.8, 0.8, 0.85, 1] },
    { type: 5, size: [0.04, 0.05, 0], pos: [0.2, 1.1, 0.47], rgba: BLUE },
    { type: 4, size: [0.05, 0.03, 0.02], pos: [-0.2, 1.1, 0.44], rgba: RED },
    { type: 2, size: [0.03, 0, 0], pos: [0.1, 0.9, 0.45], rgba: GREEN },
  ];
  const sc = scene(specs);
  const cam = camLookingPlusY([0, -0.2, 0.7], 60);
  const r1 = new RayRenderer({ width: 40, height: 30 });
  const r2 = new RayRenderer({ width: 40, height: 30 });
  const a = r1.render(sc, cam);
  const b = r1.render(sc, cam, new Uint8Array(40 * 30 * 3));
  const c = r2.render(sc, cam);
  assert.notEqual(a, b);
  assert.deepEqual(a, b);
  assert.deepEqual(a, c);
  const ids = new Set(r1.geomIds);
  for (const g of [0, 1, 2, 3, 4, 5]) assert.ok(ids.has(g), `geom ${g} visible`);
  for (let i = 0; i < r1.depth.length; i++) {
    if (r1.geomIds[i]! >= 0) assert.ok(Number.isFinite(r1.depth[i]!) && r1.depth[i]! >= 0.01);
  }
  const distinct = new Set<number>();
  for (let i = 0; i < a.length; i += 3) distinct.add((a[i]! << 16) | (a[i + 1]! << 8) | a[i + 2]!);
  assert.ok(distinct.size > 10, 'image is not blank');
  // reusing `out` does not allocate and returns the same buffer
  const out = new Uint8Array(40 * 30 * 3);
  assert.equal(r1.render(sc, cam, out), out);
  assert.throws(() => r1.render(sc, cam, new Uint8Array(10)));
});

test('invisible geoms (alpha 0 or mask 0) are not rendered and cast no shadow', () => {
  const r = new RayRenderer({ width: 32, height: 32 });
  const back: GeomSpec = { type: 6, size: [1, 1, 0.1], pos: [0, 0, -3], rgba: GREEN };
  const img0 = r.render(scene([back]), CAM_IDENTITY);
  const hidden = [
    scene([{ type: 2, size: [0.3, 0, 0], pos: [0, 0, -1], rgba: [1, 0, 0, 0] }, back]),
    scene([{ type: 2, size: [0.3, 0, 0], pos: [0, 0, -1], rgba: RED, visible: 0 }, back]),
    scene([{ type: 7, size: [0.3, 0.3, 0.3], pos: [0, 0, -1], rgba: RED }, back]), // mesh: skipped
  ];
  for (const sc of hidden) {
    const img = r.render(sc, CAM_IDENTITY);
    assert.deepEqual(img, img0);
    assert.ok(!r.geomIds.includes(0));
  }
  // without a mask entry array the geom is visible
  const sc = scene([{ type: 2, size: [0.3, 0, 0], pos: [0, 0, -1], rgba: RED }, back]);
  delete sc.visible;
  r.render(sc, CAM_IDENTITY);
  assert.ok(r.geomIds.includes(0));
});

test('near plane clips geoms closer than 1 cm; a camera inside a geom sees its inside', () => {
  const r = new RayRenderer({ width: 16, height: 16 });
  // a sphere whose front surface is 5 mm in front of the camera: front clipped, back visible
  r.render(scene([{ type: 2, size: [0.1, 0, 0], pos: [0, 0, -0.105], rgba: RED }]), CAM_IDENTITY);
  const d = r.depth[8 * 16 + 8]!;
  assert.ok(Math.abs(d - 0.205) < 0.005, `depth ${d}`);
});

test('normals: Lambert intensities match analytic normals (rotated box, cylinder cap, ellipsoid)', () => {
  // key light from the camera (+z world for the identity camera), no headlight, no shadows
  const r = new RayRenderer({ width: 64, height: 64, shadows: false, headlight: 0, keyDirection: [0, 0, 1] });
  const WHITE: [number, number, number, number] = [1, 1, 1, 1];
  const level = (nl: number) => Math.round(255 * (0.55 + 0.35 * Math.max(0, nl)));

  // box rotated 30 deg about y: visible faces have n.L = cos 30 and cos 60
  let img = r.render(
    scene([{ type: 6, size: [0.2, 0.2, 0.2], pos: [0, 0, -2], mat: rotY(30), rgba: WHITE }]),
    CAM_IDENTITY,
  );
  const seen = new Map<number, number>();
  for (let i = 0; i < 64 * 64; i++) if (r.geomIds[i] === 0) seen.set(img[3 * i]!, (seen.get(img[3 * i]!) ?? 0) + 1);
  assert.deepEqual([...seen.keys()].sort(), [level(Math.cos(Math.PI / 3)), level(Math.cos(Math.PI / 6))].sort());

  // cylinder with its axis along the view direction: the cap faces the light
  img = r.render(scene([{ type: 5, size: [0.2, 0.1, 0], pos: [0, 0, -2], rgba: WHITE }]), CAM_IDENTITY);
  for (let i = 0; i < 64 * 64; i++) if (r.geomIds[i] === 0) assert.equal(img[3 * i], level(1));

  // ellipsoid rotated about z: compare every pixel with the analytic normal at the hit point
  const ang = 0.5,
    c = Math.cos(ang),
    s = Math.sin(ang);
  const radii = [0.3, 0.1, 0.2];
  const ell: GeomSpec = {
    type: 4,
    size: radii as [number, number, number],
    pos: [0.1, -0.05, -2],
    mat: [c, -s, 0, s, c, 0, 0, 0, 1],
    rgba: WHITE,
  };
  img = r.render(scene([ell]), CAM_IDENTITY);
  const tanH = Math.tan((22.5 * Math.PI) / 180);
  let n = 0;
  for (let y = 0; y < 64; y++) {
    for (let x = 0; x < 64; x++) {
      const i = y * 64 + x;
      if (r.geomIds[i] !== 0) continue;
      n++;
      const t = r.depth[i]!;
      const u = ((2 * (x + 0.5)) / 64 - 1) * tanH,
        v = (1 - (2 * (y + 0.5)) / 64) * tanH;
      // world hit point relative to the centre, then into the local frame (R^T)
      const wx = t * u - 0.1,
        wy = t * v + 0.05,
        wz = -t + 2;
      const lx = c * wx + s * wy,
        ly = -s * wx + c * wy,
        lz = wz;
      assert.ok(
        Math.abs((lx / radii[0]!) ** 2 + (ly / radii[1]!) ** 2 + (lz / radii[2]!) ** 2 - 1) < 1e-9,
        'hit on the surface',
      );
      const gl = [lx / radii[0]! ** 2, ly / radii[1]! ** 2, lz / radii[2]! ** 2];
      const gw = [c * gl[0]! - s * gl[1]!, s * gl[0]! + c * gl[1]!, gl[2]!];
      const nz = gw[2]! / Math.hypot(gw[0]!, gw[1]!, gw[2]!);
      assert.ok(Math.abs(img[3 * i]! - level(nz)) <= 1, `pixel ${x},${y}: ${img[3 * i]} vs ${level(nz)}`);
    }
  }
  assert.ok(n > 50);
});
