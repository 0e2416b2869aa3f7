/**
 * Anchor selection: the uniform part is uniform (chi-square), inclusion probabilities are exact,
 * and the importance-weighted PPI estimate is unbiased on synthetic data where the plain one is not.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rng } from '../../src/core/rng.ts';
import { weightedPpiEstimate } from '../../src/eval/ppiEstimate.ts';
import { activeProbabilities, selectAnchorGroups, systematicSample } from '../../src/rl/anchorSelection.ts';

test("selection: without active picks it is the trainer's historical draw, bit for bit", () => {
  for (const seed of [1, 2, 3]) {
    const a = new Rng(seed);
    const b = new Rng(seed);
    const s = selectAnchorGroups(a, { groups: 8, uniform: 3 });
    const historical = [...new Set(b.shuffle(Array.from({ length: 8 }, (_, i) => i)).slice(0, 3))].sort(
      (x, y) => x - y,
    );
    assert.deepEqual(s.anchors, historical);
    assert.equal(a.next(), b.next(), 'the same random numbers were consumed');
    assert.deepEqual(s.inclusion, new Array(8).fill(3 / 8));
  }
});

test('selection: the uniform part is uniform (chi-square over groups and over pairs)', () => {
  const rng = new Rng(7);
  const G = 10;
  const k = 3;
  const trials = 20_000;
  const counts = new Array<number>(G).fill(0);
  const pairs = new Map<string, number>();
  // Active picks on a skewed priority must not disturb the uniform part.
  const priority = Array.from({ length: G }, (_, g) => (g === 0 ? 10 : 0.1));
  for (let t = 0; t < trials; t++) {
    const s = selectAnchorGroups(rng, { groups: G, uniform: k, active: 2, priority });
    for (const g of s.uniform) counts[g]!++;
    const key = s.uniform.join(',');
    pairs.set(key, (pairs.get(key) ?? 0) + 1);
  }
  const expected = (trials * k) / G;
  const chi2 = counts.reduce((s, c) => s + (c - expected) ** 2 / expected, 0);
  // 9 degrees of freedom: P(χ² > 27.88) = 0.001.
  assert.ok(chi2 < 27.88, `group counts not uniform: χ² = ${chi2.toFixed(1)} (${counts.join(' ')})`);
  // All C(10,3) = 120 subsets equally likely: 119 dof, P(χ² > 173.6) ≈ 0.001.
  assert.equal(pairs.size, 120);
  const e = trials / 120;
  const chiSets = [...pairs.values()].reduce((s, c) => s + (c - e) ** 2 / e, 0);
  assert.ok(chiSets < 173.6, `subsets not uniform: χ² = ${chiSets.toFixed(1)}`);
});

test('selection: recorded inclusion probabilities match the empirical ones', () => {
  const rng = new Rng(11);
  const G = 8;
  const priority = [5, 1, 0, 0.5, 3, 0.2, 0.2, 8];
  const trials = 20_000;
  const hits = new Array<number>(G).fill(0);
  let inclusion: number[] = [];
  for (let t = 0; t < trials; t++) {
    const s = selectAnchorGroups(rng, { groups: G, uniform: 1, active: 2, priority });
    for (const g of s.anchors) hits[g]!++;
    inclusion = s.inclusion;
    assert.ok(s.active.every((g) => !s.uniform.includes(g)));
  }
  for (let g = 0; g < G; g++) {
    const p = inclusion[g]!;
    const se = Math.sqrt((p * (1 - p)) / trials);
    assert.ok(
      Math.abs(hits[g]! / trials - p) < 4.5 * se + 1e-9,
      `group ${g}: empirical ${(hits[g]! / trials).toFixed(4)} vs recorded ${p.toFixed(4)}`,
    );
  }
  const q = activeProbabilities(priority, 2, 0.05);
  assert.ok(Math.abs(q.reduce((s, v) => s + v, 0) - 2) < 1e-9);
  assert.ok(
    q.every((v) => v > 0 && v <= 1),
    'every group keeps a chance',
  );
  assert.equal(systematicSample([0.5, 0.5, 1], 0.25).length, 2);
  assert.throws(() => selectAnchorGroups(new Rng(1), { groups: 4, uniform: 1, active: 1 }), /priority/);
});

test('selection: the importance-weighted PPI estimate is unbiased on synthetic data; the unweighted one is not', () => {
  // 12 groups; the world model is most wrong where the ensemble disagrees most (priority).
  const G = 12;
  const data = new Rng(5);
  const truth = Array.from({ length: G }, () => data.uniform(0.1, 0.9));
  const priority = Array.from({ length: G }, (_, g) => (g < 3 ? 1 : 0.05));
  const bias = priority.map((u) => (u > 0.5 ? -0.35 : 0.05));
  const predicted = truth.map((y, g) => Math.min(1, Math.max(0, y + bias[g]!)));
  const target = truth.reduce((s, v) => s + v, 0) / G;
  const rng = new Rng(6);
  const trials = 20_000;
  let weighted = 0;
  let weightedSq = 0;
  let plain = 0;
  let covered = 0;
  for (let t = 0; t < trials; t++) {
    const s = selectAnchorGroups(rng, { groups: G, uniform: 1, active: 2, priority });
    const anchors = new Set(s.anchors);
    const groups = truth.map((y, g) => ({
      predicted: predicted[g]!,
      outcome: anchors.has(g) ? y : null,
      inclusion: s.inclusion[g]!,
    }));
    const w = weightedPpiEstimate(groups);
    // The estimate is clipped to [0, 1]; unbiasedness is about the raw mean, so recompute it.
    const raw =
      groups.reduce(
        (acc, g) => acc + (g.outcome === null ? g.predicted : g.predicted + (g.outcome - g.predicted) / g.inclusion),
        0,
      ) / G;
    weighted += raw;
    weightedSq += raw * raw;
    if (w.lower <= target && target <= w.upper) covered++;
    // Ignoring how anchors were picked: imagined mean + mean anchor error, as for uniform anchors.
    const imagined = truth
      .map((_, g) => g)
      .filter((g) => !anchors.has(g))
      .map((g) => predicted[g]!);
    const anchorIdx = [...anchors];
    plain +=
      imagined.reduce((a, v) => a + v, 0) / imagined.length -
      anchorIdx.reduce((a, g) => a + predicted[g]! - truth[g]!, 0) / anchorIdx.length;
  }
  const mean = weighted / trials;
  const sd = Math.sqrt(weightedSq / trials - mean * mean);
  const se = sd / Math.sqrt(trials);
  assert.ok(
    Math.abs(mean - target) < 4 * se,
    `weighted mean ${mean.toFixed(4)} vs truth ${target.toFixed(4)} (se ${se.toFixed(4)})`,
  );
  const plainMean = plain / trials;
  assert.ok(
    Math.abs(plainMean - target) > 10 * se,
    `the unweighted estimate is biased under active selection (${plainMean.toFixed(4)} vs ${target.toFixed(4)})`,
  );
  assert.ok(covered / trials > 0.8, `interval coverage ${(covered / trials).toFixed(3)}`);
});
