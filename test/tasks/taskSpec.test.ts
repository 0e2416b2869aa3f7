import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rng } from '../../src/core/rng.ts';
import { BUILT_IN } from '../../src/tasks/families.ts';
import { sampleTask } from '../../src/tasks/sampleTask.ts';
import { taskSpecSchema } from '../../src/tasks/taskSpec.ts';

/** The issues of a refused task, as `path: message`. */
function refusal(task: unknown): string[] {
  const r = taskSpecSchema.safeParse(task);
  assert.equal(r.success, false, `accepted ${JSON.stringify(task)}`);
  return r.error!.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
}

const push = {
  family: 'push',
  color: 'blue',
  object: 'block',
  zoneColor: 'green',
  template: 0,
  split: 'train',
  instruction: 'push the blue block into the green zone',
};

test('TaskSpec schema: every sampled task passes unchanged', () => {
  for (const family of BUILT_IN) {
    for (const split of ['train', 'test'] as const) {
      for (let seed = 0; seed < 50; seed++) {
        const task = sampleTask({ family }, split, new Rng(seed));
        assert.deepStrictEqual(taskSpecSchema.parse(task), task);
      }
    }
  }
});

test('TaskSpec schema: refuses an unknown family, a push without zone colour and other bad tasks', () => {
  assert.match(refusal({ ...push, family: 'stack' }).join(), /^family: /);
  const { zoneColor: _, ...noZone } = push;
  const needZone = 'zoneColor: a family with a zone needs a zoneColor different from color; other families have none';
  assert.deepEqual(refusal(noZone), [needZone]);
  assert.match(refusal({ ...push, zoneColor: 'blue' }).join(), /^zoneColor: a family with a zone needs/);
  assert.match(refusal({ ...push, family: 'pick', instruction: 'pick up the blue block' }).join(), /^zoneColor: /);
  assert.match(refusal({ ...push, color: 'magenta' }).join(), /^color: /);
  assert.deepEqual(refusal({ ...push, object: 'ball' }), [
    'object: a family with a scene needs a colour and one of its objects; one of fixed texts has neither',
  ]);
  assert.deepEqual(refusal({ ...push, template: 4 }), ['template: template index is out of range for the family']);
  assert.match(refusal({ ...push, template: -1 }).join(), /^template: /);
  assert.match(refusal({ ...push, split: 'val' }).join(), /^split: /);
  assert.match(refusal({ ...push, instruction: '' }).join(), /^instruction: /);
  assert.match(refusal({ ...push, extra: 1 }).join(), /Unrecognized key/);
});
