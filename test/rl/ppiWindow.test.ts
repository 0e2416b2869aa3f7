/**
 * The training PPI estimate's window of anchor groups (src/rl/estimates/ppiWindow.ts): the newest `size`
 * groups are kept as raw scores and outcomes, debiased again by the correction of the step that
 * asks, they rectify the estimate as groupedPpiEstimate would, and a wider window narrows an
 * interval that one anchor group leaves near [0, 1].
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { groupedPpiEstimate } from '../../src/eval/ppiEstimate.ts';
import { PpiWindow, type Rescore } from '../../src/rl/estimates/ppiWindow.ts';
import { Rng } from '../../src/core/rng.ts';

const M = 4;
const identity: Rescore = (scores) => scores;

test('keeps the newest groups, survives JSON, refuses bad input; an older checkpoint starts empty', () => {
  const w = new PpiWindow(2);
  w.add(1, [1, 1, 0, 0, 0.5, 0.5, 0.5, 0.5], [1, 0, 0, 0, 1, 1, 1, 0], M);
  w.add(2, [0.2, 0.2, 0.2, 0.2], [0, 0, 0, 1], M);
  assert.deepEqual(w.toJSON(), {
    groups: [
      { step: 1, scores: [0.5, 0.5, 0.5, 0.5], outcome: 0.75 },
      { step: 2, scores: [0.2, 0.2, 0.2, 0.2], outcome: 0.25 },
    ],
  });
  assert.equal(w.groups, 2);
  assert.deepEqual(PpiWindow.fromJSON(2, 0, w.toJSON()).toJSON(), w.toJSON());
  assert.equal(PpiWindow.fromJSON(2, 0, { predicted: [0.5], outcomes: [1] }).groups, 0);
  // A checkpoint from before groups kept their step: dated to step 0.
  const undated = PpiWindow.fromJSON(2, 2, { groups: [{ scores: [0.5], outcome: 1 }] });
  assert.equal(undated.toJSON().groups[0]!.step, 0);
  assert.throws(() => new PpiWindow(0), /size must be an integer ≥ 1/);
  assert.throws(() => new PpiWindow(2, -1), /half-life must be a number of steps ≥ 0/);
  assert.throws(() => w.add(3, [1, 0], [1], 1), /2 scores but 1 outcomes/);
  // `with` adds to a copy: the window itself is left as it was.
  const next = w.with(3, [0.9, 0.9, 0.9, 0.9], [1, 1, 1, 0], M);
  assert.deepEqual(
    next.toJSON().groups.map((g) => g.step),
    [2, 3],
  );
  assert.deepEqual(
    w.toJSON().groups.map((g) => g.step),
    [1, 2],
  );
});

test("its estimate is groupedPpiEstimate over the window's groups, debiased by the correction of now", () => {
  const w = new PpiWindow(8);
  const scores = [0.6, 0.6, 0.6, 0.6, 0.3, 0.3, 0.3, 0.3];
  const outcomes = [1, 0, 1, 0, 0, 0, 1, 0];
  w.add(1, scores, outcomes, M);
  const imagined = [0.5, 0.5, 0.5, 0.5, 0.7, 0.7, 0.7, 0.7, 0.2, 0.2, 0.2, 0.2];
  assert.deepEqual(w.estimate(1, imagined, M, identity), groupedPpiEstimate(imagined, scores, outcomes, M));
  const extra = { predicted: [0.4, 0.4, 0.4, 0.4], outcomes: [1, 1, 0, 1] };
  assert.deepEqual(
    w.estimate(1, imagined, M, identity, extra),
    groupedPpiEstimate(imagined, [...scores, ...extra.predicted], [...outcomes, ...extra.outcomes], M),
  );
  assert.equal(w.groups, 2, 'extra groups are not kept');
  // A map fitted after these groups were added (here: halve every score) applies to them too.
  const halve: Rescore = (s) => s.map((v) => v / 2);
  assert.deepEqual(
    w.estimate(1, imagined, M, halve),
    groupedPpiEstimate(
      imagined,
      scores.map((v) => v / 2),
      outcomes,
      M,
    ),
  );
});

test('a map fitted after the first anchors does not subtract their bias twice', () => {
  // Worked numbers: the world model over-predicts by 0.4 (raw 0.9 where the truth is 0.5). Two
  // steps of anchors arrive before the map is fitted; then the map takes 0.9 to 0.5, and the
  // imagined groups, debiased by it, score 0.5. Kept as the scores calibrated at the time (0.9),
  // the window's rectifier would be 0.9 − 0.5 = 0.4 and the estimate 0.5 − 0.4 = 0.1; debiased
  // now (0.5), the rectifier is 0 and the estimate the truth.
  const w = new PpiWindow(8);
  for (let step = 1; step <= 2; step++) w.add(step, [0.9, 0.9, 0.9, 0.9], [1, 0, 1, 0], M);
  const map: Rescore = (s) => s.map((v) => v - 0.4);
  const imagined = [0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5];
  const e = w.estimate(2, imagined, M, map);
  assert.ok(Math.abs(e.estimate - 0.5) < 1e-9, `estimate ${e.estimate}`);
  assert.ok(e.lower <= 0.5 && 0.5 <= e.upper);
});

test('eight steps of one anchor group each: the interval narrows from near [0, 1]', () => {
  const rng = new Rng(5);
  const w = new PpiWindow(8);
  const imagined = Array.from({ length: 7 * M }, () => 0.5 + 0.2 * (rng.next() - 0.5));
  const widths: number[] = [];
  for (let step = 1; step <= 8; step++) {
    // a world model that over-predicts by about 0.2
    const predicted = Array.from({ length: M }, () => 0.7);
    const outcomes = Array.from({ length: M }, () => (rng.next() < 0.5 ? 1 : 0));
    w.add(step, predicted, outcomes, M);
    const e = w.estimate(step, imagined, M, identity);
    assert.ok(e.lower <= e.estimate && e.estimate <= e.upper);
    widths.push(e.upper - e.lower);
  }
  assert.ok(widths[0]! > 0.8, `one group: width ${widths[0]}`);
  assert.ok(widths[7]! < 0.55 * widths[0]!, `eight groups: width ${widths[7]} against ${widths[0]}`);
});

test('recent groups weigh more: a drifting error is followed, the interval counts the effective groups', () => {
  // Worked numbers: the world model's error drifts from over-predicting by 0.3 (steps 1–4) to
  // under-predicting by 0.3 (steps 5–8), as when the policy outgrows it. Imagined groups score
  // 0.4, so the truth at step 8 is 0.4 + 0.3 = 0.7. Equal weights average the two errors to 0 and
  // estimate 0.4; halving every 2 steps weighs steps 5–8 by 1 + 0.71 + 0.5 + 0.35 = 2.56 against
  // 0.25 + 0.18 + 0.125 + 0.09 = 0.64 for steps 1–4, a rectifier of (0.64·0.3 − 2.56·0.3) / 3.2
  // = −0.18 and an estimate of 0.58.
  const equal = new PpiWindow(8);
  const recent = new PpiWindow(8, 2);
  for (let step = 1; step <= 8; step++) {
    const predicted = step <= 4 ? 0.8 : 0.2;
    for (const w of [equal, recent]) w.add(step, [predicted, predicted, predicted, predicted], [1, 0, 1, 0], M);
  }
  const imagined = [0.4, 0.4, 0.4, 0.4, 0.4, 0.4, 0.4, 0.4];
  const e0 = equal.estimate(8, imagined, M, identity);
  const e2 = recent.estimate(8, imagined, M, identity);
  assert.ok(Math.abs(e0.estimate - 0.4) < 1e-9, `equal weights: ${e0.estimate}`);
  assert.ok(Math.abs(e2.estimate - 0.58) < 0.005, `half-life 2: ${e2.estimate}`);
  // Fewer effective groups ((Σw)²/Σw² = 3.2² / 1.99 ≈ 5.1 of 8): a wider interval.
  assert.ok(e2.upper - e2.lower > e0.upper - e0.lower);
  const weights = recent.rectifiers(8, M, identity).weights;
  // halving every 2 steps: ages 7, 6, …, 0
  assert.deepEqual(
    weights,
    [7, 6, 5, 4, 3, 2, 1, 0].map((age) => 0.5 ** (age / 2)),
  );
  // Equal weights are groupedPpiEstimate's; extra (this step's) groups weigh 1.
  const extra = { predicted: [0.4, 0.4, 0.4, 0.4], outcomes: [1, 1, 1, 0] };
  assert.deepEqual(recent.rectifiers(8, M, identity, extra).weights.at(-1), 1);
});
