/**
 * The demo's comparison (src/eval/robotTimeComparison.ts), on worked numbers: equal robot time
 * (the reference's first evaluation at or beyond the candidate's budget, paired), equal success
 * (the reference's robot time to the candidate's final success), and both gains over the start.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareAtRobotTime, type EvaluatedPoint } from '../../src/eval/robotTimeComparison.ts';
import { pairedDifference } from '../../src/eval/proportion.ts';

/** Outcomes of 10 episodes: the first k succeed. */
const first = (k: number) => Array.from({ length: 10 }, (_, i) => (i < k ? 1 : 0));
const point = (step: number, robotSeconds: number, k: number): EvaluatedPoint => ({
  step,
  robotSeconds,
  success: k / 10,
  outcomes: first(k),
});

test('equal robot time, equal success and the gains, from the same episodes', () => {
  const wmrl = [point(0, 0, 5), point(4, 60, 6), point(8, 120, 8)];
  const real = [point(0, 0, 5), point(1, 100, 5), point(2, 200, 7), point(3, 300, 9)];
  const c = compareAtRobotTime(wmrl, real);
  assert.equal(c.budgetSeconds, 120);
  assert.ok(Math.abs(c.referenceAtBudget! - 0.54) < 1e-12, 'interpolated between 100 s (50%) and 200 s (70%)');
  assert.equal(c.equalTime!.reference.step, 2, 'the first evaluation with at least 120 robot-s');
  assert.deepEqual(c.equalTime!.difference, pairedDifference(first(8), first(7)));
  assert.ok(Math.abs(c.equalTime!.difference.difference - 0.1) < 1e-12);
  // 80% reached between 200 s (70%) and 300 s (90%): 250 s
  assert.ok(Math.abs(c.referenceSecondsToCandidateFinal! - 250) < 1e-9);
  assert.ok(Math.abs(c.candidateGain.difference - 0.3) < 1e-12);
  assert.ok(Math.abs(c.referenceGain.difference - 0.4) < 1e-12);
});

test('a reference that never spends the budget or never reaches the success says so', () => {
  const wmrl = [point(0, 0, 5), point(4, 500, 9)];
  const real = [point(0, 0, 5), point(1, 100, 6), point(2, 200, 7)];
  const c = compareAtRobotTime(wmrl, real);
  assert.equal(c.equalTime, null);
  assert.equal(c.referenceAtBudget, null);
  assert.equal(c.referenceSecondsToCandidateFinal, null);
  assert.throws(() => compareAtRobotTime([point(0, 0, 5)], real), /a start and at least one later evaluation/);
});
