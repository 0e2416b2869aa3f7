import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { selectBackend } from '../../src/backend/selectBackend.ts';
import { resolveConfig } from '../../src/core/config.ts';
import type { Episode } from '../../src/core/types.ts';
import { loadRobot } from '../../src/core/robotDescription.ts';
import { SimEnv } from '../../src/envs/simEnv.ts';
import { runEpisode } from '../../src/envs/rollout.ts';
import { ScriptedExpert } from '../../sim/experts/scriptedExpert.ts';
import { planEpisodes } from '../../src/tasks/episodePlan.ts';
import { POLICY_KERNELS, policyConfigSchema } from '../../src/policy/policyConfig.ts';
import { pretrainPolicy } from '../../src/policy/pretrain.ts';
import { loadPolicy, savePolicy } from '../../src/policy/policyFiles.ts';
import { PolicyController } from '../../src/policy/policyController.ts';
import { Tokenizer, UNK } from '../../src/policy/tokenizer.ts';
import type { VlaPolicy } from '../../src/policy/vlaPolicy.ts';

let demos: Episode[];
const dir = mkdtempSync(join(tmpdir(), 'wmrl-policy-'));

before(async () => {
  await selectBackend('wasm', { requiredKernels: POLICY_KERNELS, log: () => {} });
  const robot = loadRobot('vx300');
  const env = await SimEnv.create({ robot });
  const expert = await ScriptedExpert.create({ robot, noise: 0.1 });
  try {
    demos = [];
    for (const p of planEpisodes([{ family: 'reach' }], 'train', 4, 40)) demos.push(await runEpisode(env, expert, p));
  } finally {
    expert.close();
    await env.close();
  }
});
after(() => rmSync(dir, { recursive: true, force: true }));

const config = (overrides: Record<string, string> = {}) =>
  resolveConfig(policyConfigSchema, {
    overrides: {
      features: '32',
      trunk: '[64]',
      'encoder.epochs': '1',
      'encoder.keypoints': '4',
      'bc.validationFraction': '0',
      'bc.shiftAugment': 'false',
      'bc.batchSize': '16',
      ...overrides,
    },
  });

test('tokenizer: words outside the training vocabulary map to <unk>, order is kept', () => {
  const tok = Tokenizer.fromTexts(['pick up the red block'], 6);
  const ids = Array.from(tok.encode('pick the purple block'));
  assert.equal(ids[2], UNK);
  assert.equal(ids[0], tok.vocab.indexOf('pick'));
  assert.deepEqual(ids.slice(4), [0, 0]);
  assert.deepEqual(tok.unknownWords('Pick the PURPLE block, purple!'), ['purple']);
  assert.equal(tok.wordCount('pick up the red block now'), 6);
});

test('behaviour cloning overfits a handful of demos (action error near zero)', async () => {
  const { policy, report } = await pretrainPolicy(
    demos,
    config({ 'bc.epochs': '120', 'bc.patience': '120', 'bc.learningRate': '3e-3', 'bc.batchSize': '8' }),
  );
  try {
    const first = report.bc[0]!;
    const last = report.bc.at(-1)!;
    assert.ok(last.validationMse < 0.02, `action MSE ${first.validationMse} → ${last.validationMse}`);
    assert.ok(last.validationMse < first.validationMse / 5);
    assert.ok(last.trainNll < first.trainNll - 2, `NLL ${first.trainNll} → ${last.trainNll}`);
    // Reach-only demos never name purple, reach's held-out colour: the report says so.
    assert.deepEqual(report.missingColours, [{ family: 'reach', color: 'purple' }]);
    // Simulator demos carry privileged state, so the auxiliary localisation error is reported (and learned).
    assert.ok(
      last.validationAuxRmseCm < first.validationAuxRmseCm,
      `aux RMSE ${first.validationAuxRmseCm} → ${last.validationAuxRmseCm} cm`,
    );
  } finally {
    policy.dispose();
  }
});

test('save → load gives identical actions; disposing frees every tensor', async () => {
  const baseline = tf.memory().numTensors;
  const { policy } = await pretrainPolicy(demos, config({ 'bc.epochs': '2' }));
  let loaded: VlaPolicy | undefined;
  try {
    assert.ok(policy.parameterCount > 1000);
    await savePolicy(policy, join(dir, 'p'));
    loaded = await loadPolicy(join(dir, 'p'));
    const robot = loadRobot('vx300');
    const env = await SimEnv.create({ robot });
    try {
      const [p] = planEpisodes([{ family: 'reach' }], 'test', 1, 5);
      const obs = await env.reset(p!);
      for (const deterministic of [true, false]) {
        const a = new PolicyController(policy, { deterministic });
        const b = new PolicyController(loaded, { deterministic });
        a.reset(p!.task, 3);
        b.reset(p!.task, 3);
        assert.deepEqual(b.act(obs), a.act(obs));
      }
    } finally {
      await env.close();
    }
  } finally {
    policy.dispose();
    loaded?.dispose();
  }
  assert.ok(tf.memory().numTensors <= baseline + 1, `tensors left: ${tf.memory().numTensors - baseline}`);
});

