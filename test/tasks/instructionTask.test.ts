import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rng } from '../../src/core/rng.ts';
import { BUILT_IN } from '../../src/tasks/families.ts';
import { sampleTask } from '../../src/tasks/sampleTask.ts';
import { taskOfInstruction } from '../../src/tasks/instructionTask.ts';

test('every sampled task is found again from its instruction', () => {
  for (const family of BUILT_IN)
    for (const split of ['train', 'test'] as const)
      for (let seed = 0; seed < 40; seed++) {
        const task = sampleTask({ family }, split, new Rng(seed));
        assert.deepEqual(taskOfInstruction(task.instruction), task, task.instruction);
      }
});

test('case and punctuation do not matter; other phrasings name no task', () => {
  const task = taskOfInstruction('  Push the RED block into the blue zone. ');
  assert.equal(task?.family, 'push');
  assert.equal(task?.color, 'red');
  assert.equal(task?.zoneColor, 'blue');
  assert.equal(task?.instruction, 'Push the RED block into the blue zone.');
  assert.equal(taskOfInstruction('pick up the red ball'), undefined, 'pick has blocks only');
  assert.equal(taskOfInstruction('push the red block into the red zone'), undefined, 'zone colour must differ');
  assert.equal(taskOfInstruction('wave hello'), undefined);
  assert.equal(taskOfInstruction('...'), undefined);
});
