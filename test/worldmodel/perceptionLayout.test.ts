import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { VlaPolicy } from '../../src/policy/vlaPolicy.ts';
import { END_EFFECTOR_DIM, GOAL_DIM, OBJECT_DIM } from '../../src/worldmodel/endEffectorFeatures.ts';
import { perceptionLayout } from '../../src/worldmodel/perceptionWorldModel.ts';
import type { PerceptionLayout, WorldModel } from '../../src/worldmodel/worldModel.ts';

// perceptionLayout reads only these fields: a policy with 12 proprio + 32 latent numbers.
const policy = { meta: { proprioDim: 12 }, latentDim: 32 } as unknown as VlaPolicy;
const model = (state: number, perception?: PerceptionLayout) =>
  ({ meta: { dims: { state }, ...(perception ? { perception } : {}) } }) as unknown as WorldModel;

test('perceptionLayout: the recorded layout is returned and checked against the policy perception width', () => {
  assert.deepEqual(perceptionLayout(model(44 + END_EFFECTOR_DIM, { endEffector: true }), policy), {
    endEffector: true,
  });
  assert.deepEqual(perceptionLayout(model(44, { endEffector: false }), policy), { endEffector: false });
  // Recorded with the end effector but 44 wide: another policy's model, refused.
  assert.throws(
    () => perceptionLayout(model(44, { endEffector: true }), policy),
    /44-dim state is not this policy's perception with the end-effector position \(47\)/,
  );
});

test('perceptionLayout: a checkpoint saved before the layout was recorded is migrated by its width', () => {
  assert.deepEqual(perceptionLayout(model(44), policy), { endEffector: false });
  assert.deepEqual(perceptionLayout(model(47), policy), { endEffector: true });
  assert.throws(
    () => perceptionLayout(model(50), policy),
    /neither this policy's perception \(44\) nor that with the end-effector position \(47\)/,
  );
});

test('perceptionLayout: a layout with a goal is 3 wider still, and checked so', () => {
  const layout = { endEffector: true, goal: 'privileged' as const };
  assert.deepEqual(perceptionLayout(model(44 + END_EFFECTOR_DIM + GOAL_DIM, layout), policy), layout);
  assert.throws(
    () => perceptionLayout(model(44 + END_EFFECTOR_DIM, layout), policy),
    /47-dim state is not this policy's perception with the end-effector position and the privileged goal \(50\)/,
  );
});

test('perceptionLayout: a layout with an object is 4 wider, after any goal, and checked so', () => {
  const layout = { endEffector: true, object: 'privileged' as const };
  assert.deepEqual(perceptionLayout(model(44 + END_EFFECTOR_DIM + OBJECT_DIM, layout), policy), layout);
  const both = { endEffector: true, goal: 'privileged' as const, object: 'privileged' as const };
  assert.deepEqual(perceptionLayout(model(44 + END_EFFECTOR_DIM + GOAL_DIM + OBJECT_DIM, both), policy), both);
  assert.throws(
    () => perceptionLayout(model(44 + END_EFFECTOR_DIM + GOAL_DIM, both), policy),
    /50-dim state is not this policy's perception with the end-effector position and the privileged goal and .* \(54\)/,
  );
});
