/**
 * `npm run bench:scheduler`: the calibration scheduler on three simulated robots paced in real
 * time (PacedEnv, speed 1), a fixed budget of anchor episodes (all task families, scripted expert), each robot
 * with an operator reset time between episodes. Reports robot utilisation, anchor episodes per
 * robot-hour and queueing delay; writes bench/results/scheduler.json.
 *   --episodes N       the budget (default 30)
 *   --robots N         robots in the pool (default 3)
 *   --reset-seconds S  operator reset time between episodes (default 0.5)
 *   --out FILE
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadRobot } from '../src/core/robotDescription.ts';
import { makeSimEnv } from '../src/envs/makeEnv.ts';
import { runEpisode } from '../src/envs/rollout.ts';
import { CalibrationScheduler } from '../src/scheduler/calibrationScheduler.ts';
import { requestId, type EpisodeRequest } from '../src/scheduler/episodeRequest.ts';
import { PacedEnv } from '../src/scheduler/pacedEnv.ts';
import { robotConfigSchema } from '../src/scheduler/robotConfig.ts';
import { RobotPool } from '../src/scheduler/robotPool.ts';
import { SqliteQueue } from '../src/scheduler/sqliteQueue.ts';
import { ScriptedExpert } from '../sim/experts/scriptedExpert.ts';
import { planEpisodes } from '../src/tasks/episodePlan.ts';
import { familyDef } from '../src/tasks/families.ts';
import { parseTaskSelectors } from '../src/tasks/selectors.ts';

const { values } = parseArgs({
  options: {
    episodes: { type: 'string' },
    robots: { type: 'string' },
    'reset-seconds': { type: 'string' },
    out: { type: 'string' },
  },
});
const budget = Number(values.episodes ?? 30);
const robotCount = Number(values.robots ?? 3);
const resetSeconds = Number(values['reset-seconds'] ?? 0.5);
const outFile = values.out ?? 'bench/results/scheduler.json';
const arm = loadRobot('vx300');
const dir = mkdtempSync(join(tmpdir(), 'wmrl-schedbench-'));

const queue = SqliteQueue.open(join(dir, 'schedule.db'));
const pool = new RobotPool(
  Array.from({ length: robotCount }, (_, i) => ({
    config: robotConfigSchema.parse({ name: `sim${i + 1}`, kind: 'sim', speed: 1, resetSeconds }),
    open: async () => new PacedEnv(await makeSimEnv(arm, { imageSize: 32 }), { speed: 1 }),
  })),
);
const expert = await ScriptedExpert.create({ robot: arm });
const scheduler = new CalibrationScheduler({
  queue,
  pool,
  storeDir: join(dir, 'anchors'),
  robot: arm.name,
  runEpisode: (env, r) => runEpisode(env, expert, { task: r.task, seed: r.seed }),
  budget: { episodesPerStep: budget },
  pollMs: 50,
});
const requests: EpisodeRequest[] = planEpisodes(parseTaskSelectors('all'), 'train', budget, 5000).map((p, i) => ({
  id: requestId('bench', 1, i, 0),
  run: 'bench',
  step: 1,
  group: i,
  rollout: 0,
  task: p.task,
  seed: p.seed,
  noiseSeed: i,
  maxRobotSeconds: familyDef(p.task.family).seconds,
}));

// Open every robot's env first: connecting is set-up, not schedule time.
for (const s of pool.slots) await s.env();
const load = loadavg()[0]!;
const t0 = Date.now();
const result = await scheduler.request(requests);
const t1 = Date.now();
const summary = await queue.summary();
await pool.close();
await queue.close();
rmSync(dir, { recursive: true, force: true });
if (result.episodes.size !== budget) throw new Error(`only ${result.episodes.size} of ${budget} episodes ran`);

const makespanS = (t1 - t0) / 1000;
const perRobot = pool.slots.map((s) => {
  const u = summary.robots[s.name]!;
  // The robot's span: from the start of the schedule to the end
  // of its last episode (after that no work was left for it).
  const spanS = ((u.lastEnd ?? t1) - t0) / 1000;
  const resetS = Math.max(0, u.episodes - 1) * resetSeconds;
  return {
    robot: s.name,
    episodes: u.episodes,
    robotSeconds: +u.robotSeconds.toFixed(2),
    busySeconds: +(s.busyMs / 1000).toFixed(2),
    utilisation: +(s.busyMs / 1000 / makespanS).toFixed(3),
    utilisationWhileWorkRemained: +((s.busyMs / 1000 + resetS) / spanS).toFixed(3),
  };
});
const busy = perRobot.reduce((a, r) => a + r.busySeconds, 0);
const resets = perRobot.reduce((a, r) => a + Math.max(0, r.episodes - 1) * resetSeconds, 0);
const report = {
  date: new Date().toISOString(),
  machine: { cpus: cpus().length, model: cpus()[0]?.model ?? 'unknown', loadAverage1mAtStart: +load.toFixed(2) },
  setup: {
    robots: robotCount,
    budgetEpisodes: budget,
    task: 'all families (reach, push, pick; scripted expert)',
    pacing: 'real time (PacedEnv speed 1, 10 Hz control)',
    resetSeconds,
    store: 'SQLite (better-sqlite3, WAL, synchronous=FULL)',
  },
  makespanSeconds: +makespanS.toFixed(2),
  // Wall time robots spent running episodes over the wall time of the schedule.
  utilisation: +(busy / (robotCount * makespanS)).toFixed(3),
  // The same, with the operator's reset time (which no scheduler can avoid) counted as working time.
  utilisationIncludingResets: +((busy + resets) / (robotCount * makespanS)).toFixed(3),
  // Per robot, episode + reset time over its span until its last episode
  // ended (the end-of-queue tail, when no work is left, excluded).
  utilisationWhileWorkRemained: +(
    perRobot.reduce((a, r) => a + r.utilisationWhileWorkRemained, 0) / robotCount
  ).toFixed(3),
  anchorEpisodesPerRobotHour: +(budget / ((robotCount * makespanS) / 3600)).toFixed(1),
  robotSecondsPerEpisode: +(summary.total.robotSeconds / budget).toFixed(2),
  queueingDelaySeconds: {
    mean: +((summary.meanQueueDelayMs ?? 0) / 1000).toFixed(2),
    note: 'enqueue → start; all requests of the step are enqueued at once, so this is mostly the backlog',
  },
  perRobot,
};
mkdirSync(dirname(outFile), { recursive: true });
writeFileSync(outFile, JSON.stringify(report, null, 2) + '\n');
console.log(JSON.stringify(report, null, 2));
