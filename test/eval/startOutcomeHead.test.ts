import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rng } from '../../src/core/rng.ts';
import { StartOutcomeHead } from '../../src/eval/startOutcomeHead.ts';
import { correlation as pearson } from '../../src/eval/ppiTable.ts';

const correlation = (a: ArrayLike<number>, b: ArrayLike<number>) => pearson(a, b)!;

/** Starts of 3 features: x decides success (P = 1 inside |x| < 0.5), a constant, and noise. */
function starts(rng: Rng, n: number) {
  const features = new Float32Array(3 * n);
  const chance = new Float32Array(n);
  const outcomes: number[] = [];
  for (let i = 0; i < n; i++) {
    const x = rng.uniform(-1, 1);
    features.set([x, 5, rng.uniform(-1, 1)], 3 * i);
    chance[i] = Math.abs(x) < 0.5 ? 0.9 : 0.1;
    outcomes.push(rng.next() < chance[i]! ? 1 : 0);
  }
  return { features, chance, outcomes };
}

test('start head: outcomes of nearby starts predict a start-decided outcome that no linear map of x can', () => {
  const rng = new Rng(7);
  const train = starts(rng, 400);
  const head = StartOutcomeHead.fit(train.features, 3, train.outcomes);
  assert.deepEqual(head.state.kept, [0, 2], 'the constant feature is left out');
  const fresh = starts(rng, 400);
  const predicted = head.predict(fresh.features, 3);
  assert.ok(predicted.every((p) => p >= 0 && p <= 1));
  // The truth is a window in x: success is uncorrelated with x itself (a linear head would see nothing).
  assert.ok(
    Math.abs(
      correlation(
        Array.from(fresh.features).filter((_, i) => i % 3 === 0),
        fresh.chance,
      ),
    ) < 0.15,
  );
  const withChance = correlation(predicted, fresh.chance);
  const withOutcome = correlation(predicted, fresh.outcomes);
  assert.ok(withChance > 0.8, `corr with the true chance ${withChance}`);
  // The best any predictor can do against one outcome: corr(chance, outcome) = 0.8 here.
  assert.ok(withOutcome > 0.6, `corr with the outcomes ${withOutcome}`);
  // Leave-one-out predictions are honest: about as good as on fresh starts, not the in-sample fit.
  const loo = correlation(head.leaveOneOut(), train.outcomes);
  assert.ok(Math.abs(loo - withOutcome) < 0.1, `leave-one-out ${loo} against fresh ${withOutcome}`);
  // A start far from every labelled one gets the labelled mean (the prior pseudo-episode).
  const mean = train.outcomes.reduce((s, y) => s + y, 0) / train.outcomes.length;
  assert.ok(Math.abs(head.predict([40, 5, 40], 3)[0]! - mean) < 1e-6);
});

test('start head: worked numbers at one bandwidth; bad input named', () => {
  // x = −1 once, 1 nine times (outcomes 0, then 1 ×8, 0); bandwidth 1, the prior 1 at the mean 0.8.
  const h = StartOutcomeHead.fit([-1, 1, 1, 1, 1, 1, 1, 1, 1, 1], 1, [0, 1, 1, 1, 1, 1, 1, 1, 1, 0], {
    bandwidths: [1],
  });
  // Standardised: x = −1 → −3, x = 1 → 1/3 (mean 0.8, sd 0.6). At x = 1: the nine at distance 0
  // (outcomes 1 ×8, 0 ×1) weigh 1 each, the one at −3 weighs exp(−(10/3)²/2), the prior 1 at 0.8.
  const far = Math.exp(-((10 / 3) ** 2) / 2);
  const expected = (8 + 0 * far + 0.8) / (9 + far + 1);
  assert.ok(Math.abs(h.predict([1], 1)[0]! - expected) < 1e-6, `${h.predict([1], 1)[0]} vs ${expected}`);
  assert.throws(() => StartOutcomeHead.fit([1, 2], 1, [1, 0]), /at least 10/);
  assert.throws(() => StartOutcomeHead.fit(Array(10).fill(1), 1, Array(10).fill(1)), /do not differ/);
  assert.throws(() => StartOutcomeHead.fit([...Array(10).keys()], 1, Array(10).fill(1)), /every labelled outcome is 1/);
  assert.throws(() => StartOutcomeHead.fit([...Array(10).keys()], 1, [2, ...Array(9).fill(0)]), /not in \[0, 1\]/);
  assert.throws(() => StartOutcomeHead.fit([...Array(9).keys(), Number.NaN], 1, Array(10).fill(0)), /non-finite/);
  assert.throws(() => h.predict([1, 2, 3], 2), /not rows of 2/);
});
