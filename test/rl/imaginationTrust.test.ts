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

test('trust.confidence: λ from the AUC lower bound — worked numbers; chance-level noise gets no weight', () => {
  const opts = { halfLife: 1e9, priorPairs: 0, confidence: 0.5 };
  const t = new ImaginationTrust(opts);
  t.observe([0.9, 0.1], [1, 0], 2); // AUC 1, 1 pair
  assert.equal(t.standardError, Number.POSITIVE_INFINITY, 'one group: no spread to judge by');
  assert.equal(t.weight, 0);
  t.observe([0.9, 0.8, 0.2, 0.1], [1, 1, 0, 0], 4); // AUC 1, 4 pairs
  t.observe([0.1, 0.9], [1, 0], 2); // AUC 0, 1 pair
  // w = 1, 4, 1: mean 5/6; Σw·a² / Σw = 5/6, variance 5/6 − 25/36 = 5/36; n_eff = 36/18 = 2.
  close(t.auc, 5 / 6, 'the moving AUC');
  close(t.standardError, Math.sqrt(5 / 36 / 2), 'se');
  close(t.weight, 2 * (5 / 6 - 0.5 * Math.sqrt(5 / 72)) - 1, 'λ from the bound: 0.403 where the AUC alone gives 0.667');
  assert.ok(Math.abs(t.weight - 0.4032) < 1e-3);
  close(new ImaginationTrust({ ...opts, confidence: 0 }).weight, 0, 'no evidence, no weight');
  // 20 one-pair groups, 3 in every 5 ordered right: the plain moving AUC (≈ 0.57, the latest groups
  // weigh most) gives λ ≈ 0.15, the bound 0.
  const plain = new ImaginationTrust({ halfLife: 16, priorPairs: 0 });
  const bound = new ImaginationTrust({ halfLife: 16, priorPairs: 0, confidence: 1.645 });
  for (let i = 0; i < 20; i++) {
    const right = i % 5 < 3;
    for (const u of [plain, bound]) u.observe(right ? [0.9, 0.1] : [0.1, 0.9], [1, 0], 2);
  }
  assert.ok(plain.weight > 0.1, `plain λ ${plain.weight}`);
  assert.equal(bound.weight, 0, 'an AUC within its noise of chance');
  // A consistent ranking keeps its weight under the bound.
  const good = new ImaginationTrust({ halfLife: 16, priorPairs: 0, confidence: 1.645 });
  for (let i = 0; i < 20; i++) good.observe([0.9, 0.8, 0.2, 0.1], [1, 1, 0, 0], 4);
  close(good.weight, 1, 'every group perfect: se 0');
  const u = ImaginationTrust.fromJSON(JSON.parse(JSON.stringify(bound.toJSON())));
  close(u.standardError, bound.standardError, 'the bound survives a checkpoint');
  assert.throws(() => new ImaginationTrust({ halfLife: 1, priorPairs: 0, confidence: -1 }), /confidence/);
});
