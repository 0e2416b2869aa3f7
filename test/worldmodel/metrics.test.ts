import { test } from 'node:test';
import assert from 'node:assert/strict';
import { auroc, expectedCalibrationError, rankAverage, spearman } from '../../src/worldmodel/metrics.ts';

const close = (actual: number, expected: number, eps = 1e-12) =>
  assert.ok(Math.abs(actual - expected) <= eps, `expected ${expected}, got ${actual}`);

test('rankAverage: ascending 1-based ranks, ties averaged', () => {
  // sorted: 5 (rank 1), 10 (rank 2), 20, 20 (ranks 3 and 4 -> 3.5 each)
  assert.deepEqual(rankAverage([10, 20, 20, 5]), [2, 3.5, 3.5, 1]);
  // all equal: ranks 1..4 average to 2.5
  assert.deepEqual(rankAverage([7, 7, 7, 7]), [2.5, 2.5, 2.5, 2.5]);
  // three-way tie in the middle: 1 | 3,3,3 (ranks 2,3,4 -> 3) | 5
  assert.deepEqual(rankAverage([0, 2, 2, 2, 9]), [1, 3, 3, 3, 5]);
  assert.deepEqual(rankAverage([Infinity, -Infinity, 0, Infinity]), [3.5, 1, 2, 3.5]);
  assert.deepEqual(rankAverage(new Float32Array([3, 1, 2])), [3, 1, 2]);
  assert.deepEqual(rankAverage([]), []);
  assert.throws(() => rankAverage([1, NaN]), /NaN/);
});

test('auroc: hand example = 0.75', () => {
  // positives score 0.35 and 0.8, negatives 0.1 and 0.4. Of the 4 (pos, neg) pairs,
  // 0.35>0.1, 0.8>0.1, 0.8>0.4 are ordered right and 0.35<0.4 is not: 3/4 = 0.75.
  // By ranks: 0.1->1, 0.35->2, 0.4->3, 0.8->4; (2 + 4 - 2*3/2) / (2*2) = 3/4.
  assert.equal(auroc([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1]), 0.75);
  assert.equal(auroc([0.1, 0.4, 0.35, 0.8], [false, false, true, true]), 0.75);
});

test('auroc: ties count one half', () => {
  // pos {0.5, 0.9}, neg {0.5, 0.2}: pairs 0.5~0.5 -> 0.5, 0.5>0.2 -> 1, 0.9>0.5 -> 1, 0.9>0.2 -> 1;
  // (0.5 + 3) / 4 = 0.875. By ranks: 0.2->1, 0.5,0.5->2.5, 0.9->4; (2.5 + 4 - 3) / 4 = 0.875.
  assert.equal(auroc([0.5, 0.5, 0.2, 0.9], [1, 0, 0, 1]), 0.875);
  // all scores equal: every pair is a tie -> 0.5
  assert.equal(auroc([3, 3, 3, 3], [1, 0, 1, 0]), 0.5);
});

test('auroc: perfect, inverted, and one-class cases', () => {
  assert.equal(auroc([1, 2, 3, 4], [0, 0, 1, 1]), 1);
  assert.equal(auroc([4, 3, 2, 1], [0, 0, 1, 1]), 0);
  assert.ok(Number.isNaN(auroc([1, 2, 3], [1, 1, 1])));
  assert.ok(Number.isNaN(auroc([1, 2, 3], [0, 0, 0])));
  assert.ok(Number.isNaN(auroc([], [])));
  assert.throws(() => auroc([1, 2], [1]), /length mismatch/);
  assert.throws(() => auroc([1, 2], [1, 2]), /labels must be 0\/1/);
});

test('expectedCalibrationError: hand example with 10 bins = 0.39', () => {
  // probs 0.1 | 0.2 | 0.8 | 0.9, 0.95 fall in bins 1 | 2 | 8 | 9 (of [0,0.1), [0.1,0.2), ...).
  //   bin 1: conf 0.1,   acc 0   -> |0 - 0.1|    = 0.1,   weight 1/5
  //   bin 2: conf 0.2,   acc 1   -> |1 - 0.2|    = 0.8,   weight 1/5
  //   bin 8: conf 0.8,   acc 1   -> |1 - 0.8|    = 0.2,   weight 1/5
  //   bin 9: conf 0.925, acc 0.5 -> |0.5 - 0.925| = 0.425, weight 2/5
  // ECE = (0.1 + 0.8 + 0.2) / 5 + 0.425 * 2/5 = 0.22 + 0.17 = 0.39
  close(expectedCalibrationError([0.1, 0.2, 0.8, 0.9, 0.95], [0, 1, 1, 1, 0]), 0.39);
});

