import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rng } from '../../src/core/rng.ts';
import { BUILT_IN } from '../../src/tasks/families.ts';
import { sampleTask } from '../../src/tasks/sampleTask.ts';
import { parseTaskSelectors, taskMatches } from '../../src/tasks/selectors.ts';
import { TaskError } from '../../src/tasks/taskError.ts';

test('selectors: unknown family, colour, object or zone is a clear error', () => {
  assert.deepEqual(parseTaskSelectors('reach:red:ball'), [{ family: 'reach', color: 'red', third: 'ball' }]);
  assert.equal(parseTaskSelectors('all').length, BUILT_IN.length);
  assert.throws(
    () => parseTaskSelectors('stack'),
    (e: Error) => e instanceof TaskError && /unknown task family 'stack'/.test(e.message),
  );
  assert.throws(() => parseTaskSelectors('pick:magenta'), /unknown colour 'magenta'/);
  assert.throws(() => parseTaskSelectors('reach:red:teapot'), /unknown object 'teapot'/);
  assert.throws(() => parseTaskSelectors('push:red:red'), /zone colour must differ/);
  assert.throws(() => sampleTask({ family: 'pick', color: 'yellow' }, 'train', new Rng(0)), /held out/);
});

test('taskMatches: family, then colour and object or zone where the selector names them', () => {
  const reachRedBall = {
    family: 'reach',
    color: 'red',
    object: 'ball',
    template: 0,
    split: 'train',
    instruction: 'reach the red ball',
  } as const;
  const pushBlueToGreen = {
    family: 'push',
    color: 'blue',
    object: 'block',
    zoneColor: 'green',
    template: 0,
    split: 'train',
    instruction: 'push the blue block into the green zone',
  } as const;
  assert.equal(taskMatches(reachRedBall, parseTaskSelectors('reach')), true);
  assert.equal(taskMatches(reachRedBall, parseTaskSelectors('reach:red:ball')), true);
  assert.equal(taskMatches(reachRedBall, parseTaskSelectors('reach:red:block')), false);
  assert.equal(taskMatches(reachRedBall, parseTaskSelectors('pick,push')), false);
  assert.equal(taskMatches(pushBlueToGreen, parseTaskSelectors('push:blue:green')), true);
  assert.equal(taskMatches(pushBlueToGreen, parseTaskSelectors('push:blue:red')), false);
  assert.equal(taskMatches(pushBlueToGreen, parseTaskSelectors('all')), true);
});
