/**
 * The headline ratio's interval: Student's t factor against its table, worked numbers, bad input,
 * and its coverage over repeated benchmarks drawn from known per-seed distributions shaped like
 * the measured ones.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rng } from '../../src/core/rng.ts';
import { ratioOfMeansInterval, studentT } from '../../src/eval/ratioInterval.ts';

test("Student's t at 97.5% matches its table", () => {
  for (const [df, exact] of [
    [3, 3.1824],
    [5, 2.5706],
    [9, 2.2622],
    [18, 2.1009],
    [1000, 1.9623],
  ] as const)
    assert.ok(Math.abs(studentT(1.959964, df) - exact) / exact < 0.002, `df ${df}: ${studentT(1.959964, df)}`);
});

test('worked numbers: real-only 800/1000/1200 s against WMRL 80/100/120 s', () => {
  // Means 1000 and 100: ratio 10. Relative variances of the means: (200²/3)/1000² and (20²/3)/100²,
  // each 0.013333; se of the log ratio √0.026667 = 0.16330; Welch df 4; t(4, 97.5%) = 2.7764.
  const r = ratioOfMeansInterval([800, 1000, 1200], [80, 100, 120])!;
  assert.equal(r.ratio, 10);
  assert.ok(Math.abs(r.low - 10 * Math.exp(-2.7764 * 0.1633)) < 0.02, JSON.stringify(r));
  assert.ok(Math.abs(r.high - 10 * Math.exp(2.7764 * 0.1633)) < 0.05, JSON.stringify(r));
  // No spread, no interval; one seed says nothing of the spread.
  const flat = ratioOfMeansInterval([500, 500], [50, 50])!;
  assert.deepEqual([flat.ratio, flat.low, flat.high], [10, 10, 10]);
  assert.equal(ratioOfMeansInterval([500], [50, 60]), null);
});

test('a ratio interval refuses what it cannot mean', () => {
  assert.throws(() => ratioOfMeansInterval([1, Number.NaN], [1, 2]), /finite non-negative/);
  assert.throws(() => ratioOfMeansInterval([1, 2], [-1, 2]), /finite non-negative/);
  assert.throws(() => ratioOfMeansInterval([1, 2], [0, 0]), /both means above 0/);
  assert.throws(() => ratioOfMeansInterval([1, 2], [1, 2], 0), /z must be positive/);
});

test('over 2000 benchmarks of 10 seeds a side, the 95% interval covers the true ratio 91–97% of the time', () => {
  // Per-seed times log-normal with the measured spreads: real-only sd/mean ≈ 0.35, WMRL ≈ 0.8.
  const rng = new Rng(11);
  const logNormal = (mean: number, cv: number) => {
    const s2 = Math.log(1 + cv * cv);
    return () => mean * Math.exp(Math.sqrt(s2) * rng.normal() - s2 / 2);
  };
  const real = logNormal(1000, 0.35);
  const wmrl = logNormal(300, 0.8);
  const truth = 1000 / 300;
  let covered = 0;
  const trials = 2000;
  for (let t = 0; t < trials; t++) {
    const r = ratioOfMeansInterval(Array.from({ length: 10 }, real), Array.from({ length: 10 }, wmrl))!;
    if (r.low <= truth && truth <= r.high) covered++;
  }
  // Skew makes it a little short of nominal (a percentile bootstrap covered 89% here).
  assert.ok(covered / trials >= 0.91 && covered / trials <= 0.97, `coverage ${covered}/${trials}`);
});
