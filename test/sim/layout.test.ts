/** The task layout scales with the arm's reach; vx300's layout is exactly what it always was. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Rng } from '../../src/core/rng.ts';
import { loadRobot } from '../../src/core/robotDescription.ts';
import type { TaskSpec } from '../../src/core/types.ts';
import { layoutScale, VX300_REACH } from '../../sim/armReach.ts';
import { sampleLayout, tableRegion, type SceneLayout } from '../../sim/layout.ts';
import { buildSceneXml } from '../../sim/sceneBuilder.ts';
import { Simulator } from '../../sim/simulator.ts';
import { sampleTask } from '../../src/tasks/sampleTask.ts';
import { BUILT_IN, taskFamily } from '../../src/tasks/families.ts';

/** Layouts recorded before the layout learnt to scale (18 tasks and seeds; the benchmarks ran on these). */
const GOLDEN = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'fixtures', 'vx300Layouts.json'), 'utf8')) as {
  task: TaskSpec;
  seed: number;
  layout: SceneLayout;
}[];

test("vx300's reach gives layout scale 1 and the recorded layouts, number for number", async () => {
  const robot = loadRobot('vx300');
  const sim = await Simulator.create({ robot });
  try {
    assert.ok(Math.abs(sim.reach - VX300_REACH) < 1e-4, `vx300 reach ${sim.reach}`);
    assert.equal(sim.layoutScale, 1);
    for (const g of GOLDEN) {
      assert.deepEqual(sampleTask({ family: taskFamily(g.task.family) }, 'train', new Rng(g.seed)), g.task);
      assert.deepEqual(
        sampleLayout(g.task, new Rng(g.seed), sim.layoutScale),
        g.layout,
        `${g.task.instruction}/${g.seed}`,
      );
    }
    assert.deepEqual(tableRegion(1), { xMin: 0.26, xMax: 0.5, yMin: -0.2, yMax: 0.2 });
    const xml = buildSceneXml(robot, { objects: [], zones: 0 }, { robotFile: 'robot.xml', scale: sim.layoutScale });
    assert.match(xml, /<geom name="table" type="plane" size="0.9 0.7 0.01"/);
  } finally {
    sim.close();
  }
});

test('a larger or smaller arm gets the region scaled; objects keep their size and spacing', () => {
  assert.equal(layoutScale(VX300_REACH * 0.7), 0.7);
  assert.equal(layoutScale(VX300_REACH * 1.00004), 1, 'steps of 0.01: an arm of vx300 size is scale 1');
  for (const scale of [0.7, 1.4]) {
    const region = tableRegion(scale);
    for (const family of BUILT_IN) {
      for (const seed of [0, 1, 2, 3]) {
        const task = sampleTask({ family }, 'train', new Rng(seed));
        const layout = sampleLayout(task, new Rng(seed), scale);
        for (const o of layout.objects) {
          assert.ok(o.pos[0] >= region.xMin && o.pos[0] <= region.xMax, `${family} x ${o.pos[0]} at scale ${scale}`);
          assert.ok(o.pos[1] >= region.yMin && o.pos[1] <= region.yMax);
        }
        for (let i = 0; i < layout.objects.length; i++)
          for (let j = 0; j < i; j++) {
            const [a, b] = [layout.objects[i]!.pos, layout.objects[j]!.pos];
            assert.ok(Math.hypot(a[0] - b[0], a[1] - b[1]) >= 0.1 - 1e-12, 'objects stay 0.1 m apart');
          }
      }
    }
  }
  assert.throws(
    () => sampleLayout(sampleTask({ family: 'reach' }, 'train', new Rng(0)), new Rng(0), 0.2),
    /layout scale 0.2: the table region may be too small/,
  );
});
