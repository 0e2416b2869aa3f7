/**
 * `npm run bench:wm`: world-model benchmark at quickstart scale on this machine.
 *  - collects a mixed dataset (expert, noisy experts, random) from the simulator;
 *  - trains the state and the video kind (configs/wm/*.yaml), training samples/s;
 *  - held-out evaluation: H-step error, success AUROC / ECE, variance–error Spearman;
 *  - imagined transitions/s (B rollouts × K members, batched) beside simulator control steps/s;
 *  - peak memory. Writes bench/results/wm.json.
 *   --quick   smaller dataset and fewer epochs (a smoke run)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import * as tf from '@tensorflow/tfjs';
import { selectBackend } from '../src/backend/selectBackend.ts';
import { resolveConfig } from '../src/core/config.ts';
import { loadRobot } from '../src/core/robotDescription.ts';
import type { Episode } from '../src/core/types.ts';
import { SimEnv } from '../src/envs/simEnv.ts';
import { RandomController } from '../src/envs/randomController.ts';
import type { Controller } from '../src/core/controller.ts';
import { runEpisode } from '../src/envs/rollout.ts';
import { ScriptedExpert } from '../sim/experts/scriptedExpert.ts';
import { planEpisodes } from '../src/tasks/episodePlan.ts';
import { BUILT_IN } from '../src/tasks/families.ts';
import { WorldModel } from '../src/worldmodel/worldModel.ts';
import { WORLD_MODEL_KERNELS, worldModelConfigSchema } from '../src/worldmodel/worldModelConfig.ts';
import type { ImaginationPolicy } from '../src/worldmodel/imagine.ts';

const { values } = parseArgs({
  options: { quick: { type: 'boolean' }, out: { type: 'string' }, backend: { type: 'string' } },
});
const quick = values.quick ?? false;
const outFile = values.out ?? 'bench/results/wm.json';
let peakRss = 0;
const sampleMemory = () => (peakRss = Math.max(peakRss, process.memoryUsage().rss));
const memTimer = setInterval(sampleMemory, 200);

const backend = (await selectBackend((values.backend as 'auto') ?? 'auto', { requiredKernels: WORLD_MODEL_KERNELS }))
  .backend;
const robot = loadRobot('vx300');

/** Simulator control steps/s with the scene camera and a random policy (what imagination replaces). */
async function simulatorSpeed(ticks: number): Promise<number> {
  const env = await SimEnv.create({ robot });
  const random = new RandomController(robot.arm.joints.length + 1);
  try {
    let done = 0;
    const t0 = performance.now();
    for (let seed = 0; done < ticks; seed++) {
      const [p] = planEpisodes([{ family: BUILT_IN[seed % 3]! }], 'train', 1, seed);
      let obs = await env.reset(p!);
      random.reset(p!.task, seed);
      for (;;) {
        const r = await env.step(random.act(obs));
        obs = r.observation;
        if (++done >= ticks || r.done) break;
      }
    }
    return ticks / ((performance.now() - t0) / 1000);
  } finally {
    await env.close();
  }
}

async function collect(): Promise<{ episodes: Episode[] }> {
  const env = await SimEnv.create({ robot });
  const controllers: { name: string; c: Controller; n: number }[] = [
    { name: 'expert-0.1', c: await ScriptedExpert.create({ robot, noise: 0.1 }), n: quick ? 6 : 20 },
    { name: 'expert-0.5', c: await ScriptedExpert.create({ robot, noise: 0.5 }), n: quick ? 6 : 20 },
    { name: 'expert-1.0', c: await ScriptedExpert.create({ robot, noise: 1.0 }), n: quick ? 6 : 20 },
    { name: 'random', c: new RandomController(robot.arm.joints.length + 1), n: quick ? 3 : 10 },
  ];
  const episodes: Episode[] = [];
  try {
    for (const [i, { c, n }] of controllers.entries()) {
      const plan = planEpisodes(
        BUILT_IN.map((family) => ({ family })),
        'both',
        n * BUILT_IN.length,
        50_000 + 10_000 * i,
      );
      for (const p of plan) {
        episodes.push(await runEpisode(env, c, { ...p, initialStatus: () => env.status() }));
      }
    }
  } finally {
    for (const { c } of controllers) c.close?.();
    await env.close();
  }
  return { episodes };
}

/** A policy that samples uniform actions in tfjs: the cost of a real policy is measured in bench:policy. */
const randomPolicy: ImaginationPolicy = {
  act: (o) => tf.randomUniform([o.state.shape[0], robot.arm.joints.length + 1], -1, 1, 'float32', o.step),
};

