import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  groupedPpiEstimate,
  ppiEstimate,
  tunedPpiEstimate,
  weightedGroupsPpiEstimate,
} from '../../src/eval/ppiEstimate.ts';
import { Rng } from '../../src/core/rng.ts';

test(
  'PPI: the 95% interval covers the truth in 90–99% of 1000 ' +
    'trials with a biased predictor; the naive estimate does not',
  () => {
    const rng = new Rng(11);
    const truth = 0.3;
    const trials = 1000;
    let covered = 0;
    let naiveCovered = 0;
    for (let t = 0; t < trials; t++) {
      // Each rollout succeeds with probability p (varies by rollout); the predictor over-states it by 0.15, with noise.
      const sample = (n: number) =>
        Array.from({ length: n }, () => {
          const p = Math.min(1, Math.max(0, truth + rng.uniform(-0.2, 0.2)));
          const y = rng.uniform(0, 1) < p ? 1 : 0;
          return { f: Math.min(1, Math.max(0, p + 0.15 + rng.normal() * 0.1)), y };
        });
      const imagined = sample(400).map((s) => s.f);
      const anchors = sample(40);
      const est = ppiEstimate(
        imagined,
        anchors.map((s) => s.f),
        anchors.map((s) => s.y),
      );
      if (est.lower <= truth && truth <= est.upper) covered++;
      // The naive interval: the imagined mean with its own standard error.
      const m = est.naive;
      const sd = Math.sqrt(imagined.reduce((s, v) => s + (v - m) ** 2, 0) / (imagined.length - 1) / imagined.length);
      if (Math.abs(m - truth) <= 1.96 * sd) naiveCovered++;
    }
    const rate = covered / trials;
    assert.ok(rate >= 0.9 && rate <= 0.99, `PPI coverage ${rate}`);
    assert.ok(naiveCovered / trials < 0.05, `naive coverage ${naiveCovered / trials}`);
  },
);

test('PPI: worked example and bad input', () => {
  // mean f(imagined) = 0.5; rectifier f − y = [0.2, −0.2, 0.6, 0.2]: mean 0.2 → θ̂ = 0.3.
  const est = ppiEstimate([0.4, 0.6, 0.5, 0.5], [0.2, 0.8, 0.6, 0.2], [0, 1, 0, 0]);
  assert.ok(Math.abs(est.estimate - 0.3) < 1e-12);
  assert.equal(est.naive, 0.5);
  // var(imagined) = 0.02/3. The rectifier's variance includes four pseudo-anchors at the mean prediction
  // 0.45 with outcomes 1, 1, 0, 0: values [0.2, -0.2, 0.6, 0.2, -0.55, -0.55, 0.45, 0.45], mean 0.075.
  const g = [0.2, -0.2, 0.6, 0.2, -0.55, -0.55, 0.45, 0.45];
  const gVar = g.reduce((s, v) => s + (v - 0.075) ** 2, 0) / 7;
  const half = 1.96 * Math.sqrt(0.02 / 3 / 4 + gVar / 4);
  assert.ok(Math.abs(est.upper - est.estimate - half) < 1e-12);
  assert.throws(() => ppiEstimate([0.5], [0.5, 0.5], [1, 0]), /at least 2/);
  // Few anchors, all failures, predictions near 0: the interval must not collapse onto 0.
  const rare = ppiEstimate(Array(400).fill(0.012), Array(16).fill(0.01), Array(16).fill(0));
  assert.ok(rare.upper > 0.1, `upper bound ${rare.upper} with 0 successes in 16 anchors`);
  assert.throws(() => ppiEstimate([0.5, 0.4], [0.5], [1, 0]), /predictions/);
});

