/**
 * A dataset of the Menagerie-layout mesh arm (test/fixtures/robots/trossen_vx300s) for the
 * viewer tests: two scripted reach episodes, a few seconds on 2 cores.
 */
import { join } from 'node:path';
import { loadRobot, type RobotDescription } from '../../src/core/robotDescription.ts';
import { EpisodeStore } from '../../src/data/episodeStore.ts';
import { runEpisode } from '../../src/envs/rollout.ts';
import { SimEnv } from '../../src/envs/simEnv.ts';
import { planEpisodes } from '../../src/tasks/episodePlan.ts';
import { ScriptedExpert } from '../../sim/experts/scriptedExpert.ts';
import { FIXTURE_ROBOTS } from '../helpers/armFixtures.ts';

export interface MeshDataset {
  dataDir: string;
  robot: RobotDescription;
  episodeIds: string[];
}

export async function makeMeshDataset(dir: string): Promise<MeshDataset> {
  const robot = loadRobot(join(FIXTURE_ROBOTS, 'trossen_vx300s', 'robot.yaml'));
  const dataDir = join(dir, 'mesh-data');
  const env = await SimEnv.create({ robot });
  const expert = await ScriptedExpert.create({ robot });
  const store = await EpisodeStore.create(dataDir, { robot: robot.name });
  const episodeIds: string[] = [];
  try {
    for (const plan of planEpisodes([{ family: 'reach' }], 'train', 2, 31)) {
      const episode = await runEpisode(env, expert, plan);
      await store.append(episode);
      episodeIds.push(episode.id);
    }
  } finally {
    await store.close();
    expert.close();
    await env.close();
  }
  return { dataDir, robot, episodeIds };
}
