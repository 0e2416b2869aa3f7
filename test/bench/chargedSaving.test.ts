import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chargedSaving } from '../../bench/chargedSaving.ts';
import { ratioOfMeansInterval } from '../../src/eval/ratioInterval.ts';

test("the charged saving adds the world model's data to every seed's robot time before the ratio", () => {
  // Real-only 1000 and 800 s, the arm 50 and 70 s, its world model's data 40 s: 900 / (60 + 40) = 9×, not 15×.
  const c = chargedSaving([1000, 800], [50, 70], 40);
  assert.equal(c.saving, 9);
  const interval = ratioOfMeansInterval([1000, 800], [90, 110])!;
  assert.deepEqual([c.low, c.high], [interval.low, interval.high]);
  assert.ok(c.low! < 9 && c.high! > 9);
  // No data of its own: the headline's own saving.
  assert.equal(chargedSaving([1000, 800], [50, 70], 0).saving, 15);
  // One seed: no interval.
  assert.deepEqual(chargedSaving([900], [60], 40), { saving: 9, low: null, high: null });
  assert.throws(() => chargedSaving([900], [60], -1), /≥ 0 s/);
});