test(
  'grouped PPI: rollouts of one start are correlated; counting ' +
    'them as independent under-covers, counting groups does not',
  () => {
    const rng = new Rng(3);
    const M = 8;
    const truth = 0.3;
    // Each group (start) has its own success probability and its own world-model bias.
    const group = () => {
      const p = Math.min(1, Math.max(0, truth + rng.uniform(-0.3, 0.3)));
      const bias = 0.15 + rng.normal() * 0.2;
      return Array.from({ length: M }, () => ({
        f: Math.min(1, Math.max(0, p + bias + rng.normal() * 0.05)),
        y: rng.uniform(0, 1) < p ? 1 : 0,
      }));
    };
    const trials = 1000;
    let rollouts = 0;
    let groups = 0;
    for (let t = 0; t < trials; t++) {
      const imagined = Array.from({ length: 20 }, group)
        .flat()
        .map((s) => s.f);
      const anchors = Array.from({ length: 8 }, group).flat();
      const f = anchors.map((s) => s.f);
      const y = anchors.map((s) => s.y);
      const r = ppiEstimate(imagined, f, y);
      const g = groupedPpiEstimate(imagined, f, y, M);
      if (r.lower <= truth && truth <= r.upper) rollouts++;
      if (g.lower <= truth && truth <= g.upper) groups++;
    }
    assert.ok(
      rollouts / trials < 0.85,
      `rollout-level coverage ${rollouts / trials}: the test should show it under-covers`,
    );
    assert.ok(groups / trials >= 0.95, `grouped coverage ${groups / trials}`);
  },
);

test('grouped PPI: the estimate from group means; one anchor group is enough; sizes checked', () => {
  // Imagined groups [0.4, 0.6] and [0.5, 0.7] → means 0.5, 0.6; anchor group f [0.2, 0.4], y [0, 1] → rectifier −0.2.
  const est = groupedPpiEstimate([0.4, 0.6, 0.5, 0.7], [0.2, 0.4], [0, 1], 2);
  assert.ok(Math.abs(est.estimate - 0.75) < 1e-12);
  assert.ok(Math.abs(est.naive - 0.55) < 1e-12);
  assert.equal(est.imagined, 2);
  assert.equal(est.anchors, 1);
  // Guard at the mean prediction 0.3: rectifier values [−0.2, −0.7, −0.7, 0.3, 0.3], mean −0.2.
  const g = [-0.2, -0.7, -0.7, 0.3, 0.3];
  const gVar = g.reduce((s, v) => s + (v + 0.2) ** 2, 0) / 4;
  const half = 1.96 * Math.sqrt(0.005 / 2 + gVar / 1);
  assert.ok(Math.abs(est.lower - Math.max(0, 0.75 - half)) < 1e-12);
  assert.throws(() => groupedPpiEstimate([0.4, 0.6, 0.5], [0.2, 0.4], [0, 1], 2), /groups of 2/);
  assert.throws(() => groupedPpiEstimate([0.4, 0.6], [0.2, 0.4], [0, 1], 2), /at least 2 imagined groups/);
});

test(
  'PPI with an informative, biased predictor: 90–99% coverage over 500 trials and a narrower ' +
    'interval than the real-only one from the same 40 real episodes',
  () => {
    const rng = new Rng(23);
    // Half the rollouts are easy (success 0.9), half hard (0.1); the world model tells them apart
    // but over-states both by 0.08, with noise. Truth 0.5.
    //   real-only: Var(y) = 0.25  →  half-width 1.96·√(0.25/40) ≈ 0.155
    //   PPI: Var(f − y) ≈ E[p(1 − p)] + 0.05² = 0.0925, plus Var(f)/N for 400 imagined
    //        →  half-width ≈ 1.96·√(0.0925/40 + 0.17/400) ≈ 0.10, about a third narrower
    const truth = 0.5;
    const trials = 500;
    const n = 40;
    let covered = 0;
    let ppiWidth = 0;
    let realWidth = 0;
    for (let t = 0; t < trials; t++) {
      const sample = (count: number) =>
        Array.from({ length: count }, () => {
          const p = rng.uniform(0, 1) < 0.5 ? 0.9 : 0.1;
          const y = rng.uniform(0, 1) < p ? 1 : 0;
          return { f: Math.min(1, Math.max(0, p + 0.08 + rng.normal() * 0.05)), y };
        });
      const anchors = sample(n);
      const est = ppiEstimate(
        sample(400).map((s) => s.f),
        anchors.map((s) => s.f),
        anchors.map((s) => s.y),
      );
      if (est.lower <= truth && truth <= est.upper) covered++;
      ppiWidth += (est.upper - est.lower) / trials;
      // The real-only interval from the same anchors alone: normal approximation, as PPI's is.
      const mean = anchors.reduce((s, a) => s + a.y, 0) / n;
      const variance = anchors.reduce((s, a) => s + (a.y - mean) ** 2, 0) / (n - 1);
      realWidth += (2 * 1.96 * Math.sqrt(variance / n)) / trials;
    }
    const rate = covered / trials;
    assert.ok(rate >= 0.9 && rate <= 0.99, `PPI coverage ${rate}`);
    // Measured with this seed: coverage 0.968, mean widths 0.214 (PPI) and 0.310 (real-only).
    assert.ok(ppiWidth < 0.8 * realWidth, `PPI width ${ppiWidth.toFixed(3)} vs real-only ${realWidth.toFixed(3)}`);
  },
);

