import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SpotCheckCorrection } from '../../src/success/spotCheckCorrection.ts';

const close = (a: number, b: number, tol = 1e-9) => assert.ok(Math.abs(a - b) <= tol, `${a} ≉ ${b}`);
const options = { window: 100, minChecks: 4, tolerance: 0.1 };

test('the bias is the mean of score − label over the spot checks, once there are enough', () => {
  const c = new SpotCheckCorrection(options, { threshold: 0.6, heldOutErrorRate: 0.05 });
  c.add({ score: 0.9, success: true });
  c.add({ score: 0.8, success: false });
  c.add({ score: 0.2, success: false });
  assert.equal(c.bias(), 0, 'below minChecks the detector is taken as unbiased');
  c.add({ score: 0.7, success: true });
  // Residuals −0.1, 0.8, 0.2, −0.3: b̂ = 0.6 / 4 = 0.15.
  close(c.bias(), 0.15);
  close(c.corrected(0.7), 0.55);
  assert.equal(c.decide(0.7), false, '0.55 is below the threshold 0.6');
  assert.equal(c.corrected(0.1), 0, 'clamped to [0, 1]');
  // θ̂ = mean score − b̂ = 0.5 − 0.15.
  close(c.estimate([0.5, 0.5])!.estimate, 0.35);
  // Spread of the residuals: the 95% interval [−0.32, 0.62] holds 0, and 1 error in 4 is no excess.
  const d = c.drift();
  assert.equal(d.drifted, false, d.reasons.join('; '));
  close(d.errorRate, 0.25);
});

test('a detector that calls failures successes is flagged as drifted, with both reasons', () => {
  const c = new SpotCheckCorrection(options, { threshold: 0.5, heldOutErrorRate: 0.05 });
  for (let i = 0; i < 8; i++) c.add({ score: 0.9, success: false });
  const d = c.drift();
  assert.equal(d.drifted, true);
  assert.equal(d.reasons.length, 2, d.reasons.join('; '));
  assert.match(d.reasons[0]!, /bias on 8 spot checks is 0\.90/);
  assert.match(d.reasons[1]!, /disagree with the operator on 8 of 8/);
});

test('only the newest `window` spot checks count', () => {
  const c = new SpotCheckCorrection({ ...options, window: 4 }, { threshold: 0.5, heldOutErrorRate: 0 });
  c.add({ score: 1, success: false });
  for (let i = 0; i < 4; i++) c.add({ score: 0.5, success: true });
  assert.equal(c.checks.length, 4);
  close(c.bias(), -0.5);
});

test("an episode's spot check counts once, even after it left the window", () => {
  const c = new SpotCheckCorrection({ ...options, window: 2 }, { threshold: 0.5, heldOutErrorRate: 0 });
  assert.equal(c.add({ score: 0.9, success: false, episode: 'a' }), true);
  assert.equal(c.add({ score: 0.9, success: false, episode: 'a' }), false, 'the same episode again');
  c.add({ score: 0.2, success: false, episode: 'b' });
  c.add({ score: 0.3, success: false, episode: 'c' });
  assert.equal(c.add({ score: 0.9, success: false, episode: 'a' }), false, 'out of the window, still counted');
  assert.deepEqual(
    c.checks.map((k) => k.episode),
    ['b', 'c'],
  );
});