test('word dropout trains the <unk> embedding, which cloning alone never touches', async () => {
  // Every training word is in the vocabulary, so without dropout <unk> gets no gradient and Adam leaves its row as
  // initialised (the same seed initialises both policies alike).
  const unkRow = async (overrides: Record<string, string>) => {
    const { policy } = await pretrainPolicy(demos, config({ 'bc.epochs': '1', ...overrides }));
    try {
      return Array.from(tf.tidy(() => policy.language.embedding.slice([UNK, 0], [1, -1]).dataSync()));
    } finally {
      policy.dispose();
    }
  };
  const initial = await unkRow({ 'bc.learningRate': '1e-12' });
  assert.deepEqual(await unkRow({ 'bc.wordDropout': '0' }), initial);
  const dropped = await unkRow({ 'bc.wordDropout': '0.5' });
  assert.ok(
    dropped.some((v, i) => Math.abs(v - initial[i]!) > 1e-4),
    'with dropout the <unk> row moves',
  );
});

test('demonstrations: only train-split expert episodes with little noise are cloned', async () => {
  const noisy = demos.map((e) => ({ ...e, policy: 'expert:noise=0.8' }));
  const held = demos.map((e) => ({ ...e, task: { ...e.task, split: 'test' as const } }));
  await assert.rejects(pretrainPolicy([...noisy, ...held], config()), /only 0 usable demonstrations/);
});

test(
  'action chunks: the head predicts several ticks; ' + 'the controller executes them in order, then observes again',
  async () => {
    const { policy } = await pretrainPolicy(demos, config({ actionChunk: '3', 'bc.epochs': '2' }));
    try {
      assert.equal(policy.outputDim, 3 * policy.actionDim);
      const robot = loadRobot('vx300');
      const env = await SimEnv.create({ robot });
      try {
        const [p] = planEpisodes([{ family: 'reach' }], 'train', 1, 9);
        const obs = await env.reset(p!);
        const controller = new PolicyController(policy, { deterministic: true });
        controller.reset(p!.task, 1);
        const { observationInput, disposeInput } = await import('../../src/policy/policyInputs.ts');
        const input = observationInput(policy.tokenizer, 'scene', policy.config.encoder.imageSize, [obs]);
        const whole = tf.tidy(() => policy.act(input, { deterministic: true }).action.dataSync());
        disposeInput(input);
        const A = policy.actionDim;
        for (let c = 0; c < 3; c++)
          assert.deepEqual(
            Array.from(controller.act(obs)),
            Array.from(whole.subarray(c * A, (c + 1) * A)),
            `tick ${c} of the chunk`,
          );
        // The fourth tick is a fresh prediction (of the same observation here: the chunk's first action again).
        assert.deepEqual(Array.from(controller.act(obs)), Array.from(whole.subarray(0, A)));
        // Running an episode with it works end to end.
        const e = await runEpisode(env, new PolicyController(policy, { deterministic: true }), p!);
        assert.equal(e.actionDim, A);
      } finally {
        await env.close();
      }
    } finally {
      policy.dispose();
    }
  },
);

test('shift augmentation shifts the image targets with the frame', async () => {
  const { buildBcSamples } = await import('../../src/policy/bcDataset.ts');
  const e = demos[0]!;
  const tok = Tokenizer.fromTexts([e.task.instruction], 8);
  const plain = buildBcSamples(tok, [e], { camera: 'scene', imageSize: 32, shiftAugment: false });
  const shifted = buildBcSamples(tok, [e], { camera: 'scene', imageSize: 32, shiftAugment: true });
  assert.equal(shifted.count, 5 * plain.count);
  // Copy 1 is the frame moved one pixel right: the target's x moves by 2/32, its y stays.
  const T = plain.count;
  assert.ok(Math.abs(shifted.imageTargets![4 * T]! - plain.imageTargets![0]! - 2 / 32) < 1e-6);
  assert.ok(Math.abs(shifted.imageTargets![4 * T + 1]! - plain.imageTargets![1]!) < 1e-6);
  // And the pixels moved: column 1 of the shifted frame is column 0 of the original.
  const S = 32;
  assert.equal(shifted.frames[T * S * S * 3 + 3], plain.frames[0]);
});