test('PPI++: λ worked out by hand; a constant or unrelated predictor gives λ = 0 and the real-only mean', () => {
  // Paired f [0.2, 0.8, 0.6, 0.2] (mean 0.45), y [0, 1, 0, 0] (mean 0.25): deviations f [−0.25, 0.35, 0.15, −0.25],
  // y [−0.25, 0.75, −0.25, −0.25] → Cov(f, y) = (0.0625 + 0.2625 − 0.0375 + 0.0625) / 3 = 0.35/3.
  // All six predictions (imagined [0.4, 0.5] too): mean 0.45, Var = 0.275 / 5 = 0.055.
  // λ* = (0.35/3) / ((1 + 4/2) · 0.055) = 70/99.
  const est = tunedPpiEstimate([0.4, 0.5], [0.2, 0.8, 0.6, 0.2], [0, 1, 0, 0]);
  const lambda = 70 / 99;
  assert.ok(Math.abs(est.lambda - lambda) < 1e-12, `λ ${est.lambda}`);
  // θ̂ = λ·0.45 − mean(λf − y) = λ·0.45 − (λ·0.45 − 0.25) = 0.25.
  assert.ok(Math.abs(est.estimate - 0.25) < 1e-12);
  // Half-width: z·√(λ²·Var(imagined)/2 + Var(guarded)/4), with pseudo-anchors at λ·0.45 (outcomes 1, 1, 0, 0).
  const g = [0.2, 0.8, 0.6, 0.2].map((f, i) => lambda * f - [0, 1, 0, 0][i]!);
  g.push(lambda * 0.45 - 1, lambda * 0.45 - 1, lambda * 0.45, lambda * 0.45);
  const gMean = g.reduce((s, v) => s + v, 0) / g.length;
  const gVar = g.reduce((s, v) => s + (v - gMean) ** 2, 0) / (g.length - 1);
  const half = 1.96 * Math.sqrt((lambda * lambda * 0.005) / 2 + gVar / 4);
  assert.ok(Math.abs(est.upper - est.estimate - half) < 1e-12);
  // An unrelated predictor: f − 0.5 = [−0.05, 0, 0.05, 0] against y − 0.25 = [−0.25, 0.75, −0.25, −0.25]: Cov = 0.
  const weak = tunedPpiEstimate([0.5, 0.4, 0.6, 0.5], [0.45, 0.5, 0.55, 0.5], [0, 1, 0, 0]);
  assert.equal(weak.lambda, 0);
  assert.ok(Math.abs(weak.estimate - 0.25) < 1e-12, 'λ = 0: the real-only mean');
  // λ = 0: the variance is the outcomes' (with the guard's pseudo-outcomes 1, 1, 0, 0), none of the predictions'.
  const y = [0, -1, 0, 0, -1, -1, 0, 0];
  const yVar = y.reduce((s, v) => s + (v + 0.375) ** 2, 0) / 7;
  assert.ok(Math.abs(weak.upper - weak.estimate - 1.96 * Math.sqrt(yVar / 4)) < 1e-12);
  // A predictor far better than needed clips at λ = 1: plain PPI.
  const strong = tunedPpiEstimate(Array(20).fill(0.45), [0.2, 0.8, 0.6, 0.2], [0, 1, 0, 0]);
  assert.equal(strong.lambda, 1);
  assert.deepEqual(
    { ...strong, lambda: undefined },
    { ...ppiEstimate(Array(20).fill(0.45), [0.2, 0.8, 0.6, 0.2], [0, 1, 0, 0]), lambda: undefined },
  );
  const flat = tunedPpiEstimate([0.3, 0.3], [0.3, 0.3, 0.3], [1, 0, 1]);
  assert.equal(flat.lambda, 0, 'no variance in the predictions: nothing to learn from them');
  assert.throws(() => tunedPpiEstimate([0.5], [0.5, 0.5], [1, 0]), /at least 2 imagined/);
  assert.throws(() => tunedPpiEstimate([0.5, 0.4], [0.5], [1, 0]), /predictions/);
});

