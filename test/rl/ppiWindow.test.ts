/**
 * The training PPI estimate's window of anchor groups (src/rl/ppiWindow.ts): the newest `size`
 * groups are kept as group means, they rectify the estimate as groupedPpiEstimate would, and a
 * wider window narrows an interval that one anchor group leaves near [0, 1].
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { groupedPpiEstimate } from '../../src/eval/ppiEstimate.ts';
import { PpiWindow } from '../../src/rl/ppiWindow.ts';
import { Rng } from '../../src/core/rng.ts';

const M = 4;

test('keeps the newest groups as means, survives JSON, refuses a bad size', () => {
  const w = new PpiWindow(2);
  w.add([1, 1, 0, 0, 0.5, 0.5, 0.5, 0.5], [1, 0, 0, 0, 1, 1, 1, 0], M);
  assert.deepEqual(w.toJSON(), { predicted: [0.5, 0.5], outcomes: [0.25, 0.75] });
  w.add([0.2, 0.2, 0.2, 0.2], [0, 0, 0, 1], M);
  assert.deepEqual(w.toJSON(), { predicted: [0.5, 0.2], outcomes: [0.75, 0.25] });
  assert.equal(w.groups, 2);
  assert.deepEqual(PpiWindow.fromJSON(2, w.toJSON()).toJSON(), w.toJSON());
  assert.throws(() => new PpiWindow(0), /size must be an integer ≥ 1/);
  assert.throws(() => w.add([1, 0], [1], 1), /2 predictions but 1 outcomes/);
});

test("its estimate is groupedPpiEstimate over the window's groups (plus a check's extra groups)", () => {
  const w = new PpiWindow(8);
  const predicted = [0.6, 0.6, 0.6, 0.6, 0.3, 0.3, 0.3, 0.3];
  const outcomes = [1, 0, 1, 0, 0, 0, 1, 0];
  w.add(predicted, outcomes, M);
  const imagined = [0.5, 0.5, 0.5, 0.5, 0.7, 0.7, 0.7, 0.7, 0.2, 0.2, 0.2, 0.2];
  assert.deepEqual(w.estimate(imagined, M), groupedPpiEstimate(imagined, predicted, outcomes, M));
  const extra = { predicted: [0.4, 0.4, 0.4, 0.4], outcomes: [1, 1, 0, 1] };
  assert.deepEqual(
    w.estimate(imagined, M, extra),
    groupedPpiEstimate(imagined, [...predicted, ...extra.predicted], [...outcomes, ...extra.outcomes], M),
  );
  assert.equal(w.groups, 2, 'extra groups are not kept');
});

test('eight steps of one anchor group each: the interval narrows from near [0, 1]', () => {
  const rng = new Rng(5);
  const w = new PpiWindow(8);
  const imagined = Array.from({ length: 7 * M }, () => 0.5 + 0.2 * (rng.next() - 0.5));
  const widths: number[] = [];
  for (let step = 0; step < 8; step++) {
    // a world model that over-predicts by about 0.2
    const predicted = Array.from({ length: M }, () => 0.7);
    const outcomes = Array.from({ length: M }, () => (rng.next() < 0.5 ? 1 : 0));
    w.add(predicted, outcomes, M);
    const e = w.estimate(imagined, M);
    assert.ok(e.lower <= e.estimate && e.estimate <= e.upper);
    widths.push(e.upper - e.lower);
  }
  assert.ok(widths[0]! > 0.8, `one group: width ${widths[0]}`);
  assert.ok(widths[7]! < 0.55 * widths[0]!, `eight groups: width ${widths[7]} against ${widths[0]}`);
});
