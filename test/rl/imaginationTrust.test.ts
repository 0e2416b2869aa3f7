/**
 * λ, the weight of imagined samples: clip(2·AUC − 1, 0, 1) of
 * the paired anchor AUC, a moving average shrunk by prior pairs.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ImaginationTrust } from '../../src/rl/imaginationTrust.ts';

const close = (a: number, b: number, what: string) => assert.ok(Math.abs(a - b) < 1e-9, `${what}: ${a} vs ${b}`);

test('trust: worked numbers — prior pairs at 0.5, then the pooled AUC of paired anchor groups', () => {
  const t = new ImaginationTrust({ halfLife: 1e9, priorPairs: 4 });
  close(t.auc, 0.5, 'no evidence');
  close(t.weight, 0, 'λ before any anchor');
  // Group 1: 2 successes, 2 failures, ranked perfectly (4 pairs, all concordant).
  t.observe([0.9, 0.8, 0.2, 0.1], [1, 1, 0, 0], 4);
  close(t.auc, (4 + 0.5 * 4) / (4 + 4), 'one perfect group against 4 prior pairs');
  close(t.weight, 2 * 0.75 - 1, 'λ');
  // Group 2 all failures: no pairs, skipped. Group 3: 1 success scored below its 3 failures (0 of 3).
  t.observe([0.5, 0.5, 0.5, 0.5, 0.1, 0.6, 0.7, 0.8], [0, 0, 0, 0, 1, 0, 0, 0], 4);
  close(t.auc, (4 + 0 + 2) / (4 + 3 + 4), 'pooled over pairs');
  assert.equal(t.groups, 2, 'the all-failure group is not evidence');
  close(t.weight, Math.max(0, 2 * (6 / 11) - 1), 'λ');
  // Ties count one half.
  const ties = new ImaginationTrust({ halfLife: 1e9, priorPairs: 0 });
  ties.observe([0.3, 0.3], [1, 0], 2);
  close(ties.auc, 0.5, 'a tie');
  close(ties.weight, 0, 'chance ranking gives imagination no weight');
});

test('trust: an inverted ranking clips at 0; a consistent one approaches 1; old groups fade with the half-life', () => {
  const t = new ImaginationTrust({ halfLife: 2, priorPairs: 1 });
  for (let i = 0; i < 3; i++) t.observe([0.1, 0.9], [1, 0], 2);
  assert.equal(t.weight, 0, 'imagination that ranks backwards adds nothing');
  for (let i = 0; i < 30; i++) t.observe([0.9, 0.1], [1, 0], 2);
  // The inverted groups have faded (×0.5^15); the decayed evidence S = Σ dⁱ → 1/(1 − d) pairs, all
  // concordant, against 1 prior pair: λ = 2·(S + ½)/(S + 1) − 1 = S/(S + 1).
  const S = 1 / (1 - 0.5 ** 0.5);
  assert.ok(Math.abs(t.weight - S / (S + 1)) < 1e-4, `λ = ${t.weight}, expected ${S / (S + 1)}`);
  const u = ImaginationTrust.fromJSON(JSON.parse(JSON.stringify(t.toJSON())));
  assert.equal(u.weight, t.weight, 'the state survives a checkpoint');
  assert.equal(u.groups, 33);
  assert.throws(() => new ImaginationTrust({ halfLife: 0, priorPairs: 1 }), /halfLife/);
});
