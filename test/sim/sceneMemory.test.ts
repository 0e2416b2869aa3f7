/**
 * Memory stays flat however many scenes a mesh arm runs through: SO-101 (13 STL meshes, about 61 MB a compiled scene)
 * loads 60 scenes of as many different mixes of objects in one process. Without a bound on the compiled scenes kept
 * (MAX_COMPILED_SCENE_BYTES), every mix keeps its model and the 2 GB WebAssembly heap runs out at the 27th scene.
 * Each scene compiles anew (about 0.6 s of CPU), hence 60; `npm run bench:scenes` runs 1,000 episodes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadRobot } from '../../src/core/robotDescription.ts';
import { OBJECT_KINDS, type ObjectKind } from '../../src/tasks/vocabulary.ts';
import { tableRegion, OBJECT_HALF_HEIGHT, type SceneLayout } from '../../sim/layout.ts';
import { getMujoco, wasmHeapBytes } from '../../sim/mujocoRuntime.ts';
import { MAX_COMPILED_SCENE_BYTES, Simulator } from '../../sim/simulator.ts';

const MiB = 2 ** 20;
/** Well under the 2 GB the heap can reach; it levels off at about 0.9 GiB. */
const HEAP_CEILING = 1536 * MiB;

/** Sequences of one to four object kinds, the shorter first: `count` different scene structures. */
function kindSequences(count: number): ObjectKind[][] {
  const out: ObjectKind[][] = [];
  let level: ObjectKind[][] = [[]];
  for (let n = 1; n <= 4; n++) {
    level = level.flatMap((s) => OBJECT_KINDS.map((k) => [...s, k]));
    out.push(...level);
  }
  return out.slice(0, count);
}

/** The objects in a row across the table, `scale` the arm's layout scale. */
function layoutOf(kinds: ObjectKind[], scale: number): SceneLayout {
  const r = tableRegion(scale);
  const x = (r.xMin + r.xMax) / 2;
  return {
    objects: kinds.map((kind, i) => ({
      kind,
      color: 'red',
      pos: [x, r.yMin + ((i + 0.5) * (r.yMax - r.yMin)) / kinds.length, OBJECT_HALF_HEIGHT[kind]],
      yaw: 0,
    })),
    zones: [],
  };
}

test('SO-101 through 60 different scenes: the heap and compiled scenes stay bounded and stop growing', async (t) => {
  const robot = loadRobot('so101');
  const mj = await getMujoco();
  const sim = await Simulator.create({ robot });
  const sequences = kindSequences(60);
  assert.equal(new Set(sequences.map((s) => s.join(','))).size, 60);
  const heap: number[] = [];
  let model = 0;
  let held = 0;
  try {
    for (const [i, kinds] of sequences.entries()) {
      sim.load(layoutOf(kinds, sim.layoutScale));
      sim.tick(robot.arm.home, robot.gripper.open);
      assert.equal(sim.objectCount, kinds.length);
      model = Math.max(model, sim.compiledSceneBytes / sim.compiledScenes);
      held = Math.max(held, sim.compiledSceneBytes);
      heap.push(wasmHeapBytes(mj));
      assert.ok(heap[i]! < HEAP_CEILING, `scene ${i + 1}: heap ${(heap[i]! / MiB).toFixed(0)} MiB`);
    }
    assert.ok(model > 30 * MiB, `a compiled SO-101 scene is ${(model / MiB).toFixed(0)} MiB: a mesh arm's`);
    // The budget, and at most the model just compiled past it (compiled while the loaded one is kept).
    assert.ok(held <= MAX_COMPILED_SCENE_BYTES + model, `compiled scenes held ${(held / MiB).toFixed(0)} MiB at most`);
    // Once the cache is full, freed models' memory is reused: no growth from the 30th scene (past where the
    // unbounded cache failed) to the 60th beyond one model's worth (the heap may grow once more for fragmentation).
    const [at30, at60] = [heap[29]!, heap[59]!];
    t.diagnostic(`heap ${(at30 / MiB).toFixed(0)} → ${(at60 / MiB).toFixed(0)} MiB from scene 30 to 60`);
    assert.ok(
      at60 <= at30 + model,
      `heap ${(at30 / MiB).toFixed(0)} MiB at scene 30, ${(at60 / MiB).toFixed(0)} MiB at scene 60`,
    );
  } finally {
    sim.close();
  }
});
