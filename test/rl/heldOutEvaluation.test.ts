/** One evaluation's metrics put together from consecutive pieces of its plan (the demo splits its last). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { evalMetrics, heldOutPlan } from '../../src/rl/estimates/heldOutEvaluation.ts';
import { planEpisodes } from '../../src/tasks/episodePlan.ts';
import { parseTaskSelectors } from '../../src/tasks/selectors.ts';

test('evalMetrics: parts in plan order give the outcomes, counts, families and robot time of the whole', () => {
  const first = { perFamily: { reach: { episodes: 3, successes: 2 } }, robotSeconds: 2.5, outcomes: [1, 0, 1] };
  const second = { perFamily: { reach: { episodes: 1, successes: 1 } }, robotSeconds: 0.7, outcomes: [1] };
  const e = evalMetrics(12, 'test', [first, second]);
  assert.deepEqual(e.outcomes, [1, 0, 1, 1]);
  assert.equal(e.episodes, 4);
  assert.equal(e.successes, 3);
  assert.equal(e.successRate, 0.75);
  assert.deepEqual(e.perFamily, { reach: { episodes: 4, successes: 3 } });
  assert.ok(Math.abs(e.robotSeconds - 3.2) < 1e-12);
  assert.equal(e.step, 12);
  assert.equal(evalMetrics(0, 'test', []).successRate, 0, 'no episodes: 0, not NaN');
});

test('heldOutPlan: one task selector plays seeds 900000 on, so a later piece is a plan from a later seed', () => {
  const config = (episodes: number) => ({
    eval: { every: 4, episodes, split: 'test' as const, tasks: 'reach', keepPolicies: false },
  });
  const whole = heldOutPlan(config(10));
  assert.equal(whole[0]!.seed, 900_000);
  assert.deepEqual(
    whole.map((p) => p.seed),
    Array.from({ length: 10 }, (_, i) => 900_000 + i),
  );
  assert.ok(whole.every((p) => p.task.family === 'reach' && p.task.split === 'test'));
  // What `wmrl eval --task reach --split test --episodes 3 --seed 900007` plays: the last 3.
  assert.deepEqual(planEpisodes(parseTaskSelectors('reach'), 'test', 3, 900_007), whole.slice(7));
});
