/** Two independent estimates of one difference: agreement by the interval of their gap. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { estimatesAgree } from '../../src/eval/estimateAgreement.ts';

test('a check outside the printed interval can still agree once its own error counts (worked numbers)', () => {
  // Printed: +14 [+6, +22] (se 4.08 points); check: +4 [-3, +11] (se 3.57). Gap 10, its se √(4.08² + 3.57²) = 5.42,
  // so the gap's interval is 10 ± 10.6 = [-0.6, +20.6]: it holds 0, though +4 lies below the printed +6.
  const a = estimatesAgree({ difference: 0.14, low: 0.06, high: 0.22 }, { difference: 0.04, low: -0.03, high: 0.11 });
  assert.ok(Math.abs(a.gap - 0.1) < 1e-12);
  assert.ok(Math.abs(a.low - -0.0063) < 5e-4, String(a.low));
  assert.ok(Math.abs(a.high - 0.2063) < 5e-4, String(a.high));
  assert.equal(a.agree, true);
  assert.equal(a.secondInsideFirst, false);
});

test('estimates further apart than both errors allow disagree', () => {
  const a = estimatesAgree({ difference: 0.2, low: 0.12, high: 0.28 }, { difference: -0.02, low: -0.09, high: 0.05 });
  assert.equal(a.agree, false);
  assert.ok(a.low > 0, `the gap's interval lies above 0: [${a.low}, ${a.high}]`);
});

test('a check inside the printed interval agrees', () => {
  const a = estimatesAgree({ difference: 0.1, low: 0.02, high: 0.18 }, { difference: 0.08, low: 0.01, high: 0.15 });
  assert.equal(a.agree, true);
  assert.equal(a.secondInsideFirst, true);
});

test('bad intervals are refused with what was wrong', () => {
  assert.throws(
    () => estimatesAgree({ difference: 0.1, low: 0.2, high: 0.1 }, { difference: 0, low: -0.1, high: 0.1 }),
    /first estimate needs low ≤ high/,
  );
  assert.throws(
    () => estimatesAgree({ difference: 0.1, low: 0, high: 0.2 }, { difference: Number.NaN, low: -0.1, high: 0.1 }),
    /second estimate/,
  );
});
