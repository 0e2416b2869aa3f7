import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { VlaPolicy } from '../../src/policy/vlaPolicy.ts';
import { END_EFFECTOR_DIM } from '../../src/worldmodel/endEffectorFeatures.ts';
import { KEYFRAME_DIM } from '../../src/worldmodel/keyframes.ts';
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

test('perceptionLayout: a layout with keyframes is KEYFRAME_DIM wider, and checked so', () => {
  const layout = { endEffector: true, keyframes: { latentDim: 32, events: {} } };
  assert.deepEqual(perceptionLayout(model(44 + END_EFFECTOR_DIM + KEYFRAME_DIM, layout), policy), layout);
  assert.throws(
    () => perceptionLayout(model(44 + END_EFFECTOR_DIM, layout), policy),
    /47-dim state is not this policy's perception with the end-effector position and the keyframes \(59\)/,
  );
});

test('perceptionLayout: a model holding a goal or an object (since removed) is refused with what to do', () => {
  for (const removed of ['goal', 'object'])
    assert.throws(
      () => perceptionLayout(model(50, { endEffector: true, [removed]: 'localised' }), policy),
      new RegExp(`worldModel\\.${removed}=localised, which this version no longer reads .*train a new world model`),
    );
});
