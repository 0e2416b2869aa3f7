import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  IsotonicCalibrator,
  fitBinnedIsotonic,
  poolAdjacentViolators,
} from '../../src/rl/corrections/isotonicCalibrator.ts';
import { Rng } from '../../src/core/rng.ts';
import { groupAdvantages } from '../../src/rl/step/groupAdvantages.ts';

test('pool-adjacent-violators: a hand-computed case', () => {
  // 1, 3, 2, 2, 5 (unit weights): 3 > 2 pools to 2.5, then 2.5 > 2 pools (3+2+2)/3 = 7/3.
  const out = poolAdjacentViolators([1, 3, 2, 2, 5], [1, 1, 1, 1, 1]);
  assert.deepEqual(
    out.map((v) => +v.toFixed(6)),
    [1, 2.333333, 2.333333, 2.333333, 5],
  );
  // Weights count: (0.8·3 + 0.2·1) / 4 with weights 3 and 1.
  assert.deepEqual(
    poolAdjacentViolators([0.8, 0.2], [3, 1]).map((v) => +v.toFixed(12)),
    [0.65, 0.65],
  );
});

test('binned isotonic fit: knots at bin mean scores, pooled outcomes, empty bins skipped', () => {
  // Bin 0 (scores 0.05, 0.15→bin 1)... scores and outcomes chosen so bins 1 and 2 violate.
  const scores = [0.05, 0.05, 0.15, 0.15, 0.25, 0.25, 0.95];
  const outcomes = [0, 0, 1, 1, 0, 1, 1];
  const { x, y } = fitBinnedIsotonic(scores, outcomes, 10);
  assert.deepEqual(
    x.map((v) => +v.toFixed(6)),
    [0.05, 0.15, 0.25, 0.95],
  );
  // Bin means 0, 1, 0.5, 1 with weights 2, 2, 2, 1: bins 1 and 2 pool to 0.75.
  assert.deepEqual(y, [0, 0.75, 0.75, 1]);
});

test('calibrator: identity below the minimum pair count, then a monotone map', () => {
  const cal = new IsotonicCalibrator({ bins: 10, minPairs: 50, refitEvery: 10, window: 1000 });
  const rng = new Rng(3);
  // A biased world model: true success probability is r̂² (over-optimistic).
  const draw = (n: number) => {
    const s = Array.from({ length: n }, () => rng.uniform(0, 1));
    return { s, y: s.map((v) => (rng.uniform(0, 1) < v * v ? 1 : 0)) };
  };
  const a = draw(49);
  assert.equal(cal.add(a.s, a.y), false);
  assert.equal(cal.fitted, false);
  for (const v of [0, 0.3, 0.77, 1]) assert.equal(cal.map(v), v, 'identity before minPairs');
  const b = draw(951);
  assert.equal(cal.add(b.s, b.y), true);
  assert.ok(cal.fitted);
  let prev = -Infinity;
  for (let v = 0; v <= 1.0001; v += 0.01) {
    const m = cal.map(v);
    assert.ok(m >= prev - 1e-12, `monotone at ${v}`);
    prev = m;
  }
  // Close to the truth v² in the middle of the range, and clearly non-affine.
  assert.ok(Math.abs(cal.map(0.5) - 0.25) < 0.08, `f(0.5) = ${cal.map(0.5)}`);
  assert.ok(Math.abs(cal.map(0.9) - 0.81) < 0.08, `f(0.9) = ${cal.map(0.9)}`);
  const restored = IsotonicCalibrator.fromJSON(JSON.parse(JSON.stringify(cal.toJSON())));
  assert.equal(restored.map(0.42), cal.map(0.42));
});

test('calibrator keeps only the newest window of pairs and refits every refitEvery pairs', () => {
  const cal = new IsotonicCalibrator({ bins: 2, minPairs: 4, refitEvery: 4, window: 4 });
  assert.equal(cal.add([0.2, 0.2, 0.8, 0.8], [0, 0, 1, 1]), true);
  assert.equal(cal.map(0.8), 1);
  assert.equal(cal.add([0.2, 0.8], [0, 0]), false, 'not yet due');
  assert.equal(cal.pairs, 4);
  assert.equal(cal.add([0.2, 0.8], [0, 0]), true);
  // Only the newest four pairs remain, every one a failure, in both bins (so a map, not the
  // identity): 0.8 maps to 0. Had the first pairs stayed, its bin would hold 1, 1, 0, 0: 0.5.
  assert.equal(cal.map(0.8), 0);
  assert.equal(cal.map(0.2), 0);
  assert.throws(() => cal.add([0.1], [Number.NaN]), /non-finite/);
});

