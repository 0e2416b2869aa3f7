import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { Rng } from '../../src/core/rng.ts';
import { addTaskFiles, BUILT_IN, familyDef, taskFamilies } from '../../src/tasks/families.ts';
import { sampleTask } from '../../src/tasks/sampleTask.ts';
import { taskOfInstruction } from '../../src/tasks/instructionTask.ts';
import { sampleLayout } from '../../sim/layout.ts';
import { TaskProgress } from '../../sim/taskProgress.ts';
import { EXPERTS } from '../../sim/experts/planners.ts';
import { EXPERT_NEEDS } from '../../sim/armFeasibility.ts';
import { FakeScene } from '../helpers/fakeTaskScene.ts';

const PLACE = resolve('configs/tasks/place.yaml');

test('place is a family of its file alone: not built in, registered by --task-file, its split declared', () => {
  assert.deepEqual([...BUILT_IN], ['reach', 'push', 'pick'], "the world model's one-hot is unchanged");
  assert.ok(!taskFamilies().includes('place'), 'configs/tasks/ loads only the built-in families');
  assert.deepEqual(addTaskFiles(PLACE), ['place']);
  const def = familyDef('place');
  assert.equal(def.templates.length, 4);
  for (const t of def.templates) assert.match(t, /\{color\}.*\{zone\}/);
  assert.deepEqual(def.heldOutColors, ['blue']);
  assert.deepEqual(def.heldOutTemplates, [3]);
  for (const other of BUILT_IN) assert.ok(!familyDef(other).heldOutColors.includes('blue'), other);
  assert.equal(def.scene?.expert, 'place');
  assert.ok(def.scene?.zone);
  assert.ok(EXPERTS.includes('place') && EXPERT_NEEDS.place?.down);
  for (let seed = 0; seed < 20; seed++) {
    const train = sampleTask({ family: 'place' }, 'train', new Rng(seed));
    assert.ok(train.color !== 'blue' && train.template !== 3 && train.zoneColor !== train.color);
    const held = sampleTask({ family: 'place' }, 'test', new Rng(seed));
    assert.ok(held.color === 'blue' || held.template === 3, JSON.stringify(held));
  }
  const task = taskOfInstruction('Put the red block in the green zone.');
  assert.deepEqual([task?.family, task?.color, task?.zoneColor], ['place', 'red', 'green']);
});

test("place's success: the block set down inside the zone and let go, for half a second; not while held up", () => {
  addTaskFiles(PLACE);
  const task = sampleTask({ family: 'place', color: 'red', third: 'green' }, 'train', new Rng(7));
  const layout = sampleLayout(task, new Rng(7));
  const scene = new FakeScene();
  const start = layout.objects[0]!.pos;
  const zone = layout.zones[0]!;
  const [zx, zy] = zone.pos;
  scene.object = [start[0], start[1], start[2], 1, 0, 0, 0];
  scene.zone = [zx, zy, 0];
  const progress = new TaskProgress(familyDef('place'), layout, scene);
  assert.deepEqual(progress.goal(scene), [zx, zy, 0.02], 'the goal is the zone, where the block rests');
  assert.deepEqual(progress.status(scene).success, false);
  const at = (t: number, block: number[], ee: number[]) => {
    scene.time = t;
    scene.object = [...block, 1, 0, 0, 0];
    scene.ee = ee;
    return progress.status(scene);
  };
  // Held up over the zone's centre, for longer than the hold: never a success.
  for (const t of [1, 1.5, 2, 3]) assert.equal(at(t, [zx, zy, 0.08], [zx, zy, 0.086]).success, false);
  // Down on the zone but still in the fingers (the gripper at the grasp point): not yet.
  for (const t of [3.1, 3.7]) assert.equal(at(t, [zx, zy, 0.02], [zx, zy, 0.026]).success, false);
  // Let go, the gripper clear above it: a success once that has held for 0.5 s.
  const released = at(4, [zx, zy, 0.02], [zx, zy, 0.1]);
  assert.equal(released.success, false);
  assert.ok(released.progress > 0.9, `progress ${released.progress}`);
  assert.equal(at(4.4, [zx, zy, 0.02], [zx, zy, 0.1]).success, false);
  assert.equal(at(4.5, [zx, zy, 0.02], [zx, zy, 0.1]).success, true);
  // Resting inside the disc but less than 1.5 cm in from its rim, or 1 cm up off the table: no.
  const rim = zone.radius - 0.01;
  for (const t of [5, 6]) assert.equal(at(t, [zx + rim, zy, 0.02], [zx + rim, zy, 0.1]).success, false);
  for (const t of [7, 8]) assert.equal(at(t, [zx, zy, 0.031], [zx, zy, 0.1]).success, false);
});