async function benchKind(kind: 'state' | 'video', episodes: Episode[]) {
  const config = resolveConfig(worldModelConfigSchema, {
    files: [`configs/wm/${kind}.yaml`],
    overrides: quick ? { 'train.epochs': '3', 'video.epochs': '2' } : {},
  });
  let trainSamples = 0;
  const { model, report } = await WorldModel.train(episodes, config, {
    onEpoch: (stage, m) => {
      sampleMemory();
      if (stage === 'dynamics') trainSamples += ((m.samplesPerSecond as number) ?? 0) * ((m.seconds as number) ?? 0);
      console.error(`${kind} ${stage} epoch ${(m.epoch as number) + 1}`);
    },
  });
  try {
    const dynamicsSeconds = report.dynamics.history.reduce((a, m) => a + m.seconds, 0);
    const held = episodes.filter((e) => model.meta.validationEpisodeIds.includes(e.id));
    const validation = model.evaluate(held);
    const testSplit = model.evaluate(held.filter((e) => e.task.split === 'test'));
    // Imagination throughput: 64 rollouts × K members, 20 steps, from real start states.
    const starts = model.startsFrom(
      Array.from({ length: 64 }, (_, i) => {
        const e = episodes[i % episodes.length]!;
        const cam = e.cameras.scene!;
        return {
          qpos: e.qpos.slice(0, e.qposDim),
          qvel: e.qvel.slice(0, e.qposDim),
          state: e.state.slice(0, e.stateDim),
          images: {
            scene: { width: cam.width, height: cam.height, data: cam.frames.slice(0, cam.width * cam.height * 3) },
          },
          instruction: e.task.instruction,
        };
      }),
      Array.from({ length: 64 }, (_, i) => episodes[i % episodes.length]!.task.family),
    );
    model.imagine(randomPolicy, starts, 2);
    const H = 20;
    const t0 = performance.now();
    const r = model.imagine(randomPolicy, starts, H);
    const seconds = (performance.now() - t0) / 1000;
    sampleMemory();
    return {
      kind,
      config,
      trainSeconds: report.seconds,
      dynamicsEpochs: report.dynamics.epochs,
      trainingSamplesPerSecond: trainSamples / dynamicsSeconds,
      validation,
      testSplit,
      imagination: {
        rollouts: r.rollouts,
        members: r.members,
        horizon: H,
        memberTransitionsPerSecond: (r.rollouts * r.members * H) / seconds,
        rolloutTransitionsPerSecond: (r.rollouts * H) / seconds,
      },
      numTensorsAfter: tf.memory().numTensors,
    };
  } finally {
    model.dispose();
  }
}

const { episodes } = await collect();
const simStepsPerSecond = await simulatorSpeed(2000);
console.error(
  `collected ${episodes.length} episodes; ` +
    `simulator ${simStepsPerSecond.toFixed(0)} control steps/s with the scene camera`,
);
const kinds = [await benchKind('state', episodes), await benchKind('video', episodes)];
clearInterval(memTimer);
const results = {
  date: new Date().toISOString(),
  machine: { cpu: cpus()[0]?.model, cores: cpus().length, node: process.version },
  backend,
  quick,
  dataset: {
    episodes: episodes.length,
    steps: episodes.reduce((a, e) => a + e.steps, 0),
    successRate: episodes.filter((e) => e.success).length / episodes.length,
  },
  simulatorControlStepsPerSecond: simStepsPerSecond,
  kinds,
  peakRssMiB: peakRss / 2 ** 20,
};
mkdirSync('bench/results', { recursive: true });
writeFileSync(outFile, JSON.stringify(results, null, 2) + '\n');
const f = (x: number, d = 3) => (Number.isFinite(x) ? x.toFixed(d) : 'n/a');
console.log(
  `backend ${backend}; dataset ${results.dataset.episodes} episodes / ${results.dataset.steps} steps; ` +
    `simulator ${f(simStepsPerSecond, 0)} control steps/s (64×64 camera)`,
);
console.log(
  `\n| kind | train s | train samples/s | 1-step joint RMSE | 10-step joint RMSE | 10-step object RMSE | ` +
    `success AUROC (val / test split) | ECE | var–err Spearman | imagined transitions/s (member / rollout) |`,
);
console.log(`|---|---|---|---|---|---|---|---|---|---|`);
for (const k of kinds) {
  console.log(
    `| ${k.kind} | ${f(k.trainSeconds, 0)} | ${f(k.trainingSamplesPerSecond, 0)} ` +
      `| ${f(k.validation.oneStep.jointRmse)} | ${f(k.validation.hStep.jointRmse)} | ` +
      `${f(k.validation.hStep.objectRmse)} | ${f(k.validation.success.auroc)} / ${f(k.testSplit.success.auroc)} ` +
      `| ${f(k.validation.success.ece)} | ${f(k.validation.varianceErrorSpearman)} | ` +
      `${f(k.imagination.memberTransitionsPerSecond, 0)} / ${f(k.imagination.rolloutTransitionsPerSecond, 0)} |`,
  );
}
console.log(`\npeak RSS ${f(results.peakRssMiB, 0)} MiB; written to ${outFile}`);