test('orderSlope: a pooled stretch keeps the order of scores, levels move by at most slope/2', () => {
  // Bins 5..8 violate (outcome rate falls with the score), so PAV pools them into one flat block.
  const scores = [0.1, 0.1, 0.55, 0.55, 0.65, 0.65, 0.75, 0.75, 0.85, 0.85];
  const outcomes = [0, 0, 1, 1, 1, 0, 1, 0, 0, 1];
  const flat = new IsotonicCalibrator({ bins: 10, minPairs: 10, refitEvery: 10, window: 100 });
  const sloped = new IsotonicCalibrator({ bins: 10, minPairs: 10, refitEvery: 10, window: 100, orderSlope: 0.001 });
  flat.add(scores, outcomes);
  sloped.add(scores, outcomes);
  // Hand-computed PAV: bin means 0, 1, 0.5, 0.5, 0.5 (weights 2 each) pool to 0, 0.625 × 4.
  assert.deepEqual(flat.knots().y, [0, 0.625, 0.625, 0.625, 0.625]);
  assert.deepEqual(sloped.knots(), flat.knots(), 'the slope does not change the fit');
  // The paper's map ties every score of the pooled block and beyond; the sloped one orders them.
  const group = [0.6, 0.7, 0.8, 0.9];
  assert.deepEqual(
    group.map((s) => flat.map(s)),
    [0.625, 0.625, 0.625, 0.625],
  );
  const f = group.map((s) => sloped.map(s));
  for (let i = 1; i < f.length; i++) assert.ok(f[i]! > f[i - 1]!, `strictly increasing: ${f}`);
  for (const s of [0, 0.1, 0.3, 0.6, 0.9, 1])
    assert.ok(Math.abs(sloped.map(s) - flat.map(s)) <= 0.0005 + 1e-12, `level at ${s}`);
  // GRPO's standardised advantages of that group are then the raw scores' own.
  const adv = (v: number[]) => Array.from(groupAdvantages(v, v.length), (a) => +a.toFixed(4));
  assert.deepEqual(adv(f), adv(group));
  assert.deepEqual(adv(group.map((x) => flat.map(x))), [0, 0, 0, 0], "the paper's map: no advantage at all");
  // Identity before the fit, whatever the slope; a negative or non-finite slope is refused.
  assert.equal(
    new IsotonicCalibrator({ bins: 10, minPairs: 5, refitEvery: 5, window: 10, orderSlope: 0.5 }).map(0.3),
    0.3,
  );
  assert.throws(
    () => new IsotonicCalibrator({ bins: 10, minPairs: 5, refitEvery: 5, window: 10, orderSlope: -1 }),
    /orderSlope/,
  );
  assert.throws(
    () => new IsotonicCalibrator({ bins: 10, minPairs: 5, refitEvery: 5, window: 10, orderSlope: Number.NaN }),
    /orderSlope/,
  );
});

test('calibrator: scores in fewer than two populated bins leave the map the identity', () => {
  const c = new IsotonicCalibrator({ bins: 10, minPairs: 4, refitEvery: 4, window: 100, orderSlope: 0 });
  // Six pairs, every score in bin 5 ([0.5, 0.6)): one knot would map every score to 2/6.
  c.add([0.51, 0.52, 0.55, 0.56, 0.58, 0.59], [1, 0, 0, 1, 0, 0]);
  assert.equal(c.fitted, false);
  assert.deepEqual(c.knots(), { x: [], y: [] });
  assert.equal(c.map(0.52), 0.52);
  assert.equal(c.map(0.9), 0.9);
  // Two pairs in bin 1 make a second populated bin: now a monotone map, knots at the bin means.
  c.add([0.1, 0.12], [0, 0]);
  assert.equal(c.fitted, true);
  const { x, y } = c.knots();
  assert.equal(x.length, 2);
  assert.ok(Math.abs(x[0]! - 0.11) < 1e-12 && Math.abs(x[1]! - 3.31 / 6) < 1e-12, JSON.stringify(x));
  assert.deepEqual(y, [0, 2 / 6]);
});
