/** The object localiser: the instructed object's position at each step from the perception, gripper and fingers. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Episode } from '../../src/core/types.ts';
import { type GripperReading, ObjectLocaliser } from '../../src/worldmodel/objectLocaliser.ts';
import { recordedObject, STATE_DIM } from '../../sim/privilegedState.ts';
import { makeTestEpisode } from '../helpers/episodes.ts';

const STEPS = 9;

/**
 * An episode as the localiser sees it: `perceived` holds a 4-number latent a step (image positions),
 * `recorded` the privileged state whose first three numbers are the object. The test's gripper reading
 * is the first three joint positions as xyz and the fourth as the finger. The object is a fixed smooth
 * (quadratic) function of those eight numbers and the object's kind.
 */
function pair(seed: number, kind: string): { perceived: Episode; recorded: Episode } {
  const recorded = makeTestEpisode({ seed, family: 'pick', steps: STEPS, stateDim: STATE_DIM });
  recorded.task = { ...recorded.task, object: kind };
  const latent = new Float32Array((STEPS + 1) * 4);
  for (let t = 0; t <= STEPS; t++) {
    const z = [Math.sin(seed + t), Math.cos(1.7 * seed - t), 0.3 * Math.sin(0.3 * seed * t), 0.1];
    latent.set(z, t * 4);
    const g = gripper(recorded, t);
    recorded.state.fill(0, t * STATE_DIM, (t + 1) * STATE_DIM);
    recorded.state.set(objectOf([...z, ...Array.from(g.xyz), g.finger], kind), t * STATE_DIM);
  }
  return { perceived: { ...recorded, state: latent, stateDim: 4 }, recorded };
}
const gripper = (e: Episode, t: number): GripperReading => ({
  xyz: e.qpos.subarray(t * e.qposDim, t * e.qposDim + 3),
  finger: e.qpos[t * e.qposDim + 3]!,
});
// x from the image; y from the image and the gripper; z rises with the gripper when the finger closes (< 0).
const objectOf = (v: number[], kind: string): number[] => [
  0.3 + 0.2 * v[0]! + 0.05 * v[0]! * v[0]!,
  -0.1 + 0.25 * v[1]! + 0.1 * v[5]!,
  0.02 + (kind === 'ball' ? 0.01 : 0) + 0.1 * v[6]! * v[7]! - 0.02 * v[7]!,
];
const pairs = Array.from({ length: 150 }, (_, i) => pair(i + 1, i % 2 ? 'ball' : 'block'));
const perceived = pairs.map((p) => p.perceived);
const recorded = pairs.map((p) => p.recorded);
/** The localiser fitted on `perceived` against the object `recorded`'s privileged state holds, as training reads it. */
const fitOn = (perceived: Episode[], recorded: Episode[]) =>
  ObjectLocaliser.fit(
    perceived,
    4,
    (i, t) => recordedObject(recorded[i]!.state, recorded[i]!.stateDim, t),
    (i, t) => gripper(recorded[i]!, t),
  );

test('ObjectLocaliser: an object that is a smooth function of image positions, gripper, finger, kind is found', () => {
  const localiser = fitOn(perceived, recorded);
  const fit = localiser.families.pick!;
  assert.equal(fit.episodes, 150);
  assert.equal(fit.frames, 150 * 5, 'every other step of each episode');
  assert.equal(fit.terms, 'cubic');
  assert.deepEqual(fit.kinds, ['ball', 'block']);
  assert.ok(fit.rmse < 1e-3, `in-sample RMSE ${fit.rmse}`);
  // Worked numbers at inputs it never saw: latent (0.5, −0.2, 0, 0.1), gripper (0.1, 0.2, 0.3), finger −0.5, a ball:
  // x = 0.3 + 0.1 + 0.0125 = 0.4125; y = −0.1 − 0.05 + 0.02 = −0.13; z = 0.02 + 0.01 − 0.015 + 0.01 = 0.025.
  const probe = {
    ...perceived[0]!,
    task: { ...perceived[0]!.task, object: 'ball' },
    state: Float32Array.from([0.5, -0.2, 0, 0.1]),
  };
  const xyz = localiser.estimate(probe, 0, { xyz: [0.1, 0.2, 0.3], finger: -0.5 });
  [0.4125, -0.13, 0.025].forEach((v, j) => assert.ok(Math.abs(xyz[j]! - v) < 5e-3, `coordinate ${j}: ${xyz[j]}`));
  // What a checkpoint stores gives the same estimates.
  const restored = ObjectLocaliser.fromJSON(JSON.parse(JSON.stringify(localiser.toJSON())));
  assert.deepEqual(restored.estimate(probe, 0, { xyz: [0.1, 0.2, 0.3], finger: -0.5 }), xyz);
  assert.throws(
    () => localiser.estimate({ ...probe, task: { ...probe.task, family: 'push' } }, 0, gripper(recorded[0]!, 0)),
    /fitted on pick; it has no object for family 'push'/,
  );
});

test('ObjectLocaliser: a few episodes get the plane; episodes without object state are left out; none refused', () => {
  const few = fitOn(perceived.slice(0, 10), recorded.slice(0, 10));
  assert.equal(few.families.pick!.terms, 'plane', '50 frames cannot fit 167 cubic terms');
  const bare = (e: Episode): Episode => ({ ...e, state: new Float32Array(0), stateDim: 0 });
  const partly = [...recorded.slice(0, 140), ...recorded.slice(140).map(bare)];
  const some = fitOn(perceived, partly);
  assert.equal(some.families.pick!.episodes, 140);
  assert.throws(() => fitOn(perceived, recorded.map(bare)), /no episode records where its object was/);
  assert.throws(() => fitOn(perceived.slice(0, 1), recorded.slice(0, 1)), /5 pick frames/);
});
