/**
 * The simulator keeps compiled scene models within a byte budget, the most recently used first and the loaded one
 * always: a mesh arm's model is tens of megabytes, and one kept per mix of objects once ran out of WebAssembly memory
 * after a few dozen scenes. A scene compiled again simulates exactly as the first time.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadRobot } from '../../src/core/robotDescription.ts';
import { Rng } from '../../src/core/rng.ts';
import { planEpisodes } from '../../src/tasks/episodePlan.ts';
import { sampleLayout } from '../../sim/layout.ts';
import { MAX_COMPILED_SCENE_BYTES, Simulator } from '../../sim/simulator.ts';

const robot = loadRobot('vx300');
/** Reach scenes of many different mixes of objects. */
const layouts = planEpisodes([{ family: 'reach' }], 'train', 30, 1000).map((p) =>
  sampleLayout(p.task, new Rng(p.seed)),
);

/** The arm's joint positions after 20 ticks towards a fixed target from `layout`'s start. */
function run(sim: Simulator, layout: (typeof layouts)[number]): number[] {
  sim.load(layout);
  for (let t = 0; t < 20; t++) sim.tick([0.3, -0.2, 0.1, 0, 0.2, 0], 0);
  return Array.from(sim.armQpos());
}

test('compiled scenes stay within the byte budget; a scene compiled again simulates as the first time', async () => {
  const unbounded = await Simulator.create({ robot });
  const tight = await Simulator.create({ robot, compiledSceneBytes: 100_000 });
  try {
    const first = layouts.map((l) => run(unbounded, l));
    const kinds = unbounded.compiledScenes;
    assert.ok(kinds >= 10, `the layouts make ${kinds} different scenes`);
    assert.ok(unbounded.compiledSceneBytes <= MAX_COMPILED_SCENE_BYTES, 'a primitive arm keeps every scene');
    const model = unbounded.compiledSceneBytes / kinds;
    let most = 0;
    for (const [i, l] of layouts.entries()) {
      assert.deepEqual(run(tight, l), first[i], `layout ${i} simulates as when it was first compiled`);
      most = Math.max(most, tight.compiledSceneBytes);
    }
    // The budget, and at most one model past it (the one just compiled while the loaded one is kept).
    assert.ok(most <= 100_000 + 2 * model, `held ${most} bytes against a 100000-byte budget (${model} a model)`);
    assert.ok(tight.compiledScenes < kinds, `${tight.compiledScenes} of ${kinds} scenes kept`);
    // The loaded scene is never freed under it.
    assert.deepEqual(run(tight, layouts[0]!), first[0]);
  } finally {
    unbounded.close();
    tight.close();
  }
});
