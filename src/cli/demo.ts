/**
 * `wmrl demo`: the main job end to end on the embedded default (simulator, no robot, no GPU).
 * Today's pipeline: demonstrations (scripted expert, noisy experts, random) for every task
 * family on both splits → the episode store → an ensemble world model trained and evaluated
 * on held-out episodes. Behaviour cloning and WMRL post-training join here as they land.
 */
import { join } from 'node:path';
import { selectBackend } from '../backend/selectBackend.ts';
import { resolveConfig } from '../core/config.ts';
import { CONFIGS_DIR, loadRobot } from '../core/robotDescription.ts';
import { RunLog, runStamp } from '../core/runLog.ts';
import { EpisodeStore } from '../data/episodeStore.ts';
import { collectEpisodes } from '../data/collectEpisodes.ts';
import { makeController, makeSimEnv } from '../envs/makeEnv.ts';
import { planEpisodes } from '../../sim/episodePlan.ts';
import { TASK_FAMILIES } from '../../sim/taskSuite.ts';
import { WorldModel } from '../worldmodel/worldModel.ts';
import { WORLD_MODEL_KERNELS, worldModelConfigSchema } from '../worldmodel/worldModelConfig.ts';
import { saveWorldModel } from '../worldmodel/worldModelFiles.ts';
import { intFlag, parseFlags } from './args.ts';
import { Progress } from './progress.ts';
import { readEpisodes } from './common.ts';

/** Behaviours that make the demo data: successes and failures, so the world model learns both. */
const BEHAVIOURS = [
  { label: 'expert', policy: 'expert', noise: 0.1, share: 1 },
  { label: 'noisy expert (0.5)', policy: 'expert', noise: 0.5, share: 1 },
  { label: 'noisy expert (1.0)', policy: 'expert', noise: 1.0, share: 1 },
  { label: 'random', policy: 'random', noise: 0, share: 0.5 },
] as const;

export const command = {
  summary: 'run the main job end to end in the simulator (today: demos → world model → held-out evaluation)',
  async run(argv: string[]): Promise<number> {
    const { values } = parseFlags(argv, { out: { type: 'string' }, episodes: { type: 'string' }, seed: { type: 'string' }, help: { type: 'boolean', short: 'h' } });
    if (values.help) {
      console.log('usage: wmrl demo [--out DIR] [--episodes N per behaviour, family and split (default 6)] [--seed S]');
      return 0;
    }
    const perCell = intFlag(values.episodes, 'episodes', 6, 1);
    const seed = intFlag(values.seed, 'seed', 0);
    const out = values.out ?? join('runs', `demo-${runStamp()}`);
    const robot = loadRobot('vx300');
    const wmConfig = resolveConfig(worldModelConfigSchema, { files: [join(CONFIGS_DIR, 'wm', 'state.yaml')], overrides: { seed: String(seed) } });
    const log = new RunLog(out, 'demo', { command: 'demo', robot: robot.name, episodesPerCell: perCell, seed, out, worldModel: wmConfig });
    const started = performance.now();

    console.log('1/3 collecting demonstrations in the simulator');
    const dataDir = join(out, 'episodes');
    const rows = await collectDemos(robot, dataDir, perCell, seed, log);
    console.log(`\n${'behaviour'.padEnd(20)} ${'family'.padEnd(7)} ${'train'.padStart(6)} ${'test'.padStart(6)}`);
    for (const b of BEHAVIOURS) {
      for (const family of TASK_FAMILIES) {
        const cell = (split: string) => {
          const r = rows.find((x) => x.label === b.label && x.family === family && x.split === split)!;
          return `${((100 * r.successes) / r.episodes).toFixed(0)}%`.padStart(6);
        };
        console.log(`${b.label.padEnd(20)} ${family.padEnd(7)} ${cell('train')} ${cell('test')}`);
      }
    }

    console.log('\n2/3 training the ensemble world model (state kind)');
    const backend = (await selectBackend(wmConfig.backend as 'auto', { requiredKernels: WORLD_MODEL_KERNELS })).backend;
    const episodes = await readEpisodes([dataDir]);
    let progress: Progress | undefined;
    const { model, report } = await WorldModel.train(episodes, wmConfig, {
      onStep: (step, steps, epoch) => {
        if (step === 1) progress = new Progress(`world model epoch ${epoch + 1}/${wmConfig.train.epochs}`, steps);
        progress!.update(step);
      },
      onEpoch: (stage, m) => {
        progress?.stop();
        log.log({ stage: `wm-${stage}`, ...m });
      },
    });
    try {
      await saveWorldModel(model, join(out, 'worldmodel'));
      console.log('\n3/3 evaluating the world model on held-out episodes');
      const held = episodes.filter((e) => model.meta.validationEpisodeIds.includes(e.id));
      const evaluation = model.evaluate(held);
      log.log({ stage: 'wm-eval', ...evaluation });
      const f = (x: number, d = 3) => x.toFixed(d);
      console.log(`  ${held.length} held-out episodes, ${evaluation.starts} start states, backend ${backend}, trained in ${report.seconds.toFixed(0)} s`);
      console.log(`  success within ${evaluation.horizon} steps: AUROC ${f(evaluation.success.auroc)}, ECE ${f(evaluation.success.ece)}`);
      console.log(`  ${evaluation.horizon}-step joint error ${f(evaluation.hStep.jointRmse)} rad, target object error ${f(evaluation.hStep.objectRmse * 100, 1)} cm`);
      console.log(`  ensemble variance vs actual error, Spearman ${f(evaluation.varianceErrorSpearman)}`);
    } finally {
      model.dispose();
    }
    console.log(`\ndone in ${((performance.now() - started) / 1000).toFixed(0)} s. Outputs in ${out}: episodes/ (wmrl info), worldmodel/ (wmrl wm eval), demo.config.json, demo.metrics.jsonl`);
    return 0;
  },
};

async function collectDemos(robot: ReturnType<typeof loadRobot>, dataDir: string, perCell: number, seed: number, log: RunLog) {
  const env = await makeSimEnv(robot);
  const store = await EpisodeStore.openForAppend(dataDir, { robot: robot.name });
  const rows: { label: string; family: string; split: string; successes: number; episodes: number }[] = [];
  try {
    for (const [bi, b] of BEHAVIOURS.entries()) {
      const controller = await makeController(b.policy, robot, { noise: b.noise });
      try {
        for (const split of ['train', 'test'] as const) {
          for (const family of TASK_FAMILIES) {
            const n = Math.max(1, Math.round(perCell * b.share));
            const plan = planEpisodes([{ family }], split, n, seed + 100_000 * bi + (split === 'test' ? 50_000 : 0) + 1000 * TASK_FAMILIES.indexOf(family));
            const progress = new Progress(`  ${b.label} ${family} ${split}`, plan.length);
            const r = await collectEpisodes({ env, controller, store, plan, initialStatus: () => env.status(), onEpisode: (_e, i) => progress.update(i + 1) });
            progress.stop();
            rows.push({ label: b.label, family, split, successes: r.successes, episodes: r.episodes });
            log.log({ stage: 'collect', behaviour: b.label, family, split, successes: r.successes, episodes: r.episodes });
          }
        }
      } finally {
        controller.close?.();
      }
    }
  } finally {
    await store.close();
    await env.close();
  }
  return rows;
}