test(
  'PPI++: an uninformative predictor widens plain PPI, not PPI++ (within 10% of real-only); ' +
    'an informative one keeps PPI’s gain; both cover 90–99% over 500 trials',
  () => {
    const rng = new Rng(31);
    const truth = 0.5;
    const trials = 500;
    const n = 40;
    const run = (informative: boolean) => {
      let covered = 0;
      let ppiWidth = 0;
      let tunedWidth = 0;
      let realWidth = 0;
      for (let t = 0; t < trials; t++) {
        const sample = (count: number) =>
          Array.from({ length: count }, () => {
            const p = rng.uniform(0, 1) < 0.5 ? 0.9 : 0.1;
            const y = rng.uniform(0, 1) < p ? 1 : 0;
            // Uninformative: a score of the same spread that ignores p.
            const f = informative ? p + 0.08 + rng.normal() * 0.05 : rng.uniform(0, 1) < 0.5 ? 0.9 : 0.1;
            return { f: Math.min(1, Math.max(0, f)), y };
          });
        const anchors = sample(n);
        const imagined = sample(400).map((s) => s.f);
        const f = anchors.map((s) => s.f);
        const y = anchors.map((s) => s.y);
        const plain = ppiEstimate(imagined, f, y);
        const tuned = tunedPpiEstimate(imagined, f, y);
        if (tuned.lower <= truth && truth <= tuned.upper) covered++;
        ppiWidth += (plain.upper - plain.lower) / trials;
        tunedWidth += (tuned.upper - tuned.lower) / trials;
        const mean = y.reduce((s, v) => s + v, 0) / n;
        realWidth += (2 * 1.96 * Math.sqrt(y.reduce((s, v) => s + (v - mean) ** 2, 0) / (n - 1) / n)) / trials;
      }
      return { coverage: covered / trials, ppiWidth, tunedWidth, realWidth };
    };
    // Uninformative: Var(f − y) = Var(f) + Var(y) = 0.16 + 0.25 → plain PPI ≈ √(0.41/0.25) ≈ 1.28× real-only.
    const bad = run(false);
    assert.ok(bad.coverage >= 0.9 && bad.coverage <= 0.99, `coverage ${bad.coverage}`);
    assert.ok(bad.ppiWidth > 1.15 * bad.realWidth, `plain PPI ${bad.ppiWidth} vs real ${bad.realWidth}`);
    assert.ok(bad.tunedWidth < 1.1 * bad.realWidth, `PPI++ ${bad.tunedWidth} vs real ${bad.realWidth}`);
    const good = run(true);
    assert.ok(good.coverage >= 0.9 && good.coverage <= 0.99, `coverage ${good.coverage}`);
    assert.ok(good.tunedWidth < 0.8 * good.realWidth, `PPI++ ${good.tunedWidth} vs real ${good.realWidth}`);
    assert.ok(good.tunedWidth <= 1.02 * good.ppiWidth, `PPI++ ${good.tunedWidth} vs PPI ${good.ppiWidth}`);
  },
);

test('weighted groups: equal weights are grouped PPI; weights shift the rectifier; bad weights refused', () => {
  const imagined = [0.5, 0.7, 0.2];
  const predicted = [0.6, 0.3];
  const outcomes = [0.5, 0.25];
  assert.deepEqual(
    weightedGroupsPpiEstimate(imagined, predicted, outcomes, [1, 1]),
    groupedPpiEstimate(imagined, predicted, outcomes, 1),
  );
  // Worked numbers: naive 0.4667; rectifiers 0.1 and 0.05; weights 1 and 3 give 0.0625.
  const e = weightedGroupsPpiEstimate(imagined, predicted, outcomes, [1, 3]);
  assert.ok(Math.abs(e.estimate - (1.4 / 3 - 0.0625)) < 1e-12, `estimate ${e.estimate}`);
  assert.throws(() => weightedGroupsPpiEstimate(imagined, predicted, outcomes, [1, 0]), /weights must be positive/);
  assert.throws(
    () => weightedGroupsPpiEstimate(imagined, predicted, outcomes, [1]),
    /2 anchor predictions, 2 outcomes and 1 weights/,
  );
});
