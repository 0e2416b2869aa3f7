import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rng } from '../../src/core/rng.ts';
import { sampleTask } from '../../src/tasks/sampleTask.ts';

test('instructions name the colour and object', () => {
  const t = sampleTask({ family: 'push', color: 'blue', third: 'green' }, 'train', new Rng(3));
  assert.match(t.instruction, /blue block/);
  assert.match(t.instruction, /green/);
});
