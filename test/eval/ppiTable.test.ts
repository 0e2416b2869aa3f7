import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatPpiRows, ppiRows, type PpiUnit } from '../../src/eval/ppiTable.ts';
import { ppiEstimate, tunedPpiEstimate } from '../../src/eval/ppiEstimate.ts';
import { wilsonInterval } from '../../src/eval/proportion.ts';

test('PPI rows: one per family and split plus a pooled "all", real-only Wilson beside PPI and PPI++', () => {
  const units: PpiUnit[] = [
    // reach/train: 3 paired, 3 imagined.
    ...[
      [0.9, 1],
      [0.2, 0],
      [0.7, 1],
    ].map(([predicted, outcome]) => ({
      family: 'reach',
      split: 'train' as const,
      predicted: predicted!,
      outcome: outcome!,
    })),
    ...[0.8, 0.3, 0.6].map((predicted) => ({ family: 'reach', split: 'train' as const, predicted, outcome: null })),
    // pick/train: 2 paired, 2 imagined.
    { family: 'pick', split: 'train', predicted: 0.1, outcome: 0 },
    { family: 'pick', split: 'train', predicted: 0.4, outcome: 1 },
    { family: 'pick', split: 'train', predicted: 0.2, outcome: null },
    { family: 'pick', split: 'train', predicted: 0.3, outcome: null },
    // reach/test: paired only, so no PPI there.
    { family: 'reach', split: 'test', predicted: 0.5, outcome: 1 },
    { family: 'reach', split: 'test', predicted: 0.5, outcome: 0 },
  ];
  const rows = ppiRows(units);
  assert.deepEqual(
    rows.map((r) => `${r.split}/${r.family}`),
    ['train/pick', 'train/reach', 'train/all', 'test/reach', 'test/all'],
  );
  const reach = rows[1]!;
  assert.deepEqual(reach.real, { episodes: 3, successes: 2, ...wilsonInterval(2, 3) });
  assert.equal(reach.imagined, 3);
  assert.deepEqual(reach.ppi, ppiEstimate([0.8, 0.3, 0.6], [0.9, 0.2, 0.7], [1, 0, 1]));
  assert.deepEqual(reach.tuned, tunedPpiEstimate([0.8, 0.3, 0.6], [0.9, 0.2, 0.7], [1, 0, 1]));
  assert.ok(reach.correlation! > 0.9, `correlation ${reach.correlation}`);
  const all = rows[2]!;
  assert.equal(all.real.episodes, 5);
  assert.equal(all.imagined, 5);
  assert.deepEqual(all.ppi, ppiEstimate([0.8, 0.3, 0.6, 0.2, 0.3], [0.9, 0.2, 0.7, 0.1, 0.4], [1, 0, 1, 0, 1]));
  const test = rows[3]!;
  assert.equal(test.ppi, null, 'no imagined episodes: no PPI');
  assert.equal(test.correlation, null, 'constant predictions: no correlation');
  const text = formatPpiRows(rows);
  assert.match(text, /^train\s+reach\s+3\s+3\s+66\.7 \[/m);
  assert.match(text, /^test\s+reach\s+2\s+0\s+50\.0 .* – /m);
});
