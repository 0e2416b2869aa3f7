/**
 * A schedule run for the crash test, as its own process: three steps of anchor requests over
 * three fake robots, into <dir>/schedule.db and <dir>/anchors. The parent SIGKILLs it at random
 * points and starts it again; every run continues what the killed ones left. It prints `ready`,
 * then `episode` each time a robot finishes one.
 */
import { join } from 'node:path';
import { CalibrationScheduler } from '../../src/scheduler/calibrationScheduler.ts';
import { robotConfigSchema } from '../../src/scheduler/robotConfig.ts';
import { RobotPool } from '../../src/scheduler/robotPool.ts';
import { SqliteQueue } from '../../src/scheduler/sqliteQueue.ts';
import { FakeEnv, runFakeEpisode } from './fakeRobot.ts';
import { makeRequests } from './requests.ts';

export const CRASH_STEPS = 6;
export const CRASH_GROUPS = 5;
export const CRASH_ROLLOUTS = 4;

async function main(dir: string): Promise<void> {
  const queue = SqliteQueue.open(join(dir, 'schedule.db'));
  const pool = new RobotPool(
    ['r1', 'r2', 'r3'].map((name) => ({
      config: robotConfigSchema.parse({ name, kind: 'sim' }),
      open: async () => new FakeEnv({ steps: 5, stepMs: 5 }),
    })),
  );
  const scheduler = new CalibrationScheduler({
    queue,
    pool,
    storeDir: join(dir, 'anchors'),
    robot: 'test-arm',
    // Each finished episode is announced, so the parent can kill at a chosen point of the schedule
    // (after it, its storing and charging are still to come) whatever the machine's speed.
    runEpisode: async (env, request) => {
      const episode = await runFakeEpisode(env, request);
      process.stdout.write('episode\n');
      return episode;
    },
    pollMs: 5,
  });
  process.stdout.write('ready\n');
  try {
    for (let step = 1; step <= CRASH_STEPS; step++) {
      const r = await scheduler.request(makeRequests('crash', step, CRASH_GROUPS, CRASH_ROLLOUTS));
      if (r.episodes.size !== CRASH_GROUPS * CRASH_ROLLOUTS)
        throw new Error(`step ${step}: ${r.episodes.size} episodes`);
    }
  } finally {
    await pool.close();
    await queue.close();
  }
  process.stdout.write('done\n');
}

if (process.argv[1] === import.meta.filename) await main(process.argv[2]!);
