import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pairedDifference, wilsonInterval } from '../../src/eval/proportion.ts';
import { Rng } from '../../src/core/rng.ts';
import { SuccessTable } from '../../src/eval/successTable.ts';
import type { TaskSpec } from '../../src/core/types.ts';

test('Wilson interval: worked values', () => {
  // 8 of 10, z = 1.96: centre (0.8 + 0.19208)/1.38415 = 0.71676, half = 1.96·sqrt(0.016 + 0.0096040)/1.38415 = 0.22663
  const w = wilsonInterval(8, 10);
  assert.ok(Math.abs(w.low - 0.4902) < 1e-3 && Math.abs(w.high - 0.9433) < 1e-3, JSON.stringify(w));
  assert.deepEqual(wilsonInterval(0, 20).low, 0);
  assert.ok(wilsonInterval(0, 20).high > 0.1);
});

test('paired difference: worked values, and coverage near 95% over 2000 simulated comparisons', () => {
  // 10 episodes: a alone succeeds in 4, b alone in 1, both in 3, neither in 2.
  // Agresti–Min: p = 4.5, q = 1.5, n' = 12: centre 0.25, half 1.96·sqrt(6 − 9/12)/12 = 0.37424
  const a = [1, 1, 1, 1, 0, 1, 1, 1, 0, 0];
  const b = [0, 0, 0, 0, 1, 1, 1, 1, 0, 0];
  const d = pairedDifference(a, b);
  assert.ok(Math.abs(d.difference - 0.3) < 1e-12);
  assert.ok(Math.abs(d.low - (0.25 - 0.37424)) < 1e-4 && Math.abs(d.high - (0.25 + 0.37424)) < 1e-4, JSON.stringify(d));
  assert.throws(() => pairedDifference([1], [1, 0]), /1 outcomes against 2/);
  // Two correlated policies on 100 episodes: P(a) = 0.8, P(b) = 0.65, true difference 0.15.
  const rng = new Rng(11);
  let covered = 0;
  const trials = 2000;
  for (let t = 0; t < trials; t++) {
    const xs: number[] = [];
    const ys: number[] = [];
    for (let i = 0; i < 100; i++) {
      const u = rng.next();
      xs.push(u < 0.8 ? 1 : 0);
      ys.push(u < 0.6 || (u >= 0.8 && u < 0.85) ? 1 : 0);
    }
    const r = pairedDifference(xs, ys);
    if (r.low <= 0.15 && 0.15 <= r.high) covered++;
  }
  assert.ok(covered / trials > 0.93 && covered / trials < 0.975, `coverage ${covered / trials}`);
});

test('the success table lists train and held-out splits separately, per family and overall', () => {
  const table = new SuccessTable();
  const task = (family: TaskSpec['family'], split: TaskSpec['split']) => ({
    family,
    split,
    color: 'red',
    object: 'block',
    template: 0,
    instruction: '',
  });
  table.add({ task: task('reach', 'train'), success: true });
  table.add({ task: task('reach', 'train'), success: false });
  table.add({ task: task('pick', 'test'), success: true });
  const rows = table.rows();
  assert.deepEqual(
    rows.map((r) => `${r.split}/${r.family}`),
    ['train/reach', 'train/all', 'test/pick', 'test/all'],
  );
  assert.equal(rows[0]!.rate, 0.5);
  assert.match(table.format(), /train\s+reach\s+50\.0%/);
  assert.match(table.format(), /test\s+pick\s+100\.0%/);
});
