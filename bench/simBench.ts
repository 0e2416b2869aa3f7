/**
 * `npm run bench:sim`: simulator speed with and without the camera, camera frames/s, and
 * scripted-expert success per family and split. Writes bench/results/sim.json.
 *   --episodes N   expert episodes per family and split (default 100)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { loadRobot } from '../src/core/robotDescription.ts';
import { Rng } from '../src/core/rng.ts';
import { SimEnv } from '../src/envs/simEnv.ts';
import { RandomController } from '../src/envs/randomController.ts';
import { runEpisode } from '../src/envs/rollout.ts';
import { ScriptedExpert } from '../sim/experts/scriptedExpert.ts';
import { planEpisodes } from '../src/tasks/episodePlan.ts';
import { BUILT_IN } from '../src/tasks/families.ts';
import { sampleTask } from '../src/tasks/sampleTask.ts';

const { values } = parseArgs({ options: { episodes: { type: 'string' }, out: { type: 'string' } } });
const perCell = Number(values.episodes ?? 100);
const outFile = values.out ?? 'bench/results/sim.json';
const robot = loadRobot('vx300');

async function controlStepsPerSecond(cameras: string[], ticks: number): Promise<number> {
  const env = await SimEnv.create({ robot, cameras });
  const random = new RandomController(robot.arm.joints.length + 1);
  try {
    let done = 0;
    const t0 = performance.now();
    for (let seed = 0; done < ticks; seed++) {
      const task = sampleTask({ family: BUILT_IN[seed % 3]! }, 'train', new Rng(seed));
      let obs = await env.reset({ task, seed });
      random.reset(task, seed);
      for (;;) {
        const r = await env.step(random.act(obs));
        obs = r.observation;
        if (++done >= ticks || r.done) break;
      }
    }
    return (ticks / (performance.now() - t0)) * 1000;
  } finally {
    await env.close();
  }
}

async function framesPerSecond(size: number, frames: number): Promise<number> {
  const sized = { ...robot, cameras: robot.cameras.map((c) => ({ ...c, width: size, height: size })) };
  const env = await SimEnv.create({ robot: sized, cameras: [] });
  try {
    await env.reset({ task: sampleTask({ family: 'reach' }, 'train', new Rng(0)), seed: 0 });
    env.simulator.render('scene');
    const t0 = performance.now();
    for (let i = 0; i < frames; i++) env.simulator.render('scene');
    return (frames / (performance.now() - t0)) * 1000;
  } finally {
    await env.close();
  }
}

async function expertSuccess(noise: number) {
  const env = await SimEnv.create({ robot });
  const expert = await ScriptedExpert.create({ robot, noise });
  const rows = [];
  try {
    for (const family of BUILT_IN) {
      for (const split of ['train', 'test'] as const) {
        const plan = planEpisodes([{ family }], split, perCell, split === 'train' ? 10_000 : 20_000);
        let successes = 0;
        let steps = 0;
        for (const p of plan) {
          const e = await runEpisode(env, expert, p);
          if (e.success) successes++;
          steps += e.steps;
        }
        rows.push({
          family,
          split,
          noise,
          episodes: perCell,
          successRate: successes / perCell,
          meanSteps: steps / perCell,
        });
        console.error(`expert ${family} ${split} noise ${noise}: ${successes}/${perCell}`);
      }
    }
  } finally {
    expert.close();
    await env.close();
  }
  return rows;
}

const results = {
  date: new Date().toISOString(),
  machine: { cpu: cpus()[0]?.model, cores: cpus().length, node: process.version },
  robot: robot.name,
  physicsSubstepsPerTick: 50,
  controlStepsPerSecond: {
    noCamera: await controlStepsPerSecond([], 3000),
    sceneCamera64: await controlStepsPerSecond(['scene'], 3000),
    sceneAndWrist64: await controlStepsPerSecond(['scene', 'wrist'], 2000),
  },
  framesPerSecond: {
    '32x32': await framesPerSecond(32, 3000),
    '64x64': await framesPerSecond(64, 2000),
    '128x128': await framesPerSecond(128, 500),
  },
  expert: [...(await expertSuccess(0)), ...(await expertSuccess(0.2))],
};
mkdirSync('bench/results', { recursive: true });
writeFileSync(outFile, JSON.stringify(results, null, 2) + '\n');
const f = (x: number) => x.toFixed(0);
console.log(`| measure | value |\n|---|---|`);
console.log(`| control steps/s, no camera | ${f(results.controlStepsPerSecond.noCamera)} |`);
console.log(`| control steps/s, scene camera 64×64 | ${f(results.controlStepsPerSecond.sceneCamera64)} |`);
console.log(`| control steps/s, scene + wrist 64×64 | ${f(results.controlStepsPerSecond.sceneAndWrist64)} |`);
for (const [k, v] of Object.entries(results.framesPerSecond)) console.log(`| frames/s ${k} (one core) | ${f(v)} |`);
console.log(`\n| family | split | noise | expert success | mean steps |\n|---|---|---|---|---|`);
for (const r of results.expert)
  console.log(
    `| ${r.family} | ${r.split} | ${r.noise} | ${(100 * r.successRate).toFixed(0)}% ` +
      `(n=${r.episodes}) | ${r.meanSteps.toFixed(1)} |`,
  );
console.log(`\nwritten to ${outFile}`);
