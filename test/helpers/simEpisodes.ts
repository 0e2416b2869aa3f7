/** Real simulator episodes for tests: a mix of expert, noisy-expert and random behaviour. */
import { loadRobot } from '../../src/core/robotDescription.ts';
import type { Episode } from '../../src/core/types.ts';
import { SimEnv } from '../../src/envs/simEnv.ts';
import { RandomController } from '../../src/envs/randomController.ts';
import type { Controller } from '../../src/core/controller.ts';
import { runEpisode } from '../../src/envs/rollout.ts';
import { ScriptedExpert } from '../../sim/experts/scriptedExpert.ts';
import { planEpisodes } from '../../src/tasks/episodePlan.ts';
import type { TaskFamily } from '../../src/tasks/families.ts';
import { parseTaskSelectors } from '../../src/tasks/selectors.ts';

export async function collectMixedEpisodes(options: {
  families: TaskFamily[];
  perKind: number;
  seed: number;
  cameras?: string[];
}): Promise<Episode[]> {
  const robot = loadRobot('vx300');
  const env = await SimEnv.create({ robot, cameras: options.cameras });
  const controllers: Controller[] = [
    await ScriptedExpert.create({ robot, noise: 0.1 }),
    await ScriptedExpert.create({ robot, noise: 0.8 }),
    new RandomController(robot.arm.joints.length + 1),
  ];
  const episodes: Episode[] = [];
  try {
    for (const [c, controller] of controllers.entries()) {
      const plan = planEpisodes(
        options.families.map((family) => ({ family })),
        'train',
        options.perKind,
        options.seed + 1000 * c,
      );
      for (const p of plan)
        episodes.push(await runEpisode(env, controller, { ...p, initialStatus: () => env.status() }));
    }
  } finally {
    for (const c of controllers) c.close?.();
    await env.close();
  }
  return episodes;
}

/** `count` scripted-expert episodes (action noise `noise`) of the train split of `tasks` (a task selector). */
export async function collectExpertEpisodes(
  tasks: string,
  count: number,
  noise: number,
  seed: number,
): Promise<Episode[]> {
  const robot = loadRobot('vx300');
  const env = await SimEnv.create({ robot });
  const expert = await ScriptedExpert.create({ robot, noise });
  try {
    const out: Episode[] = [];
    for (const p of planEpisodes(parseTaskSelectors(tasks), 'train', count, seed))
      out.push(await runEpisode(env, expert, p));
    return out;
  } finally {
    expert.close?.();
    await env.close();
  }
}
