import { test } from 'node:test';
import assert from 'node:assert/strict';
import { groupRankAgreement } from '../../src/eval/rankAgreement.ts';

test('within-group rank agreement: pairs compared only inside a group, ties count one half', () => {
  // Group 1: success 0.9 vs failures 0.5 (above) and 0.95 (below); success 0.5 vs 0.5 (tie) and 0.95 (below).
  //   → 1 + 0 + 0.5 + 0 = 1.5 of 4 pairs.
  // Group 2: all failures: no pairs. Group 3: success 0.2 above failure 0.1: 1 of 1.
  const scores = [0.9, 0.5, 0.5, 0.95, 0.3, 0.3, 0.3, 0.3, 0.2, 0.1, 0.1, 0.1];
  const outcomes = [1, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0];
  const r = groupRankAgreement(scores, outcomes, 4);
  // Group 3 has one success against three failures at 0.1: 3 concordant pairs.
  assert.deepEqual(r, { auc: (1.5 + 3) / (4 + 3), pairs: 7 });
  // Across groups the ranks are never compared: a high-scoring failure elsewhere changes nothing.
  assert.deepEqual(groupRankAgreement([...scores.slice(0, 4), 9, 9, 9, 9, ...scores.slice(8)], outcomes, 4), r);
  assert.deepEqual(groupRankAgreement([0.1, 0.2], [1, 1], 2), { auc: null, pairs: 0 });
  assert.throws(() => groupRankAgreement([1, 2, 3], [1, 0, 1], 2), /groups of 2/);
});
