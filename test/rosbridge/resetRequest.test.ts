import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseResetRequest } from '../../sim/rosbridge/resetRequest.ts';
import { planEpisodes } from '../../src/tasks/episodePlan.ts';

test('reset request: the task meets the one TaskSpec schema (unknown family, push without zone colour refused)', () => {
  const [p] = planEpisodes([{ family: 'push' }], 'train', 1, 3);
  const task = p!.task;
  assert.deepStrictEqual(parseResetRequest({ task: JSON.stringify(task), seed: 7 }), { task, seed: 7 });
  const reset = (t: object) => () => parseResetRequest({ task: JSON.stringify(t), seed: 1 });
  assert.throws(reset({ ...task, family: 'stack' }), /^Error: reset request: invalid task: family: /);
  const { zoneColor: _, ...noZone } = task;
  assert.throws(reset(noZone), /invalid task: zoneColor: a family with a zone needs a zoneColor different from color/);
  assert.throws(() => parseResetRequest({ task: '{', seed: 1 }), /task is not JSON text of a TaskSpec/);
  assert.throws(() => parseResetRequest({ task: JSON.stringify(task), seed: -1 }), /reset request must be \{task/);
});
