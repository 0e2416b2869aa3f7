import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rng } from '../../src/core/rng.ts';
import { groupRankAgreement } from '../../src/eval/rankAgreement.ts';
import { ContextualCorrection } from '../../src/rl/contextualCorrection.ts';
import { IsotonicCalibrator } from '../../src/rl/isotonicCalibrator.ts';

/** Share of a group's rollout pairs that `scores` order as `truth` does (ties count one half). */
function withinGroupConcordance(scores: ArrayLike<number>, truth: ArrayLike<number>, groupSize: number): number {
  let agree = 0;
  let pairs = 0;
  for (let g = 0; g * groupSize < scores.length; g++) {
    for (let i = g * groupSize; i < (g + 1) * groupSize; i++) {
      for (let j = i + 1; j < (g + 1) * groupSize; j++) {
        const s = Math.sign(scores[i]! - scores[j]!);
        const t = Math.sign(truth[i]! - truth[j]!);
        agree += s === 0 ? 0.5 : s === t ? 1 : 0;
        pairs++;
      }
    }
  }
  return agree / pairs;
}

test(
  'contextual correction, worked numbers: an action-dependent bias reverses a group; ' +
    'the pooled map cannot undo it, the correction does',
  () => {
    // 4 groups (starts k = 0..3) of 4 rollouts with mean actions a = −1, −0.5, 0.5, 1.
    //   truth        y = 0.3 + 0.1·k + 0.2·a   (moving +a helps)
    //   world model  r̂ = 0.3 + 0.1·k − 0.2·a   (it believes the opposite)
    // The error y − r̂ = 0.4·a, linear in the action alone: regressing it on [a, r̂, 1] without a
    // penalty gives w = [0.4, 0, 0], and r̂ + 0.4·a = y exactly.
    const actions = [-1, -0.5, 0.5, 1];
    const a: number[] = [];
    const y: number[] = [];
    const r: number[] = [];
    for (let k = 0; k < 4; k++) {
      for (const act of actions) {
        a.push(act);
        y.push(0.3 + 0.1 * k + 0.2 * act);
        r.push(0.3 + 0.1 * k - 0.2 * act);
      }
    }
    // Within each group the world model orders every pair backwards.
    assert.equal(withinGroupConcordance(r, y, 4), 0);
    // A monotone map of r̂ alone (the paper's isotonic debiasing) keeps that order or ties it.
    const pooled = new IsotonicCalibrator({ bins: 10, minPairs: 4, refitEvery: 4, window: 100, orderSlope: 0 });
    pooled.add(r, y);
    assert.ok(pooled.fitted);
    assert.ok(withinGroupConcordance(pooled.mapAll(r), y, 4) <= 0.5);
    // The contextual correction sees the action.
    const c = new ContextualCorrection({ ridge: 0, minPairs: 16, window: 100 });
    c.add(a, r, y);
    const [wa, wr, b] = c.weights;
    assert.ok(Math.abs(wa! - 0.4) < 1e-9 && Math.abs(wr!) < 1e-9 && Math.abs(b!) < 1e-9, JSON.stringify(c.weights));
    const corrected = c.mapAll(a, r);
    corrected.forEach((v, i) => assert.ok(Math.abs(v - y[i]!) < 1e-6, `${v} vs ${y[i]}`));
    assert.equal(withinGroupConcordance(corrected, y, 4), 1);
  },
);

test('contextual correction on binary outcomes: the within-group AUC goes from below chance to above it', () => {
  const rng = new Rng(5);
  const M = 8;
  const sample = (groups: number) => {
    const feat: number[] = [];
    const score: number[] = [];
    const outcome: number[] = [];
    for (let g = 0; g < groups; g++) {
      const base = rng.uniform(0.2, 0.6);
      for (let m = 0; m < M; m++) {
        const act = rng.uniform(-1, 1);
        feat.push(act);
        outcome.push(rng.uniform(0, 1) < base + 0.3 * act ? 1 : 0);
        score.push(Math.min(1, Math.max(0, base - 0.2 * act + rng.normal() * 0.05)));
      }
    }
    return { feat, score, outcome };
  };
  const train = sample(60);
  const held = sample(200);
  const c = new ContextualCorrection({ ridge: 1, minPairs: 64, window: 2000 });
  c.add(train.feat, train.score, train.outcome);
  const raw = groupRankAgreement(held.score, held.outcome, M).auc!;
  const pooled = new IsotonicCalibrator({ bins: 10, minPairs: 64, refitEvery: 64, window: 2000, orderSlope: 0.001 });
  pooled.add(train.score, train.outcome);
  const mapped = groupRankAgreement(pooled.mapAll(held.score), held.outcome, M).auc!;
  const corrected = groupRankAgreement(c.mapAll(held.feat, held.score), held.outcome, M).auc!;
  assert.ok(raw < 0.35, `raw AUC ${raw}`);
  assert.ok(mapped < 0.4, `pooled-map AUC ${mapped}`);
  assert.ok(corrected > 0.65, `contextual AUC ${corrected}`);
});

test('contextual correction: identity below minPairs; a window; state round trip; bad input refused', () => {
  const c = new ContextualCorrection({ ridge: 0.1, minPairs: 4, window: 6 });
  c.add([1, 0, 0, 1], [0.2, 0.8], [1, 0]);
  assert.equal(c.fitted, false);
  assert.deepEqual(Array.from(c.mapAll([1, 0], [0.3])), [Math.fround(0.3)]);
  c.add([1, 0, 0, 1, 1, 0, 0, 1, 1, 0], [0.2, 0.8, 0.3, 0.7, 0.25], [1, 0, 1, 0, 1]);
  assert.equal(c.pairs, 6, 'the newest 6 kept');
  assert.ok(c.fitted);
  const copy = ContextualCorrection.fromJSON(JSON.parse(JSON.stringify(c.toJSON())));
  assert.deepEqual(Array.from(copy.mapAll([1, 0, 0, 1], [0.4, 0.6])), Array.from(c.mapAll([1, 0, 0, 1], [0.4, 0.6])));
  assert.throws(() => c.add([1, 0, 0], [0.5], [1]), /3 features, but it was fitted on 2/);
  assert.throws(() => c.add([1, 0, 0], [0.5, 0.5], [1, 0]), /3 feature values for 2 rollouts/);
  assert.throws(() => c.add([1, Number.NaN], [0.5], [1]), /non-finite feature/);
  assert.throws(() => new ContextualCorrection({ ridge: -1, minPairs: 1, window: 1 }), /ridge >= 0/);
});
