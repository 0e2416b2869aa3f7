/**
 * `wmrl demo`: the main job end to end on the embedded default (simulator, no robot, no GPU).
 * Today the pipeline is: expert demonstrations for every task family on both splits → the
 * episode store → a summary against a random policy. Later stages (behaviour cloning, world
 * model, WMRL post-training) join here as they land.
 */
import { join } from 'node:path';
import { loadRobot } from '../core/robotDescription.ts';
import { RunLog, runStamp } from '../core/runLog.ts';
import { EpisodeStore } from '../data/episodeStore.ts';
import { collectEpisodes } from '../data/collectEpisodes.ts';
import { makeController, makeSimEnv } from '../envs/makeEnv.ts';
import { planEpisodes } from '../../sim/episodePlan.ts';
import { TASK_FAMILIES } from '../../sim/taskSuite.ts';
import { intFlag, parseFlags } from './args.ts';
import { Progress } from './progress.ts';

export const command = {
  summary: 'run the main job end to end in the simulator (today: expert demos + dataset summary)',
  async run(argv: string[]): Promise<number> {
    const { values } = parseFlags(argv, { out: { type: 'string' }, episodes: { type: 'string' }, seed: { type: 'string' }, help: { type: 'boolean', short: 'h' } });
    if (values.help) {
      console.log('usage: wmrl demo [--out DIR] [--episodes N per family and split] [--seed S]');
      return 0;
    }
    const perGroup = intFlag(values.episodes, 'episodes', 10, 1);
    const seed = intFlag(values.seed, 'seed', 0);
    const out = values.out ?? join('runs', `demo-${runStamp()}`);
    const robot = loadRobot('vx300');
    const log = new RunLog(out, 'demo', { command: 'demo', robot: robot.name, episodesPerFamilyAndSplit: perGroup, seed, out });
    const env = await makeSimEnv(robot);
    const rows: { policy: string; family: string; split: string; success: number; episodes: number }[] = [];
    try {
      for (const policy of ['expert', 'random'] as const) {
        const controller = await makeController(policy, robot);
        const store = await EpisodeStore.openForAppend(join(out, `${policy}-episodes`), { robot: robot.name });
        try {
          for (const split of ['train', 'test'] as const) {
            for (const family of TASK_FAMILIES) {
              const plan = planEpisodes([{ family }], split, perGroup, seed + (split === 'test' ? 1_000_000 : 0));
              const progress = new Progress(`${policy} ${family} ${split}`, plan.length);
              const r = await collectEpisodes({ env, controller, store, plan, initialStatus: () => env.status(), onEpisode: (_e, i) => progress.update(i + 1) });
              progress.stop();
              rows.push({ policy, family, split, success: r.successes, episodes: r.episodes });
              log.log({ stage: 'collect', policy, family, split, successes: r.successes, episodes: r.episodes });
            }
          }
        } finally {
          await store.close();
          controller.close?.();
        }
      }
    } finally {
      await env.close();
    }
    console.log(`\nsuccess in the simulator (${perGroup} episodes per cell)`);
    console.log(`${'family'.padEnd(8)} ${'split'.padEnd(6)} ${'expert'.padStart(8)} ${'random'.padStart(8)}`);
    for (const split of ['train', 'test']) {
      for (const family of TASK_FAMILIES) {
        const cell = (p: string) => {
          const r = rows.find((x) => x.policy === p && x.family === family && x.split === split)!;
          return `${((100 * r.success) / r.episodes).toFixed(0)}%`.padStart(8);
        };
        console.log(`${family.padEnd(8)} ${split.padEnd(6)} ${cell('expert')} ${cell('random')}`);
      }
    }
    console.log(`\ndatasets: ${join(out, 'expert-episodes')} and ${join(out, 'random-episodes')} (inspect with: wmrl info DIR)`);
    console.log(`config and metrics: ${log.configFile}, ${log.metricsFile}`);
    return 0;
  },
};
