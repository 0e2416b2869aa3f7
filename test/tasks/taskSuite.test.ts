import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rng } from '../../src/core/rng.ts';
import { COLOR_NAMES, FAMILIES, TASK_FAMILIES, TaskError, enumerateInstructions, parseTaskSelectors, sampleTask, splitOf, taskMatches } from '../../src/tasks/taskSuite.ts';

test('at least three families, four colours and several templates per family', () => {
  assert.ok(TASK_FAMILIES.length >= 3);
  assert.ok(COLOR_NAMES.length >= 4);
  for (const f of TASK_FAMILIES) assert.ok(FAMILIES[f].templates.length >= 3, f);
});

test('held-out split: colours and a paraphrase appear only in test', () => {
  for (const family of TASK_FAMILIES) {
    const trainTexts = new Set<string>();
    const testTexts = new Set<string>();
    for (let seed = 0; seed < 400; seed++) {
      const train = sampleTask({ family }, 'train', new Rng(seed));
      assert.equal(train.split, 'train');
      assert.ok(!FAMILIES[family].heldOutColors.includes(train.color as never), `${family}: held-out colour in train`);
      assert.notEqual(train.template, FAMILIES[family].templates.length - 1);
      trainTexts.add(FAMILIES[family].templates[train.template]!);
      const held = sampleTask({ family }, 'test', new Rng(seed));
      assert.equal(held.split, 'test');
      testTexts.add(FAMILIES[family].templates[held.template]!);
    }
    const heldOutTemplate = FAMILIES[family].templates.at(-1)!;
    assert.ok(testTexts.has(heldOutTemplate) && !trainTexts.has(heldOutTemplate), `${family}: paraphrase held out`);
  }
  const rows = enumerateInstructions();
  assert.ok(rows.some((r) => r.split === 'test') && rows.some((r) => r.split === 'train'));
  assert.equal(splitOf('pick', 'yellow', 0), 'test');
});

test('selectors: unknown family, colour, object or zone is a clear error', () => {
  assert.deepEqual(parseTaskSelectors('reach:red:ball'), [{ family: 'reach', color: 'red', third: 'ball' }]);
  assert.equal(parseTaskSelectors('all').length, TASK_FAMILIES.length);
  assert.throws(() => parseTaskSelectors('stack'), (e: Error) => e instanceof TaskError && /unknown task family 'stack'/.test(e.message));
  assert.throws(() => parseTaskSelectors('pick:magenta'), /unknown colour 'magenta'/);
  assert.throws(() => parseTaskSelectors('reach:red:teapot'), /unknown object 'teapot'/);
  assert.throws(() => parseTaskSelectors('push:red:red'), /zone colour must differ/);
  assert.throws(() => sampleTask({ family: 'pick', color: 'yellow' }, 'train', new Rng(0)), /held out/);
});

test('instructions name the colour and object', () => {
  const t = sampleTask({ family: 'push', color: 'blue', third: 'green' }, 'train', new Rng(3));
  assert.match(t.instruction, /blue block/);
  assert.match(t.instruction, /green/);
});

test('taskMatches: family, then colour and object or zone where the selector names them', () => {
  const reachRedBall = { family: 'reach', color: 'red', object: 'ball', template: 0, split: 'train', instruction: 'reach the red ball' } as const;
  const pushBlueToGreen = { family: 'push', color: 'blue', object: 'block', zoneColor: 'green', template: 0, split: 'train', instruction: 'push the blue block into the green zone' } as const;
  assert.equal(taskMatches(reachRedBall, parseTaskSelectors('reach')), true);
  assert.equal(taskMatches(reachRedBall, parseTaskSelectors('reach:red:ball')), true);
  assert.equal(taskMatches(reachRedBall, parseTaskSelectors('reach:red:block')), false);
  assert.equal(taskMatches(reachRedBall, parseTaskSelectors('pick,push')), false);
  assert.equal(taskMatches(pushBlueToGreen, parseTaskSelectors('push:blue:green')), true);
  assert.equal(taskMatches(pushBlueToGreen, parseTaskSelectors('push:blue:red')), false);
  assert.equal(taskMatches(pushBlueToGreen, parseTaskSelectors('all')), true);
});
