import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Rng } from '../../src/core/rng.ts';
import { addTaskFiles, familyDef, taskFamilies } from '../../src/tasks/families.ts';
import { parseTaskSelectors } from '../../src/tasks/selectors.ts';
import { parseFamily } from '../../src/tasks/familyFile.ts';
import { sampleTask } from '../../src/tasks/sampleTask.ts';
import { taskSpecSchema } from '../../src/tasks/taskSpec.ts';
import { taskOfInstruction } from '../../src/tasks/instructionTask.ts';
import { TaskError } from '../../src/tasks/taskError.ts';
import { sampleLayout } from '../../sim/layout.ts';
import { TaskProgress } from '../../sim/taskProgress.ts';
import { FakeScene } from '../helpers/fakeTaskScene.ts';

const HOLD = resolve('test/fixtures/tasks/hold.yaml');

test('a family from a YAML file alone: registered, sampled, split as declared, a valid task', () => {
  assert.deepEqual(addTaskFiles(HOLD), ['hold']);
  assert.deepEqual(addTaskFiles(HOLD), ['hold'], 'the same file again is fine');
  assert.ok(taskFamilies().includes('hold'));
  const def = familyDef('hold');
  assert.equal(def.seconds, 6);
  assert.deepEqual(def.heldOutTemplates, [2]);
  for (let seed = 0; seed < 40; seed++) {
    const train = sampleTask({ family: 'hold' }, 'train', new Rng(seed));
    assert.equal(train.split, 'train');
    assert.notEqual(train.color, 'orange');
    assert.notEqual(train.template, 2);
    assert.ok(train.zoneColor && train.zoneColor !== train.color);
    assert.deepEqual(taskSpecSchema.parse(train), train);
    const held = sampleTask({ family: 'hold' }, 'test', new Rng(seed));
    assert.equal(held.split, 'test');
    assert.ok(held.color === 'orange' || held.template === 2, JSON.stringify(held));
  }
  assert.deepEqual(parseTaskSelectors('hold:red:blue'), [{ family: 'hold', color: 'red', third: 'blue' }]);
  const task = taskOfInstruction('Hold the red block over the blue zone.');
  assert.equal(task?.family, 'hold');
  assert.equal(task?.zoneColor, 'blue');
});

test("a family file's success condition, progress and goal, over named points, with a hold time", () => {
  addTaskFiles(HOLD);
  const task = sampleTask({ family: 'hold', color: 'red', third: 'blue' }, 'train', new Rng(3));
  const layout = sampleLayout(task, new Rng(3));
  assert.equal(layout.zones.length, 2, 'a zone family has its goal zone and one more');
  const scene = new FakeScene();
  const start = layout.objects[0]!.pos;
  scene.object = [start[0], start[1], start[2], 1, 0, 0, 0];
  const zone = layout.zones[0]!;
  scene.zone = [zone.pos[0], zone.pos[1], 0];
  const progress = new TaskProgress(familyDef('hold'), layout, scene);
  assert.deepEqual(progress.goal(scene), [zone.pos[0], zone.pos[1], 0.02 + 0.08]);
  assert.deepEqual(progress.status(scene), { progress: 0, success: false });
  // Over the zone but on the table: inside, not lifted.
  scene.object = [zone.pos[0], zone.pos[1], start[2], 1, 0, 0, 0];
  assert.equal(progress.status(scene).success, false);
  // Lifted over the zone: both hold, but only from now on.
  scene.object = [zone.pos[0], zone.pos[1], start[2] + 0.08, 1, 0, 0, 0];
  scene.time = 1;
  assert.deepEqual(progress.status(scene), { progress: 1, success: false });
  scene.time = 1.4;
  assert.equal(progress.status(scene).success, false);
  scene.time = 1.5;
  assert.equal(progress.status(scene).success, true, 'held for 0.5 s');
  // Dropped: the hold starts again.
  scene.object = [zone.pos[0], zone.pos[1], start[2], 1, 0, 0, 0];
  scene.time = 1.6;
  assert.equal(progress.status(scene).success, false);
  scene.object = [zone.pos[0], zone.pos[1], start[2] + 0.08, 1, 0, 0, 0];
  scene.time = 1.7;
  assert.equal(progress.status(scene).success, false);
});

test('points name sites and bodies of the robot model', () => {
  const def = parseFamily(
    [
      'instructions: { templates: ["close in on the {color} block"] }',
      'seconds: 3',
      'scene:',
      '  objects: [block]',
      '  goal: target',
      '  success: { all: [{ near: [body:moving_jaw, target], within: 0.05 }] }',
      '  progress: [{ closer: [body:moving_jaw, target] }]',
    ].join('\n'),
    'jaw.yaml',
  );
  assert.equal(def.name, 'jaw');
  const layout = {
    objects: [
      { kind: 'block' as const, color: 'red' as const, pos: [0.3, 0, 0.02] as [number, number, number], yaw: 0 },
    ],
    zones: [],
  };
  const scene = new FakeScene();
  scene.object = [0.3, 0, 0.02, 1, 0, 0, 0];
  const progress = new TaskProgress(def, layout, scene);
  assert.equal(progress.status(scene).success, false);
  scene.ee = [0.3, -0.02, 0.03];
  assert.equal(progress.status(scene).success, true);
});

