import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  auroc,
  calibrationBins,
  chooseThreshold,
  confusionAt,
  detectorFigures,
} from '../../src/success/detectorMetrics.ts';

const close = (a: number, b: number, tol = 1e-9) => assert.ok(Math.abs(a - b) <= tol, `${a} ≉ ${b}`);

test('AUROC counts the success/failure pairs a success scores above, ties as one half', () => {
  // Pairs (success, failure): 0.35>0.1 yes, 0.35>0.4 no, 0.8>0.1 yes, 0.8>0.4 yes: 3 of 4.
  close(auroc([0.1, 0.4, 0.35, 0.8], [false, false, true, true])!, 0.75);
  close(auroc([0.5, 0.5], [true, false])!, 0.5);
  close(auroc([0.9, 0.2, 0.2], [true, false, true])!, 0.75); // (0.9>0.2) 1 + (0.2=0.2) ½, over 2 pairs
  assert.equal(auroc([0.1, 0.2], [true, true]), null);
});

test('the confusion at a threshold: at or above it is called a success', () => {
  assert.deepEqual(confusionAt([0.1, 0.4, 0.35, 0.8], [false, false, true, true], 0.4), {
    truePositive: 1,
    falsePositive: 1,
    trueNegative: 1,
    falseNegative: 1,
  });
});

test('the threshold maximises the balanced accuracy, nearest 0.5 among ties', () => {
  // Candidates 0.5 (TPR ½, TNR 1), 0.15 (1, ½), 0.25 (1, 1), 0.6 (½, 1): 0.25 separates them.
  close(chooseThreshold([0.1, 0.2, 0.3, 0.9], [false, false, true, true]), 0.25);
  // 0.5, 0.225 and 0.6 all reach 0.75: 0.5 is kept.
  close(chooseThreshold([0.1, 0.4, 0.35, 0.8], [false, false, true, true]), 0.5);
});

test('calibration bins, ECE and Brier score, worked by hand', () => {
  const scores = [0.05, 0.15, 0.95, 0.92];
  const outcomes = [false, true, true, true];
  const bins = calibrationBins(scores, outcomes);
  assert.equal(bins.length, 10);
  assert.deepEqual(
    bins.map((b) => b.count),
    [1, 1, 0, 0, 0, 0, 0, 0, 0, 2],
  );
  close(bins[9]!.predicted!, 0.935);
  assert.equal(bins[2]!.predicted, null);
  const f = detectorFigures(scores, outcomes, 0.5);
  // ECE = ¼·0.05 + ¼·0.85 + ½·0.065 = 0.2575; Brier = (0.0025 + 0.7225 + 0.0025 + 0.0064)/4.
  close(f.ece, 0.2575);
  close(f.brier, 0.183475);
  close(f.accuracy, 0.75);
  assert.equal(f.successes, 3);
});
