import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BUILT_IN, familyDef, isTaskFamily, taskFamily } from '../../src/tasks/families.ts';
import { TaskError } from '../../src/tasks/taskError.ts';
import { COLOR_NAMES } from '../../src/tasks/vocabulary.ts';

test('at least three families, four colours and several templates per family', () => {
  assert.ok(BUILT_IN.length >= 3);
  assert.ok(COLOR_NAMES.length >= 4);
  for (const f of BUILT_IN) assert.ok(familyDef(f).templates.length >= 3, f);
});

test('registry lookup: a known family gives its entry, an unknown one a TaskError naming the known', () => {
  assert.deepEqual(BUILT_IN, ['reach', 'push', 'pick']);
  for (const f of BUILT_IN) {
    assert.equal(familyDef(f).name, f);
    assert.equal(taskFamily(f), f);
    assert.ok(isTaskFamily(f));
  }
  for (const name of ['stack', '', 'toString', 'Reach']) {
    assert.equal(isTaskFamily(name), false, name);
    for (const lookup of [familyDef, taskFamily]) {
      assert.throws(
        () => lookup(name),
        (e: Error) =>
          e instanceof TaskError &&
          e.message ===
            `unknown task family '${name}'; known: reach, push, pick ` +
              '(a family of your own is a YAML file: --task-file FILE, docs/tasks.md)',
      );
    }
  }
});
