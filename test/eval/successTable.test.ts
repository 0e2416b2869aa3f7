import { test } from 'node:test';
import assert from 'node:assert/strict';
import { wilsonInterval } from '../../src/eval/proportion.ts';
import { SuccessTable } from '../../src/eval/successTable.ts';
import type { TaskSpec } from '../../src/core/types.ts';

test('Wilson interval: worked values', () => {
  // 8 of 10, z = 1.96: centre (0.8 + 0.19208)/1.38415 = 0.71676, half = 1.96·sqrt(0.016 + 0.0096040)/1.38415 = 0.22663
  const w = wilsonInterval(8, 10);
  assert.ok(Math.abs(w.low - 0.4902) < 1e-3 && Math.abs(w.high - 0.9433) < 1e-3, JSON.stringify(w));
  assert.deepEqual(wilsonInterval(0, 20).low, 0);
  assert.ok(wilsonInterval(0, 20).high > 0.1);
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