test('expectedCalibrationError: hand example with 2 bins = 0.225', () => {
  // bin [0, 0.5): probs 0.2, 0.4 (conf 0.3), labels 0, 1 (acc 0.5) -> 0.2 * 2/4 = 0.1
  // bin [0.5, 1]: probs 0.6, 0.9 (conf 0.75), labels 1, 1 (acc 1)  -> 0.25 * 2/4 = 0.125
  close(expectedCalibrationError([0.2, 0.4, 0.6, 0.9], [0, 1, 1, 1], 2), 0.225);
  // With one bin it is |mean label - mean prob| = |0.75 - 0.525| = 0.225 too (a coincidence here).
  close(expectedCalibrationError([0.2, 0.4, 0.6, 0.9], [0, 1, 1, 1], 1), 0.225);
});

test('expectedCalibrationError: edges, perfect calibration, and validation', () => {
  // p = 1 goes in the last bin, p = 0 in the first; 0.5 exactly is the start of bin 5 of 10.
  close(expectedCalibrationError([1, 1], [1, 1]), 0);
  close(expectedCalibrationError([0, 0], [0, 0]), 0);
  // 0.5 with half positives: perfectly calibrated.
  close(expectedCalibrationError([0.5, 0.5, 0.5, 0.5], [1, 0, 1, 0]), 0);
  // Bin edges are exact even where p * bins rounds. With 100 bins, 0.29 * 100 = 28.999999999999996,
  // yet 0.29 >= 29/100, so 0.29 belongs in bin 29 together with 0.295: conf 0.2925, acc 0.5 -> 0.2075.
  // (Plain floor() would put it in bin 28: 0.5 * |0 - 0.29| + 0.5 * |1 - 0.295| = 0.4975.)
  close(expectedCalibrationError([0.29, 0.295], [0, 1], 100), 0.2075);
  // The other way: 0.16999999999999998 * 100 rounds to 17, but the value is below 17/100, so it
  // belongs in bin 16 and 0.175 alone in bin 17: 0.5 * 0.17 + 0.5 * |1 - 0.175| = 0.4975.
  close(expectedCalibrationError([0.16999999999999998, 0.175], [0, 1], 100), 0.4975);
  assert.ok(Number.isNaN(expectedCalibrationError([], [])));
  assert.throws(() => expectedCalibrationError([1.2], [1]), /outside \[0, 1\]/);
  assert.throws(() => expectedCalibrationError([NaN], [1]), /outside \[0, 1\]/);
  assert.throws(() => expectedCalibrationError([0.5], [1], 0), /bins/);
  assert.throws(() => expectedCalibrationError([0.5], [1, 0]), /length mismatch/);
});

test('spearman: monotone map = 1, reversed = -1', () => {
  const a = [1, 2, 3, 4, 5];
  assert.equal(
    spearman(
      a,
      a.map((x) => x ** 3),
    ),
    1,
  );
  assert.equal(
    spearman(
      a,
      a.map((x) => Math.exp(x) + 100),
    ),
    1,
  );
  assert.equal(
    spearman(
      a,
      a.map((x) => -x),
    ),
    -1,
  );
  assert.equal(spearman(a, [...a].reverse()), -1);
});

test('spearman: ties by hand', () => {
  // a = [1, 2, 2, 3] -> ranks [1, 2.5, 2.5, 4]; b = [1, 3, 2, 4] -> ranks [1, 3, 2, 4]; both means 2.5.
  // deviations a: [-1.5, 0, 0, 1.5], b: [-1.5, 0.5, -0.5, 1.5]
  // sum(da*db) = 2.25 + 0 + 0 + 2.25 = 4.5; sum(da^2) = 4.5; sum(db^2) = 2.25 + 0.25 + 0.25 + 2.25 = 5
  // rho = 4.5 / sqrt(4.5 * 5) = sqrt(0.9) = 0.9486832980505138
  close(spearman([1, 2, 2, 3], [1, 3, 2, 4]), Math.sqrt(0.9));
});

test('spearman: degenerate inputs', () => {
  assert.ok(Number.isNaN(spearman([1, 1, 1], [1, 2, 3])));
  assert.ok(Number.isNaN(spearman([1], [2])));
  assert.ok(Number.isNaN(spearman([], [])));
  assert.throws(() => spearman([1, 2], [1]), /length mismatch/);
});
