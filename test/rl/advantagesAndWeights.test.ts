import { test } from 'node:test';
import assert from 'node:assert/strict';
import { groupAdvantages } from '../../src/rl/step/groupAdvantages.ts';
import { AnchorWeight, ensembleWeights, normalisedResidual } from '../../src/rl/corrections/denoisingWeights.ts';

const round = (a: ArrayLike<number>) => Array.from(a, (v) => +v.toFixed(5));

test('GRPO advantages: standardised within each group; a constant group gives zeros', () => {
  // Group [1, 0, 0, 1]: mean 0.5, std 0.5 → ±1. Group [0.2, 0.2, 0.2, 0.2] → 0.
  assert.deepEqual(round(groupAdvantages([1, 0, 0, 1, 0.2, 0.2, 0.2, 0.2], 4)), [1, -1, -1, 1, 0, 0, 0, 0]);
  // [0, 0.5, 1]: mean 0.5, std sqrt(1/6).
  const s = Math.sqrt(1 / 6);
  assert.deepEqual(round(groupAdvantages([0, 0.5, 1], 3)), round([-0.5 / s, 0, 0.5 / s]));
  assert.throws(() => groupAdvantages([1, 2, 3], 2), /groups of 2/);
});

test(
  'a constant shift (or positive scaling) of all scores leaves ' +
    'the advantages unchanged — why the debias map must be non-affine',
  () => {
    const scores = [0.1, 0.7, 0.4, 0.9, 0.3, 0.35, 0.8, 0.05];
    const base = round(groupAdvantages(scores, 4));
    assert.deepEqual(
      round(
        groupAdvantages(
          scores.map((v) => v + 0.37),
          4,
        ),
      ),
      base,
    );
    assert.deepEqual(
      round(
        groupAdvantages(
          scores.map((v) => 2.5 * v - 0.2),
          4,
        ),
      ),
      base,
    );
    // A non-affine (monotone) map changes them.
    assert.notDeepEqual(
      round(
        groupAdvantages(
          scores.map((v) => v * v),
          4,
        ),
      ),
      base,
    );
  },
);

test('anchor weight: clip(1 + c·s², 1, 4) with c fixed after the calibration groups so w = 2 then', () => {
  // d − d̄ = [0.1, −0.1], y − ȳ = [0.5, −0.5]: residual mean 0.16, Var(y) 0.25 → 0.64.
  assert.ok(Math.abs(normalisedResidual([0.6, 0.4], [1, 0])! - 0.64) < 1e-12);
  assert.equal(normalisedResidual([0.6, 0.4], [1, 1]), undefined, 'constant true scores are skipped');
  const w = new AnchorWeight({ halfLife: 64, calibrationGroups: 3, maxWeight: 4 });
  w.observe([0.6, 0.4], [1, 0]);
  w.observe([0.6, 0.4], [1, 0]);
  assert.equal(w.weight, 1, 'w = 1 before c is fixed');
  w.observe([0.3, 0.3], [1, 1]); // skipped
  assert.equal(w.groups, 2);
  w.observe([0.6, 0.4], [1, 0]);
  assert.ok(Math.abs(w.c! - 1 / 0.64) < 1e-9);
  assert.ok(Math.abs(w.weight - 2) < 1e-9);
  // A much worse world model (d anti-correlated with y): residual (−0.1−0.5)²... s² grows, w rises, capped at 4.
  for (let i = 0; i < 2000; i++) w.observe([0.4, 0.6], [1, 0]);
  // residual: ((−0.1 − 0.5)² + (0.1 + 0.5)²)/2 / 0.25 = 1.44 → w → 1 + 1.44/0.64 = 3.25.
  assert.ok(Math.abs(w.weight - 3.25) < 1e-3, `w = ${w.weight}`);
  const restored = AnchorWeight.fromJSON(JSON.parse(JSON.stringify(w.toJSON())));
  assert.equal(restored.weight, w.weight);
});

test('ensemble weights ∝ 1/(σ² + σ₀²), normalised to mean 1', () => {
  // σ² = [0, 0.01, 0.03], σ₀² = 0.01 → raw [100, 50, 25], mean 175/3.
  const w = ensembleWeights([0, 0.01, 0.03], 0.01);
  assert.deepEqual(round(w), round([300 / 175, 150 / 175, 75 / 175]));
  assert.ok(Math.abs(w.reduce((s, v) => s + v, 0) / 3 - 1) < 1e-6);
  assert.throws(() => ensembleWeights([0.1], 0), /positive/);
});
