/** The uncertainty penalty: imagined scores less α ensemble standard deviations (MOPO). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { penalisedScores } from '../../src/rl/step/uncertaintyPenalty.ts';
import { groupAdvantages } from '../../src/rl/step/groupAdvantages.ts';

test('penalisedScores: a rollout the ensemble disagrees on drops below one it agrees on; α = 0 changes nothing', () => {
  // Worked numbers: scores 0.60 and 0.55, standard deviations 0.10 and 0.01 (variances 0.01, 0.0001).
  // α = 1: 0.60 − 0.10 = 0.50 and 0.55 − 0.01 = 0.54, so the order flips and so do the advantages.
  const scores = Float32Array.from([0.6, 0.55]);
  const variances = [0.01, 0.0001];
  const out = penalisedScores(scores, variances, 1);
  assert.ok(Math.abs(out[0]! - 0.5) < 1e-6 && Math.abs(out[1]! - 0.54) < 1e-6, `${Array.from(out)}`);
  const [before] = groupAdvantages(scores, 2);
  const [after] = groupAdvantages(out, 2);
  assert.ok(before! > 0 && after! < 0, `the uncertain rollout's advantage ${before} → ${after}`);
  assert.equal(penalisedScores(scores, variances, 0), scores);
  assert.throws(() => penalisedScores(scores, [0.01], 1), /2 scores but 1 variances/);
  assert.throws(() => penalisedScores(scores, variances, -1), /must be ≥ 0/);
});
