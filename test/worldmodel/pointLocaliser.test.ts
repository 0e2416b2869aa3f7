/** The point localiser: a point of the task from the policy's perception of an episode's first frame. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Episode } from '../../src/core/types.ts';
import { type PointLabel, PointLocaliser } from '../../src/worldmodel/pointLocaliser.ts';
import { makeTestEpisode } from '../helpers/episodes.ts';

/**
 * An episode as the localiser sees it: a 4-number latent a step (the grounding heads' image positions), and its
 * point, a fixed non-linear function of the latent and the object's kind, as a camera's is.
 */
function perceivedEpisode(seed: number, kind: string): { perceived: Episode; point: PointLabel } {
  const e = makeTestEpisode({ seed, family: 'reach', steps: 1, stateDim: 4 });
  const z = [Math.sin(seed), Math.cos(1.7 * seed), 0.3 * Math.sin(0.3 * seed), 0.1];
  return {
    perceived: { ...e, task: { ...e.task, object: kind }, state: Float32Array.from([...z, ...z]) },
    point: pointOf(z, kind),
  };
}
const pointOf = (z: number[], kind: string): PointLabel => [
  0.3 + 0.2 * z[0]! + 0.05 * z[0]! * z[0]!,
  -0.1 + 0.25 * z[1]!,
  0.05 + (kind === 'ball' ? 0.03 : 0),
];
const made = Array.from({ length: 60 }, (_, i) => perceivedEpisode(i + 1, i % 2 ? 'ball' : 'block'));
const perceived = made.map((p) => p.perceived);
const points = made.map((p) => p.point);

test('PointLocaliser: a point that is a smooth function of the image positions and the kind is recovered', () => {
  const localiser = PointLocaliser.fit(perceived, points, 4);
  const fit = localiser.families.reach!;
  assert.equal(fit.episodes, 60);
  assert.deepEqual(fit.kinds, ['ball', 'block']);
  assert.ok(fit.rmse < 2e-3, `in-sample RMSE ${fit.rmse}`);
  // Worked numbers, a start it never saw: z = (0.5, −0.2, 0, 0), a ball:
  // x = 0.3 + 0.1 + 0.0125 = 0.4125, y = −0.1 − 0.05 = −0.15, z = 0.05 + 0.03 = 0.08.
  const xyz = localiser.estimate([0.5, -0.2, 0, 0], { family: 'reach', object: 'ball' });
  [0.4125, -0.15, 0.08].forEach((v, j) => assert.ok(Math.abs(xyz[j]! - v) < 5e-3, `coordinate ${j}: ${xyz[j]}`));
  // What a checkpoint stores gives the same estimates.
  const restored = PointLocaliser.fromJSON(JSON.parse(JSON.stringify(localiser.toJSON())));
  assert.deepEqual(restored.estimate([0.5, -0.2, 0, 0], { family: 'reach', object: 'ball' }), xyz);
});

test('PointLocaliser: episodes without a point are left out; too few, none, or another family refused', () => {
  // Ten of the sixty have no point: fitted on the other fifty.
  const some = PointLocaliser.fit(perceived, [...points.slice(0, 50), ...points.slice(50).map(() => undefined)], 4);
  assert.equal(some.families.reach!.episodes, 50);
  assert.throws(
    () =>
      PointLocaliser.fit(
        perceived,
        points.map(() => undefined),
        4,
        'end keyframe',
      ),
    /end keyframe localiser: no episode shows where its end keyframe was/,
  );
  // Fewer than two episodes a feature of the cubic fit (21): a plane (7), its error the curvature it misses.
  const few = PointLocaliser.fit(perceived.slice(0, 30), points.slice(0, 30), 4).families.reach!;
  assert.equal(few.terms, 'plane');
  assert.ok(few.rmse > 1e-3 && few.rmse < 0.02, `a plane's in-sample RMSE ${few.rmse}`);
  assert.equal(some.families.reach!.terms, 'cubic');
  // Fewer than 14: each kind's mean point (3 features). Worked numbers: the first 6 episodes' points.
  const handful = PointLocaliser.fit(perceived.slice(0, 6), points.slice(0, 6), 4);
  assert.equal(handful.families.reach!.terms, 'mean');
  const balls = points.slice(0, 6).filter((_, i) => i % 2 === 1);
  const ballMean = [0, 1, 2].map((j) => balls.reduce((m, g) => m + g![j]! / balls.length, 0));
  const estimate = handful.estimate([9, 9, 9, 9], { family: 'reach', object: 'ball' });
  ballMean.forEach((v, j) => assert.ok(Math.abs(estimate[j]! - v) < 2e-3, `coordinate ${j}: ${estimate[j]} vs ${v}`));
  // Fewer than the 3 features and one: refused.
  assert.throws(
    () => PointLocaliser.fit(perceived.slice(0, 3), points.slice(0, 3), 4),
    /3 reach episodes with a point, fewer than the 4 its 2 object kinds' mean points need/,
  );
  assert.throws(() => PointLocaliser.fit(perceived, points.slice(1), 4), /60 perceived episodes but 59 points/);
  const localiser = PointLocaliser.fit(perceived, points, 4);
  assert.throws(
    () => localiser.estimate([0, 0, 0, 0], { family: 'pick', object: 'ball' }),
    /fitted on reach; it has no point for family 'pick'/,
  );
});
