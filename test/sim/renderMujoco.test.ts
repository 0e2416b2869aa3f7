import { test } from 'node:test';
import assert from 'node:assert/strict';
import loadMujoco from 'mujoco';
import { RayRenderer } from '../../sim/render/rayRenderer.ts';
import { MujocoScene } from '../../sim/render/mujocoScene.ts';

const MJOBJ_GEOM = 5;

// Camera 1 m in front of (along -y) and above a red cube sitting on a table, pitched down
// (xyaxes: right = +x, up = (0, 0.5, 1) normalised). A blue sphere is to the cube's +x
// (image right), a material-coloured yellow cylinder to its -x (image left), a capsule
// rotated by euler="0 90 0" (degrees) lies along x behind it, and a big green collision-only
// box (group 3) sits between camera and cube.
const XML = `
<mujoco model="render_test">
  <asset>
    <material name="yellow" rgba="1 0.85 0 1"/>
  </asset>
  <worldbody>
    <geom name="floor" type="plane" size="0 0 0.05" rgba="0.6 0.6 0.6 1"/>
    <geom name="table" type="box" pos="0 0 0.225" size="0.6 0.4 0.225" rgba="0.55 0.4 0.25 1"/>
    <body name="cube" pos="0 0 0.5">
      <freejoint/>
      <geom name="cube" type="box" size="0.05 0.05 0.05" rgba="0.9 0.1 0.1 1"/>
    </body>
    <geom name="ball" type="sphere" pos="0.3 0 0.5" size="0.05" rgba="0.1 0.2 0.9 1"/>
    <geom name="can" type="cylinder" pos="-0.3 0 0.5" size="0.04 0.05" material="yellow"/>
    <geom name="bar" type="capsule" pos="0 0.25 0.55" euler="0 90 0" size="0.03 0.2" rgba="0.1 0.8 0.1 1"/>
    <geom name="collision" type="box" group="3" pos="0 -0.5 0.75" size="0.2 0.05 0.2" rgba="0 1 0 1"/>
    <camera name="front" pos="0 -1 1" xyaxes="1 0 0 0 0.5 1" fovy="50"/>
  </worldbody>
</mujoco>`;

test('renders an MJCF camera of a real mujoco model', async () => {
  const mj = await loadMujoco();
  mj.FS.writeFile('/tmp/render_test.xml', XML);
  const model = mj.MjModel.mj_loadXML('/tmp/render_test.xml');
  let data: InstanceType<typeof mj.MjData> | undefined;
  try {
    data = new mj.MjData(model);
    mj.mj_forward(model, data);
    const id = (name: string) => mj.mj_name2id(model, MJOBJ_GEOM, name);
    const cube = id('cube'),
      ball = id('ball'),
      can = id('can'),
      bar = id('bar'),
      coll = id('collision');
    assert.ok([cube, ball, can, bar, coll].every((g) => g >= 0));

    const W = 64,
      H = 64;
    const view = new MujocoScene(model);
    const cam = view.camera(data, 0);
    assert.equal(cam.fovy, 50);
    const r = new RayRenderer({ width: W, height: H });
    const img = r.render(view.geoms(data), cam);

    // the cube is at the image centre and red
    const c = (H / 2) * W + W / 2;
    assert.equal(r.geomIds[c], cube);
    const [R, G, B] = [img[3 * c]!, img[3 * c + 1]!, img[3 * c + 2]!];
    assert.ok(R > 100 && R > 3 * G && R > 3 * B, `centre pixel ${R},${G},${B}`);

    const centroid = (g: number) => {
      let n = 0,
        sx = 0,
        sy = 0;
      for (let i = 0; i < W * H; i++)
        if (r.geomIds[i] === g) {
          n++;
          sx += i % W;
          sy += Math.floor(i / W);
        }
      return { n, x: sx / n, y: sy / n };
    };
    const pb = centroid(ball),
      pc = centroid(can),
      pbar = centroid(bar);
    assert.ok(pb.n > 5 && pb.x > W * 0.75 && Math.abs(pb.y - H / 2) < 6, `ball at ${JSON.stringify(pb)}`);
    assert.ok(pc.n > 5 && pc.x < W * 0.25 && Math.abs(pc.y - H / 2) < 6, `can at ${JSON.stringify(pc)}`);
    // bar is further away and higher: above the cube in the image, wide (euler in degrees -> along x)
    assert.ok(pbar.n > 5 && pbar.y < H / 2, `bar at ${JSON.stringify(pbar)}`);
    let bx0 = W,
      bx1 = -1;
    for (let i = 0; i < W * H; i++)
      if (r.geomIds[i] === bar) {
        bx0 = Math.min(bx0, i % W);
        bx1 = Math.max(bx1, i % W);
      }
    assert.ok(bx1 - bx0 > 20, `bar spans ${bx0}..${bx1}`);

    // material colour resolved: the cylinder is yellow (R and G high, B low)
    const ci = Math.round(pc.y) * W + Math.round(pc.x);
    assert.equal(r.geomIds[ci], can);
    const [yr, yg, yb] = [img[3 * ci]!, img[3 * ci + 1]!, img[3 * ci + 2]!];
    assert.ok(yr > 120 && yg > 0.7 * yr && yb < 0.3 * yr, `can pixel ${yr},${yg},${yb}`);

    // the group-3 collision box is hidden by the default group mask...
    assert.ok(!r.geomIds.includes(coll));
    // ...and shows up (occluding the cube) when all groups are drawn
    const all = new MujocoScene(model, { groups: [0, 1, 2, 3, 4, 5] });
    r.render(all.geoms(data), all.camera(data, 0));
    assert.equal(r.geomIds[c], coll);
    // an extra mask hides single geoms (e.g. the robot's own gripper for a wrist cam)
    const mask = new Uint8Array(model.ngeom).fill(1);
    mask[cube] = 0;
    const noCube = new MujocoScene(model, { visible: mask });
    r.render(noCube.geoms(data), noCube.camera(data, 0));
    assert.ok(!r.geomIds.includes(cube));

    // raw model/data views also work directly (no helper)
    const raw = r.render(
      {
        ngeom: model.ngeom,
        type: model.geom_type,
        size: model.geom_size,
        xpos: data.geom_xpos,
        xmat: data.geom_xmat,
        rgba: model.geom_rgba,
        visible: view.visible,
      },
      { pos: data.cam_xpos, mat: data.cam_xmat, fovy: model.cam_fovy[0] },
    );
    assert.equal(r.geomIds[c], cube);
    assert.equal(raw[3 * c], R);
  } finally {
    data?.delete();
    model.delete();
  }
});
