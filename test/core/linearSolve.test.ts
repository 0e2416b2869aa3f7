import { test } from 'node:test';
import assert from 'node:assert/strict';
import { solve } from '../../src/core/linearSolve.ts';

test('solve: a worked 2×2 system; a direction no row constrains gets weight 0', () => {
  // 2x + y = 5, x + 3y = 10 → x = 1, y = 3.
  assert.deepEqual(solve([Float64Array.from([2, 1]), Float64Array.from([1, 3])], Float64Array.from([5, 10])), [1, 3]);
  // A feature constant at 0 over every pair: a zero row and column, its weight 0, the rest solved.
  assert.deepEqual(solve([Float64Array.from([2, 0]), Float64Array.from([0, 0])], Float64Array.from([4, 0])), [2, 0]);
});
