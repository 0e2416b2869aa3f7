/** The goal localiser: the goal's position from the policy's perception of an episode's first frame. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Episode } from '../../src/core/types.ts';
import { goalLabels } from '../../src/rl/corrections/goalLabels.ts';
import { type GoalLabel, GoalLocaliser } from '../../src/worldmodel/goalLocaliser.ts';
import { makeTestEpisode } from '../helpers/episodes.ts';

/**
 * A pair of episodes as the localiser sees them: `perceived` holds a 4-number latent a step (the
 * grounding heads' image positions), `recorded` a privileged state whose last three numbers are the goal.
 * The goal is a fixed non-linear function of the latent and the object's kind, as a camera's is.
 */
function pair(
  seed: number,
  kind: string,
  family: 'reach' | 'pick' = 'reach',
): { perceived: Episode; recorded: Episode } {
  const recorded = makeTestEpisode({ seed, family, steps: 1, stateDim: 5 });
  recorded.task = { ...recorded.task, object: kind };
  const z = [Math.sin(seed), Math.cos(1.7 * seed), 0.3 * Math.sin(0.3 * seed), 0.1];
  const goal = goalOf(z, kind);
  for (let t = 0; t <= 1; t++) recorded.state.set([0, 0, ...goal], t * 5);
  const perceived = { ...recorded, state: Float32Array.from([...z, ...z]), stateDim: 4 };
  return { perceived, recorded };
}
const goalOf = (z: number[], kind: string): number[] => [
  0.3 + 0.2 * z[0]! + 0.05 * z[0]! * z[0]!,
  -0.1 + 0.25 * z[1]!,
  0.05 + (kind === 'ball' ? 0.03 : 0),
];
const pairs = Array.from({ length: 60 }, (_, i) => pair(i + 1, i % 2 ? 'ball' : 'block'));
const perceived = pairs.map((p) => p.perceived);
const recorded = pairs.map((p) => p.recorded);
/** The goals the simulator's state records (no kinematics needed). */
const stateGoals = (episodes: Episode[]): (GoalLabel | undefined)[] => goalLabels(episodes, 'state', () => []);
const goals = stateGoals(recorded);

test('GoalLocaliser: a goal that is a smooth function of the image positions and the kind is recovered', () => {
  const localiser = GoalLocaliser.fit(perceived, goals, 4);
  const fit = localiser.families.reach!;
  assert.equal(fit.episodes, 60);
  assert.deepEqual(fit.kinds, ['ball', 'block']);
  assert.ok(fit.rmse < 2e-3, `in-sample RMSE ${fit.rmse}`);
  // Worked numbers, a start it never saw: z = (0.5, −0.2, 0, 0), a ball:
  // x = 0.3 + 0.1 + 0.0125 = 0.4125, y = −0.1 − 0.05 = −0.15, z = 0.05 + 0.03 = 0.08.
  const xyz = localiser.estimate([0.5, -0.2, 0, 0], { family: 'reach', object: 'ball' });
  [0.4125, -0.15, 0.08].forEach((v, j) => assert.ok(Math.abs(xyz[j]! - v) < 5e-3, `coordinate ${j}: ${xyz[j]}`));
  // What a checkpoint stores gives the same estimates.
  const restored = GoalLocaliser.fromJSON(JSON.parse(JSON.stringify(localiser.toJSON())));
  assert.deepEqual(restored.estimate([0.5, -0.2, 0, 0], { family: 'reach', object: 'ball' }), xyz);
});

test('GoalLocaliser: episodes without a goal are left out; too few, none, or another family refused', () => {
  const bare = (e: Episode): Episode => ({ ...e, state: new Float32Array(0), stateDim: 0 });
  // Ten of the sixty lose their privileged state: fitted on the other fifty.
  const some = GoalLocaliser.fit(perceived, stateGoals([...recorded.slice(0, 50), ...recorded.slice(50).map(bare)]), 4);
  assert.equal(some.families.reach!.episodes, 50);
  assert.throws(
    () => GoalLocaliser.fit(perceived, stateGoals(recorded.map(bare)), 4),
    /no episode shows where its goal was/,
  );
  // Fewer than two episodes a feature of the cubic fit (21): a plane (7), its error the curvature it misses.
  const few = GoalLocaliser.fit(perceived.slice(0, 30), goals.slice(0, 30), 4).families.reach!;
  assert.equal(few.terms, 'plane');
  assert.ok(few.rmse > 1e-3 && few.rmse < 0.02, `a plane's in-sample RMSE ${few.rmse}`);
  assert.equal(some.families.reach!.terms, 'cubic');
  // Fewer than 14: each kind's mean goal (3 features). Worked numbers: the first 6 episodes' goals.
  const handful = GoalLocaliser.fit(perceived.slice(0, 6), goals.slice(0, 6), 4);
  assert.equal(handful.families.reach!.terms, 'mean');
  const balls = goals.slice(0, 6).filter((_, i) => i % 2 === 1);
  const ballMean = [0, 1, 2].map((j) => balls.reduce((m, g) => m + g!.xyz[j]! / balls.length, 0));
  const estimate = handful.estimate([9, 9, 9, 9], { family: 'reach', object: 'ball' });
  ballMean.forEach((v, j) => assert.ok(Math.abs(estimate[j]! - v) < 2e-3, `coordinate ${j}: ${estimate[j]} vs ${v}`));
  // Fewer than the 3 features and one: refused.
  assert.throws(
    () => GoalLocaliser.fit(perceived.slice(0, 3), goals.slice(0, 3), 4),
    /3 reach episodes with a goal, fewer than the 4 its 2 object kinds' mean goals need/,
  );
  assert.throws(() => GoalLocaliser.fit(perceived, goals.slice(1), 4), /60 perceived episodes but 59 goals/);
  const localiser = GoalLocaliser.fit(perceived, goals, 4);
  assert.throws(
    () => localiser.estimate([0, 0, 0, 0], { family: 'pick', object: 'ball' }),
    /fitted on reach; it has no goal for family 'pick'/,
  );
});
