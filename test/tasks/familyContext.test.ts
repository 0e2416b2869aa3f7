import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CONTEXT_DIM, familyOneHot } from '../../src/tasks/familyContext.ts';
import { BUILT_IN } from '../../src/tasks/families.ts';
import { TaskError } from '../../src/tasks/taskError.ts';

test('task context: one slot per registered family, in registry order', () => {
  assert.equal(CONTEXT_DIM, BUILT_IN.length);
  // Stored world models were trained on these exact vectors.
  assert.deepEqual(Array.from(familyOneHot('reach')), [1, 0, 0]);
  assert.deepEqual(Array.from(familyOneHot('push')), [0, 1, 0]);
  assert.deepEqual(Array.from(familyOneHot('pick')), [0, 0, 1]);
  assert.throws(
    () => familyOneHot('stack'),
    (e: Error) => e instanceof TaskError && /unknown task family 'stack'/.test(e.message),
  );
});