test('a family file with mistakes: every problem named with its key', () => {
  const bad = (yaml: string) => {
    try {
      parseFamily(yaml, 'bad.yaml');
    } catch (err) {
      assert.ok(err instanceof TaskError);
      return err.message;
    }
    assert.fail(`accepted:\n${yaml}`);
  };
  assert.match(bad('instructions: { templates: [go] }'), /bad\.yaml: not a task family .*\n\s+seconds: /);
  assert.match(bad('instructions: { texts: ["pick the {color} cube"] }\nseconds: 2'), /fixed texts have no \{color\}/);
  assert.match(bad('instructions: { templates: ["pick the {color} cube"] }\nseconds: 2'), /need a scene/);
  assert.match(
    bad('instructions: { texts: [a, b] }\nseconds: 2\nsplit: { templates: [5] }'),
    /split\.templates: 5 is past/,
  );
  assert.match(bad('instructions: { texts: [a] }\nseconds: 2\nsplit: { templates: [0] }'), /train split has none/);
  const scene = (extra: string) =>
    [
      'instructions: { templates: ["push the {color} block to the {zone} zone"] }',
      'seconds: 3',
      'scene:',
      '  objects: [block]',
      '  zone: true',
      '  goal: zone',
      extra,
    ].join('\n');
  assert.match(
    bad(
      scene('  success: { all: [{ near: [gripper, elbow], within: 0.1 }] }\n  progress: [{ closer: [target, zone] }]'),
    ),
    /scene\.success\.all\.0\.near\.1: .*a point is gripper, target/s,
  );
  assert.match(
    bad(
      scene('  success: { all: [{ inside: [target, zone] }] }\n  progress: [{ closer: [target, zone], weight: 0.4 }]'),
    ),
    /weights sum to 0\.4/,
  );
  assert.match(
    bad('instructions: { texts: [a] }\nseconds: 2\nscores: [nope]'.replace('scores', 'score')),
    /Unrecognized key/,
  );
});

test("a family of fixed texts (a dataset's own words): no colour, no scene, declared split", () => {
  const dir = mkdtempSync(join(tmpdir(), 'wmrl-tasks-'));
  try {
    const file = join(dir, 'box.yaml');
    writeFileSync(
      file,
      [
        'instructions:',
        '  texts:',
        '    - Pick the orange cube and place it in the box',
        '    - Put the cube in the box',
        'split: { templates: [1] }',
        'seconds: 15',
      ].join('\n'),
    );
    assert.deepEqual(addTaskFiles(dir), ['box']);
    const train = sampleTask({ family: 'box' }, 'train', new Rng(1));
    assert.deepEqual(train, {
      family: 'box',
      template: 0,
      split: 'train',
      instruction: 'Pick the orange cube and place it in the box',
    });
    assert.deepEqual(taskSpecSchema.parse(train), train);
    assert.equal(sampleTask({ family: 'box' }, 'test', new Rng(1)).instruction, 'Put the cube in the box');
    assert.equal(taskOfInstruction('pick the orange cube and place it in the box')?.family, 'box');
    assert.throws(() => parseTaskSelectors('box:red'), /fixed instructions/);
    assert.throws(() => sampleLayout(train, new Rng(1)), /no scene the simulator can set up: run it on a robot/);
    writeFileSync(file, 'instructions: { texts: [other] }\nseconds: 3\n');
    assert.throws(() => addTaskFiles(file), /task family 'box' is declared twice, differently/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a family declared in code (wmrl run's instruction on a robot) is kept as YAML declaring it", async () => {
  const { addFamily, familyYaml } = await import('../../src/tasks/families.ts');
  addFamily({
    name: 'said-test',
    file: '(wmrl run --instruction)',
    templates: ['wave at the camera'],
    heldOutColors: [],
    heldOutTemplates: [],
    seconds: 60,
  });
  const again = parseFamily(familyYaml('said-test'), 'said-test.yaml');
  assert.deepEqual(
    { ...again, file: '' },
    {
      name: 'said-test',
      file: '',
      templates: ['wave at the camera'],
      heldOutColors: [],
      heldOutTemplates: [],
      seconds: 60,
    },
  );
  assert.equal(familyYaml('reach'), readFileSync(resolve('configs/tasks/reach.yaml'), 'utf8'));
});
