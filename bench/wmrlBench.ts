/**
 * The headline benchmark: from the same behaviour-cloned policy and seeds, GRPO on the real
 * environment (`real`) against WMRL and its ablations, as held-out success against the robot
 * time each consumed (every real control step costs 1/controlHz s; evaluation episodes are not
 * charged). Also: the PPI interval against the true success rate, and the small policy after
 * WMRL against a ≥4× larger policy trained by behaviour cloning only.
 *
 *   npm run bench             # full: 5 seeds, every arm, 12 steps (wmrl, shared-wm, anchors-only: 28)
 *                               (the set-up, built once and cached, takes about 3 minutes more)
 *   npm run bench -- --quick  # 1 seed, real (8 steps) vs wmrl (12 steps)
 *                               (about 8 minutes from scratch, 4 with the set-up cached)
 *   npm run bench -- --family pick           # the same on pick (bench/benchFamilies.ts has each set-up)
 *   npm run bench -- --arms real,wmrl,anchors-only --seeds 3   # a subset (written beside, as -arms)
 *   npm run bench -- --seeds 10 --first-seed 20   # seeds 20–29: fresh ones, to judge a change chosen on 0–19
 *   npm run bench -- --arms real,wmrl,imagine-8   # a probe: bench/experiments/imagine-8.yaml (only when named)
 *   npm run bench -- --arms real,wmrl,perfect-wm  # the ceiling arm (only when named)
 *   npm run bench -- --wm-seed 1             # world models trained with seed 1 (default 0), in their own folders,
 *                               the imagining arms' runs too: how much a figure owes to one world model
 *   npm run bench -- --wm-per-seed           # each seed's world models trained with that seed: the spread over
 *                               seeds includes the world model's training (seed 0's are the default ones)
 *   npm run bench -- --family pick --arms real,wmrl,no-debias --out bench/results/wmrl-pick-ablations
 *                               # results written to that path (.json, .svg, .md) instead of the derived one
 *
 * Writes bench/results/wmrl.json, wmrl.svg (success vs robot time), wmrl-ablations.svg (the headline's ablations)
 * and wmrl.md (the README table), and wmrl-charged.svg (each curve starting at the robot time of its world model's
 * own data);
 * --quick writes wmrl-quick.* so it never overwrites the full results; --seeds N (other than the
 * preset's) writes wmrl-Nseeds.* (or wmrl-quick-Nseeds.*), reusing the runs of the seeds already done.
 * Set-up (data, BC policies, world model) is shared by both presets and cached under runs/bench-cache/<setup>.
 */
import { spawn } from 'node:child_process';
import { cpus } from 'node:os';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  type CurvePoint,
  commonTarget,
  mean,
  meanCurve,
  meanCurveTimeToReach,
  sd,
  successAt,
  timeToReach,
  timeToTarget,
} from '../src/eval/learningCurves.ts';
import { readRunLog, runStamp } from '../src/core/runLog.ts';
import { EpisodeStore } from '../src/data/episodeStore.ts';
import { resolveTrainConfig } from '../src/cli/train.ts';
import { changedData, changedKeys, continuesRun, describeChanges } from './staleRuns.ts';
import { describeRunCommits, runCommits } from './runCode.ts';
import { learningCurveSvg } from '../src/eval/learningCurvePlot.ts';
import { describeLead, type PairedLead, pairedLead } from '../src/eval/pairedLead.ts';
import { ratioOfMeansInterval } from '../src/eval/ratioInterval.ts';
import { FAMILIES, collectArgs, isWorldModelData } from './benchFamilies.ts';
import { chargedSaving } from './chargedSaving.ts';
import {
  ALL_ARMS,
  ON_DEMAND_ARMS,
  REAL_ONLY,
  armColour,
  armIsAblation,
  armIsLong,
  armRobotTimeCounted,
  armFlags,
  armLabel,
  armWorldModelData,
  experimentNames,
  worldModelFolder,
} from './wmrlArms.ts';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean' },
    family: { type: 'string' },
    seeds: { type: 'string' },
    'first-seed': { type: 'string' },
    arms: { type: 'string' },
    jobs: { type: 'string' },
    fresh: { type: 'boolean' },
    out: { type: 'string' },
    'wm-seed': { type: 'string' },
    'wm-per-seed': { type: 'boolean' },
  },
});
const quick = values.quick ?? false;
const familyName = values.family ?? 'reach';
const family = FAMILIES[familyName];
if (!family) throw new Error(`--family: '${familyName}' is not one of ${Object.keys(FAMILIES).join(', ')}`);
const tasks = family.tasks;
// A family of a file alone: every wmrl process the benchmark starts reads its file (main.ts passes WMRL_TASKS on).
if (family.taskFiles?.length)
  process.env.WMRL_TASKS = [process.env.WMRL_TASKS, ...family.taskFiles.map((f) => resolve(f))]
    .filter(Boolean)
    .join(delimiter);
// The WMRL arm the headline compares with real-only GRPO (its PPI intervals are checked too): the family's preset.
const headline = 'wmrl';
const preset = quick
  ? { name: 'quick', steps: 8, longSteps: 12, seeds: 1, arms: ['real', 'wmrl'], evalEpisodes: 60 }
  : { name: 'full', steps: 12, longSteps: 28, seeds: 5, arms: ALL_ARMS, evalEpisodes: 60 };
if (values.arms) {
  const chosen = values.arms.split(',');
  const known = [...ALL_ARMS, ...ON_DEMAND_ARMS, ...experimentNames()];
  const unknown = chosen.filter((a) => !known.includes(a));
  if (unknown.length) throw new Error(`--arms: unknown ${unknown.join(', ')} (arms: ${known.join(', ')})`);
  for (const needed of ['real', headline])
    if (!chosen.includes(needed)) throw new Error(`--arms: '${needed}' is needed (the headline compares them)`);
  preset.arms = known.filter((a) => chosen.includes(a));
}
const armSteps = (arm: string) => (armIsLong(arm) ? preset.longSteps : preset.steps);
const seeds = Number(values.seeds ?? preset.seeds);
// Seeds firstSeed … firstSeed + seeds − 1: fresh seeds judge a change chosen by looking at the earlier ones.
const firstSeed = Number(values['first-seed'] ?? 0);
if (!Number.isInteger(firstSeed) || firstSeed < 0)
  throw new Error(`--first-seed: '${values['first-seed']}' is not a whole number ≥ 0`);
// The seed the shared world models are trained with (0: the benchmark's own). Another seed trains other
// world models, in folders of their own, and imagining arms' runs go to folders named after it, so a
// figure can be checked for how much it owes to one world model's training.
const worldModelSeed = Number(values['wm-seed'] ?? 0);
if (!Number.isInteger(worldModelSeed) || worldModelSeed < 0)
  throw new Error(`--wm-seed: '${values['wm-seed']}' is not a whole number ≥ 0`);
// --wm-per-seed: each seed's imagining runs use a world model trained with that seed, so the spread over seeds
// includes the world model's own training (seed 0's is the shared default one, and its runs are reused).
const worldModelPerSeed = values['wm-per-seed'] ?? false;
if (worldModelPerSeed && values['wm-seed'] !== undefined)
  throw new Error('--wm-per-seed trains a world model with each run seed: it takes no --wm-seed');
const worldModelSeedOf = (seed: number): number => (worldModelPerSeed ? seed : worldModelSeed);
const wmSuffixOf = (wmSeed: number): string => (wmSeed === 0 ? '' : `-wmseed${wmSeed}`);
const wmSuffix = worldModelPerSeed ? '-wmperseed' : wmSuffixOf(worldModelSeed);
const jobs = Number(values.jobs ?? Math.max(1, Math.min(2, cpus().length)));
const cache = join('runs', 'bench-cache', family.setup);
// Reach keeps its original run folder, so runs made before families existed are reused.
const runsDir = join('runs', `bench-${preset.name}${familyName === 'reach' ? '' : `-${familyName}`}`);
const bin = join('bin', 'wmrl.js');
const started = performance.now();

function wmrl(args: string[], log?: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let tail = '';
    const keep = (d: Buffer) => {
      tail = (tail + d.toString()).slice(-4000);
      if (log) writeFileSync(log, d, { flag: 'a' });
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`wmrl ${args.join(' ')} failed (${code}):\n${tail}`)),
    );
  });
}

async function step<T>(label: string, done: boolean, run: () => Promise<T>): Promise<void> {
  if (done) {
    console.error(`[cached] ${label}`);
    return;
  }
  const t0 = performance.now();
  console.error(`${label} ...`);
  await run();
  console.error(`${label}: ${((performance.now() - t0) / 1000).toFixed(0)} s`);
}

if (values.fresh) rmSync(cache, { recursive: true, force: true });
mkdirSync(cache, { recursive: true });
const imagines = (arm: string): boolean => !armFlags(arm).includes(REAL_ONLY[1]!);
// The world model's own data each imagining arm learns from, besides the clone's (none for real-only arms).
const worldModelData = new Map(preset.arms.map((arm) => [arm, imagines(arm) ? armWorldModelData(arm) : []] as const));
for (const [arm, folders] of worldModelData) {
  const missing = folders.filter((f) => !(f in family.data) || !isWorldModelData(f));
  if (missing.length)
    throw new Error(`arm '${arm}' learns from ${missing.join(', ')}, which the ${familyName} set-up does not collect`);
}
// The BC start clones the demonstrations; `mixed…` folders (noisy, mostly failing) are world-model data only,
// collected when an arm learns from them.
const bcFolders = Object.keys(family.data).filter((name) => !isWorldModelData(name));
const needed = new Set([...bcFolders, ...[...worldModelData.values()].flat()]);
for (const [name, collections] of Object.entries(family.data)) {
  if (!needed.has(name)) continue;
  const dir = join(cache, name);
  await step(`collect ${name}`, existsSync(join(cache, `${name}.done`)), async () => {
    rmSync(dir, { recursive: true, force: true });
    for (const c of collections) await wmrl(collectArgs(dir, c));
    writeFileSync(join(cache, `${name}.done`), '');
  });
}
const dataArgs = (folders: string[]) => folders.flatMap((f) => ['--data', join(cache, f)]);
// Every arm draws its group starts from the clone's data, whatever its world model reads: arms differ in their
// world model, not in the scenes they train on (older runs drew an arm's starts from all its data).
const startDirs = bcFolders.map((f) => join(cache, f));
const bcData = dataArgs(bcFolders);
const small = join(cache, 'bc-tiny');
const large = join(cache, 'bc-base');
await Promise.all([
  step('behaviour cloning: tiny policy', existsSync(join(small, 'report.json')), () =>
    wmrl(['pretrain', ...bcData, '--out', small, ...family.bc], join(cache, 'bc-tiny.log')),
  ),
  family.largeComparison &&
    step(
      'behaviour cloning: base policy (the larger, BC-only comparison)',
      existsSync(join(large, 'report.json')),
      () =>
        wmrl(
          [
            'pretrain',
            ...bcData,
            '--out',
            large,
            '--config',
            'configs/policy/base.yaml',
            '--bc.epochs=4',
            '--bc.batchSize=64',
          ],
          join(cache, 'bc-base.log'),
        ),
    ),
]);
/** The folder of the world model `arm` imagines with: one per state layout and data, shared by the arms alike. */
const worldModelDir = (arm: string, seed: number): string => {
  const { worldModel } = resolveTrainConfig([...common, ...armFlags(arm)]);
  const folder = worldModelFolder(worldModel, armWorldModelData(arm));
  return join(cache, `${folder}${wmSuffixOf(worldModelSeedOf(seed))}`);
};

interface Arm {
  arm: string;
  seed: number;
  dir: string;
}
const arms: Arm[] = [];
for (let seed = firstSeed; seed < firstSeed + seeds; seed++)
  for (const arm of preset.arms) {
    const name = `${arm}${imagines(arm) ? wmSuffixOf(worldModelSeedOf(seed)) : ''}`;
    arms.push({ arm, seed, dir: join(runsDir, `${name}-seed${seed}`) });
  }
const common = [
  '--policy',
  join(small, 'policy'),
  '--config',
  family.config,
  `--tasks=${tasks}`,
  `--eval.tasks=${tasks}`,
  `--eval.episodes=${preset.evalEpisodes}`,
  ...family.train,
];

// Each world model is trained once, by the first run that needs it, and shared: runs that need it
// wait for that one; real-only runs go ahead in parallel. It is trained with --wm-seed whichever run
// trains it, so a run's figures do not depend on the seeds it was invoked with (seed 0 trained it
// in the default invocation before this was fixed, so the full benchmark's figures stand).
const modelBuilders = new Map<string, Promise<void>>();
async function runQueued(a: Arm): Promise<void> {
  const dir = worldModelDir(a.arm, a.seed);
  if (imagines(a.arm) && !existsSync(join(dir, 'model.json'))) {
    const builder = modelBuilders.get(dir);
    if (!builder) {
      const built = runArm(a);
      modelBuilders.set(dir, built);
      return built;
    }
    await builder;
  }
  return runArm(a);
}
// Runs are cached by folder name: one whose config its arm no longer resolves (a preset or an arm's
// flags changed since) is moved aside, kept but not reused, and runs again.
const stamp = runStamp();
/** Reused runs made before runs recorded their data folders: a change of data would not be seen in them. */
let unrecordedData = 0;
for (const a of arms) {
  const stored = join(a.dir, 'train.config.json');
  if (!existsSync(stored)) continue;
  // A config file that records no config reads as the defaults: any key set since differs.
  const record = JSON.parse(readFileSync(stored, 'utf8')) as {
    config?: Record<string, unknown>;
    data?: string[];
    starts?: string[];
  };
  const changes = changedKeys(record.config ?? {}, resolveTrainConfig(trainArgs(a).slice(1)));
  // A run records the data folders it read and those its group starts came from; older runs recorded the first or
  // neither, and drew their starts from their data (those they record, or, unrecorded, their arm's).
  const dataChange = changedData('data', record.data, runDataDirs(a));
  if (dataChange) changes.push(dataChange);
  const startsChange = changedData('starts', record.starts ?? record.data ?? runDataDirs(a), startDirs);
  if (startsChange) changes.push(startsChange);
  if (changes.length === 0) {
    if (!record.data) unrecordedData++;
    continue;
  }
  if (continuesRun(changes) && existsSync(join(a.dir, 'checkpoint'))) {
    // Its report goes: the run is queued, and runArm resumes it from its checkpoint to the arm's steps.
    rmSync(join(a.dir, 'report.json'), { force: true });
    console.error(`[continued] ${a.arm} seed ${a.seed} (${describeChanges(changes)}): resumed to its arm's steps`);
    continue;
  }
  const aside = `${a.dir}-stale-${stamp}`;
  renameSync(a.dir, aside);
  console.error(`[stale] ${a.arm} seed ${a.seed} (${describeChanges(changes)}): moved to ${aside}; it runs again`);
}
const queue = arms.filter((a) => !existsSync(join(a.dir, 'report.json')));
const runsMade = queue.length;
const runsReused = arms.length - runsMade;
await Promise.all(
  Array.from({ length: jobs }, async () => {
    for (let a = queue.shift(); a; a = queue.shift()) {
      const arm = a;
      await step(`train ${arm.arm} seed ${arm.seed}`, false, () => runQueued(arm));
    }
  }),
);

/**
 * The data folders one arm's run reads: the clone's data and the arm's own world-model data (its world model learns
 * from them all). The run records them; a cached run that read others is stale.
 */
function runDataDirs(a: Arm): string[] {
  return [...bcFolders, ...worldModelData.get(a.arm)!].map((f) => join(cache, f));
}

/** The `wmrl train` arguments of one arm's run (without --resume). */
function trainArgs(a: Arm): string[] {
  // PPI coverage is measured on the WMRL arm only: the checks cost real episodes of compute time.
  const ppi = a.arm === headline ? ['--ppiCheckEpisodes=60'] : [];
  const data = runDataDirs(a).flatMap((d) => ['--data', d]);
  return [
    'train',
    ...common,
    ...data,
    ...startDirs.flatMap((d) => ['--starts', d]),
    '--world-model',
    worldModelDir(a.arm, a.seed),
    '--wm-seed',
    String(worldModelSeedOf(a.seed)),
    `--steps=${armSteps(a.arm)}`,
    ...ppi,
    ...armFlags(a.arm),
    '--seed',
    String(a.seed),
    '--out',
    a.dir,
  ];
}

async function runArm(a: Arm): Promise<void> {
  const resume = existsSync(join(a.dir, 'checkpoint')) ? ['--resume'] : [];
  mkdirSync(a.dir, { recursive: true });
  await wmrl([...trainArgs(a), ...resume], join(a.dir, 'bench.log'));
}

// Results.
interface EvalPoint extends CurvePoint {
  step: number;
}
interface Run {
  arm: string;
  seed: number;
  curve: EvalPoint[];
  computeSeconds: number;
  /** PPI checks: intervals covering the truth, checks made, and the summed interval width. */
  ppiCoverage: { covered: number; checked: number; width: number };
  /**
   * Within-group AUC of the anchors' imagined scores (same noise
   * as executed) against their outcomes, pooled over steps.
   */
  anchorRank: { auc: number | null; pairs: number };
  /** Mean over steps of λ, the weight of an imagined sample against a real one (null: nothing imagined). */
  imaginedWeight: number | null;
}
const runs: Run[] = arms.map((a) => {
  const lines = readRunLog(join(a.dir, 'train.metrics.jsonl')) as Record<string, any>[];
  const curve = lines
    .filter((l) => l.kind === 'eval')
    .map((l) => ({
      step: l.step as number,
      robotSeconds: ((l.trainingRobotSeconds as number | undefined) ?? 0) * armRobotTimeCounted(a.arm),
      success: l.successRate as number,
    }));
  const report = JSON.parse(readFileSync(join(a.dir, 'report.json'), 'utf8')) as { computeSeconds: number };
  // PPI checks: the interval against the truth measured with many real episodes of the same policy.
  const checks = lines.filter((l) => l.kind === 'ppi-check');
  const covered = checks.filter((c) => c.covered).length;
  const checked = checks.length;
  const width = checks.reduce((w, c) => w + (c.upper - c.lower), 0);
  const ranks = lines
    .filter((l) => l.kind === 'step' && l.anchorRank?.auc != null)
    .map((l) => l.anchorRank as { auc: number; pairs: number });
  const pairs = ranks.reduce((n, r) => n + r.pairs, 0);
  const anchorRank = { auc: pairs > 0 ? ranks.reduce((n, r) => n + r.auc * r.pairs, 0) / pairs : null, pairs };
  const lambdas = lines
    .filter((l) => l.kind === 'step' && typeof l.imaginedWeight === 'number')
    .map((l) => l.imaginedWeight as number);
  const imaginedWeight = lambdas.length ? lambdas.reduce((s, v) => s + v, 0) / lambdas.length : null;
  return {
    arm: a.arm,
    seed: a.seed,
    curve,
    computeSeconds: report.computeSeconds,
    ppiCoverage: { covered, checked, width },
    anchorRank,
    imaginedWeight,
  };
});

const byArm = (arm: string) => runs.filter((r) => r.arm === arm);
const final = (r: Run) => r.curve.at(-1)!;
const start = mean(runs.map((r) => r.curve[0]!.success));
const realFinal = mean(byArm('real').map((r) => final(r).success));
// The headline metric, one definition for every arm: robot time to first reach the common target,
// BC start + 80% of real-only GRPO's mean final gain (linear between evaluations), per seed; a seed
// that never reaches it counts at its whole budget.
const realGained = realFinal > start;
const target = commonTarget(start, realFinal);
// Equal robot time: every arm's success where WMRL's budget ends (interpolated between evaluations).
const equalTime = mean(byArm(headline).map((r) => final(r).robotSeconds));
// What each world-model-only folder cost to collect: robot time the headline leaves out, reported beside it.
const folderRobotSeconds = new Map<string, number>();
for (const folder of new Set([...worldModelData.values()].flat())) {
  const store = await EpisodeStore.open(join(cache, folder));
  folderRobotSeconds.set(folder, (await store.summary({ onIssue: () => {} })).robotSeconds);
}
// A world model trained once and reused: its data charged once, spread over the runs of this benchmark that share it.
const sharers = new Map<string, number>();
for (const a of arms) {
  if (!imagines(a.arm)) continue;
  const dir = worldModelDir(a.arm, a.seed);
  sharers.set(dir, (sharers.get(dir) ?? 0) + 1);
}
/** How many runs share `arm`'s world model (its first seed's). */
const sharing = (arm: string): number => sharers.get(worldModelDir(arm, firstSeed)) ?? 1;
/** The robot time of `arm`'s world-model-only data, charged to each of the runs that share the world model. */
const worldModelDataSeconds = (arm: string) =>
  worldModelData.get(arm)!.reduce((s, folder) => s + folderRobotSeconds.get(folder)!, 0) / sharing(arm);
const table = preset.arms.map((arm) => {
  const rs = byArm(arm);
  const finals = rs.map((r) => final(r).success);
  const robot = rs.map((r) => final(r).robotSeconds);
  const toTarget = rs.map((r) => timeToTarget(r.curve, target));
  const reach = rs.map((r) => timeToReach(r.curve, realFinal));
  const atCommon = rs.map((r) => r.curve.find((p) => p.step === preset.steps)?.success ?? Number.NaN);
  const atEqual = rs.map((r) => successAt(r.curve, equalTime));
  const lambdas = rs.map((r) => r.imaginedWeight).filter((v): v is number => v !== null);
  return {
    arm,
    seeds: rs.length,
    steps: armSteps(arm),
    successAtCommonStep: mean(atCommon),
    successAtCommonStepSd: sd(atCommon),
    imaginedWeight: lambdas.length ? mean(lambdas) : null,
    finalSuccess: mean(finals),
    finalSuccessSd: sd(finals),
    gain: mean(finals) - start,
    robotSeconds: mean(robot),
    computeSeconds: mean(rs.map((r) => r.computeSeconds)),
    computeSecondsPerStep: mean(rs.map((r) => r.computeSeconds / armSteps(arm))),
    /** The headline metric per seed (seconds; a seed that never reached the target: its whole budget). */
    robotSecondsToTargetPerSeed: toTarget.map((x) => x.seconds),
    robotSecondsToTarget: mean(toTarget.map((x) => x.seconds)),
    robotSecondsToTargetSd: sd(toTarget.map((x) => x.seconds)),
    reachedTarget: toTarget.filter((x) => x.reached).length,
    /** The target's first crossing by the mean curve over seeds (null: not within the shortest run). */
    robotSecondsToTargetOnMean: meanCurveTimeToReach(
      rs.map((r) => r.curve),
      target,
    ),
    /** Success at WMRL's mean robot budget; null where this arm's runs ended before it. */
    successAtEqualRobotTime: atEqual.every((x) => x !== null) ? mean(atEqual as number[]) : null,
    successAtEqualRobotTimeSd: atEqual.every((x) => x !== null) ? sd(atEqual as number[]) : null,
    robotSecondsToRealFinal: reach.every((x) => x !== null) ? mean(reach as number[]) : null,
    reachedRealFinal: reach.filter((x) => x !== null).length,
    /** Robot time to real-only's final mean success per seed, a seed that never reaches it at its whole budget. */
    robotSecondsToRealFinalPerSeed: rs.map((r) => timeToTarget(r.curve, realFinal).seconds),
    anchorRankAuc: pooledRank(rs),
    /** Robot time of the world-model-only data its world model learned from (a set-up cost the headline leaves out). */
    worldModelDataRobotSeconds: worldModelDataSeconds(arm),
  };
});
/** Which world models the imagining arms used, for the report's first line ('' for the default). */
const worldModelsText = worldModelPerSeed
  ? '; world models trained per seed'
  : worldModelSeed > 0
    ? `; world models of seed ${worldModelSeed}`
    : '';
/** The mean curve's first crossing of the target, as the report prints it. */
const onMeanText = (seconds: number | null): string =>
  seconds === null ? 'never (within its shortest run)' : `${seconds.toFixed(0)} s`;
/** A success ± sd cell; '–' where the arm has no evaluation at that step. */
function atStepCell(value: number, spread: number): string {
  return Number.isNaN(value) ? '–' : `${pct(value)} ± ${pct(spread)}`;
}
/** Pooled within-group AUC of the world model on anchor groups (null where no anchors were scored). */
function pooledRank(rs: Run[]): number | null {
  const pairs = rs.reduce((n, r) => n + r.anchorRank.pairs, 0);
  return pairs > 0 ? rs.reduce((n, r) => n + (r.anchorRank.auc ?? 0) * r.anchorRank.pairs, 0) / pairs : null;
}
const realRow = table.find((t) => t.arm === 'real')!;
const wmrlRow = table.find((t) => t.arm === headline)!;
const anchorsRow = table.find((t) => t.arm === 'anchors-only');
/** How many times less robot time than real-only GRPO an arm needed to the common target (null: not measurable). */
const savingOf = (row: (typeof table)[number] | undefined) =>
  realGained && row && row.robotSecondsToTarget > 0 ? realRow.robotSecondsToTarget / row.robotSecondsToTarget : null;
const saving = savingOf(wmrlRow);
/**
 * The saving with the robot time of the arm's world-model-only data added to every seed's time to the target,
 * and its interval over seeds (null where no saving is measurable).
 */
function chargedSavingOf(row: (typeof table)[number]) {
  if (!realGained || row.robotSecondsToTarget <= 0) return null;
  return chargedSaving(
    realRow.robotSecondsToTargetPerSeed,
    row.robotSecondsToTargetPerSeed,
    row.worldModelDataRobotSeconds,
  );
}
const charged = table.filter((t) => imagines(t.arm)).map((t) => ({ arm: t.arm, ...chargedSavingOf(t) }));
// Charged, the arms whose world model learns from the headline's data all pay the same: the headline stands for
// them, and the arms that learn from other data (or none) are shown beside it.
const dataOf = (arm: string) => worldModelData.get(arm)!.join('+');
const chargedApart = (arm: string) => arm === headline || dataOf(arm) !== dataOf(headline);
const chargedLine = (t: (typeof table)[number]): string => {
  const c = chargedSavingOf(t);
  const data = worldModelData.get(t.arm)!;
  const range = c?.low != null ? ` (${c.low.toFixed(1)}–${c.high!.toFixed(1)}×)` : '';
  const shared = data.length ? `${data.join(', ')}, shared by ${sharing(t.arm)} runs` : 'none';
  return (
    `${t.arm} ${t.robotSecondsToTarget.toFixed(0)} + ${t.worldModelDataRobotSeconds.toFixed(0)} s ` +
    `(${shared})${c ? `, ${c.saving.toFixed(1)}×${range}` : ''}`
  );
};
// The saving's 95% interval over seeds (null with one seed or no saving): is a target ratio within reach of the noise?
const savingInterval =
  saving === null
    ? null
    : ratioOfMeansInterval(realRow.robotSecondsToTargetPerSeed, wmrlRow.robotSecondsToTargetPerSeed);
const intervalText = savingInterval
  ? ` (95% interval over seeds ${savingInterval.low.toFixed(1)}–${savingInterval.high.toFixed(1)}×)`
  : '';
// The headline arm's lead over every other arm at equal robot time, paired by seed, at robot times
// within its budget: where the ratio to one target says little (both arms near it), the lead says how far ahead.
const LEAD_SECONDS = [50, 100, 200];
const curvesOf = (arm: string) => new Map(byArm(arm).map((r) => [r.seed, r.curve]));
const leads: Record<string, PairedLead[]> = Object.fromEntries(
  preset.arms
    .filter((arm) => arm !== headline)
    .map((arm) => [
      arm,
      LEAD_SECONDS.map((s) => pairedLead(curvesOf(headline), curvesOf(arm), s)).filter(
        (l): l is PairedLead => l !== null,
      ),
    ]),
);
const leadLines = Object.entries(leads)
  .filter(([, ls]) => ls.length > 0)
  .map(([arm, ls]) => `- over ${arm}: ${ls.map(describeLead).join(', ')}`);
const smallReport = JSON.parse(readFileSync(join(small, 'report.json'), 'utf8')) as { parameters: number };

/** The larger policy, behaviour cloning only, on the same held-out evaluation episodes (null: not in this family). */
async function largeComparison(): Promise<{ parameters: number; bcHeldOutSuccess: number } | null> {
  if (!family!.largeComparison) return null;
  const report = JSON.parse(readFileSync(join(large, 'report.json'), 'utf8')) as { parameters: number };
  // Same plan and seeds as the trainer's evaluation (one task selector, seed 900000): the same episodes.
  const evalDir = join(cache, `bc-base-eval-${tasks}-${preset.evalEpisodes}`);
  await step(
    'evaluate the base policy (BC only) on held-out instructions',
    existsSync(join(evalDir, 'success.json')),
    () =>
      wmrl([
        'eval',
        '--policy',
        large,
        '--split',
        'test',
        '--task',
        tasks,
        '--episodes',
        String(preset.evalEpisodes),
        '--out',
        evalDir,
        '--json',
      ]),
  );
  const rows = JSON.parse(readFileSync(join(evalDir, 'success.json'), 'utf8')) as {
    split: string;
    family: string;
    successes: number;
    episodes: number;
  }[];
  const test = rows.filter((r) => r.split === 'test' && r.family !== 'all');
  const successes = test.reduce((s, r) => s + r.successes, 0);
  return {
    parameters: report.parameters,
    bcHeldOutSuccess:
      successes /
      Math.max(
        1,
        test.reduce((s, r) => s + r.episodes, 0),
      ),
  };
}
const large_ = await largeComparison();

// Reach writes wmrl.*, another family wmrl-<family>.*; a subset of arms or another seed count than
// the preset's writes beside the preset's results, never over them; --out names the path instead.
const outBase =
  values.out ??
  `bench/results/wmrl${familyName === 'reach' ? '' : `-${familyName}`}${quick ? '-quick' : ''}` +
    `${seeds === preset.seeds ? '' : `-${seeds}seeds`}${firstSeed > 0 ? `-from${firstSeed}` : ''}` +
    `${values.arms ? '-arms' : ''}${wmSuffix}`;
// A replot (every run reused) keeps the date, time and counts of the invocation that made the runs,
// where the results it rewrites have them: its own time says nothing of the runs' cost.
interface Timing {
  date: string;
  wallSeconds: number;
  runsMade: number;
  runsReused: number;
  replotted?: string;
}
const previous: Partial<Timing> | undefined =
  runsMade === 0 && existsSync(`${outBase}.json`) ? JSON.parse(readFileSync(`${outBase}.json`, 'utf8')) : undefined;
const timing: Timing =
  previous?.runsMade && previous.date && previous.wallSeconds !== undefined && previous.runsReused !== undefined
    ? {
        date: previous.date,
        wallSeconds: previous.wallSeconds,
        runsMade: previous.runsMade,
        runsReused: previous.runsReused,
        replotted: new Date().toISOString(),
      }
    : { date: new Date().toISOString(), wallSeconds: (performance.now() - started) / 1000, runsMade, runsReused };
const results = {
  date: timing.date,
  preset: preset.name,
  machine: { cpu: cpus()[0]?.model, cores: cpus().length, node: process.version },
  seeds,
  firstSeed,
  /** The seed the imagining arms' world models were trained with, or 'per seed' (--wm-per-seed). */
  worldModelSeed: worldModelPerSeed ? 'per seed' : worldModelSeed,
  steps: preset.steps,
  bcStartHeldOutSuccess: start,
  table,
  commonTarget: target,
  equalRobotSeconds: equalTime,
  /** The headline arm's paired lead over each other arm at 50, 100 and 200 robot-s (success fractions). */
  pairedLead: leads,
  /** Real-only GRPO's mean robot time to the common target over WMRL's (the headline metric). */
  robotTimeSaving: saving,
  /** Its 95% interval over seeds (log scale, Welch; src/eval/ratioInterval.ts). */
  robotTimeSavingInterval: savingInterval && { low: savingInterval.low, high: savingInterval.high },
  /** Per imagining arm, the saving with its world-model-only data's robot time charged (and its interval). */
  chargedRobotTimeSaving: charged,
  anchorsOnlyRobotTimeSaving: savingOf(anchorsRow),
  family: familyName,
  /** The WMRL arm the headline (robotTimeSaving, equalRobotSeconds) compares with real-only GRPO. */
  headline,
  smallBeatsLarge: large_ && {
    small: { parameters: smallReport.parameters, wmrlHeldOutSuccess: wmrlRow.finalSuccess },
    large: large_,
  },
  runs,
  // The time of the invocation that made the runs (a replot's own says nothing of their cost), and the counts.
  wallSeconds: timing.wallSeconds,
  runsMade: timing.runsMade,
  runsReused: timing.runsReused,
  /** How many of the runs each commit made (a reused run may be older code's). */
  runCommits: runCommits(arms.map((a) => a.dir)),
  runsWithoutDataRecord: unrecordedData,
  ...(timing.replotted ? { replotted: timing.replotted } : {}),
};
mkdirSync(dirname(outBase), { recursive: true });
writeFileSync(`${outBase}.json`, JSON.stringify(results, null, 2) + '\n');
// The method arms in one plot; the headline's ablations, where any ran, in another beside real-only and the
// headline, so that neither picture holds more curves than can be told apart.
const ablations = preset.arms.filter((arm) => armIsAblation(arm) && arm !== headline);
writeFileSync(`${outBase}.svg`, plot(runs, 'method'));
if (ablations.length) writeFileSync(`${outBase}-ablations.svg`, plot(runs, 'ablations'));
else rmSync(`${outBase}-ablations.svg`, { force: true });
// Where an arm's world model learned from data of its own, the same curves with that data's robot time first.
if (charged.length && table.some((t) => t.worldModelDataRobotSeconds > 0))
  writeFileSync(`${outBase}-charged.svg`, plot(runs, 'charged'));
else rmSync(`${outBase}-charged.svg`, { force: true });
const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const atEqualCell = (v: number | null, spread: number | null) => (v === null ? '–' : `${pct(v)} ± ${pct(spread!)}`);
// Without a real-only gain there is no target to reach (a start at or above it reads as 0 s).
const toTargetCell = (t: (typeof table)[number]) =>
  realGained
    ? `${t.robotSecondsToTarget.toFixed(0)} ± ${t.robotSecondsToTargetSd.toFixed(0)} s (${t.reachedTarget}/${t.seeds})`
    : '–';
const secs = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(', ');
const longRun = preset.arms.filter(armIsLong);
const md = [
  `WMRL benchmark (${preset.name}: ${seeds} seed${seeds > 1 ? 's' : ''}` +
    `${firstSeed > 0 ? ` (${firstSeed}–${firstSeed + seeds - 1})` : ''}, ${preset.steps} steps` +
    `${longRun.length ? ` (${longRun.join(', ')}: ${preset.longSteps})` : ''}, ` +
    `held-out success on ${preset.evalEpisodes} evaluation episodes; BC start ${pct(start)}` +
    `${worldModelsText})`,
  '',
  `| arm | steps | held-out success at the end (± sd over seeds) | gain over BC | at step ${preset.steps} | ` +
    `robot time used | robot time to the target ${pct(target)} (± sd; seeds reaching it) | ` +
    `success at ${equalTime.toFixed(0)} robot-s | compute per step | rank AUC on anchors (paired) | mean λ |`,
  '|---|---|---|---|---|---|---|---|---|---|---|',
  ...table.map(
    (t) =>
      `| ${t.arm} | ${t.steps} | ${pct(t.finalSuccess)} ± ${pct(t.finalSuccessSd)} ` +
      `| ${t.gain >= 0 ? '+' : ''}${pct(t.gain)} | ` +
      `${atStepCell(t.successAtCommonStep, t.successAtCommonStepSd)}` +
      ` | ${t.robotSeconds.toFixed(0)} s | ` +
      `${toTargetCell(t)} | ${atEqualCell(t.successAtEqualRobotTime, t.successAtEqualRobotTimeSd)} ` +
      `| ${t.computeSecondsPerStep.toFixed(1)} s | ${t.anchorRankAuc === null ? '–' : t.anchorRankAuc.toFixed(2)} ` +
      `| ${t.imaginedWeight === null ? '–' : t.imaginedWeight.toFixed(2)} |`,
  ),
  '',
  realGained
    ? `Target: BC start ${pct(start)} + 80% of real-only GRPO's mean final gain = ${pct(target)}. Robot time to ` +
      `it per seed (linear between evaluations; a seed that never reaches it counts at its whole budget): ` +
      `real-only ${secs(realRow.robotSecondsToTargetPerSeed)} s; WMRL ${secs(wmrlRow.robotSecondsToTargetPerSeed)} s` +
      `${anchorsRow ? `; anchors-only ${secs(anchorsRow.robotSecondsToTargetPerSeed)} s` : ''}.`
    : `No target: real-only GRPO did not improve held-out success over the BC start ` +
      `(${pct(realFinal)} against ${pct(start)}).`,
  !realGained
    ? 'So no robot-time saving can be measured from this run.'
    : (wmrlRow.reachedTarget < wmrlRow.seeds
        ? `WMRL reached the target in ${wmrlRow.reachedTarget} of ${wmrlRow.seeds} seeds, not every one, so no ` +
          `saving is claimed; counting the seeds that missed at WMRL's whole budget, which flatters it, the ratio ` +
          `would be ${saving!.toFixed(1)}×${intervalText}`
        : `WMRL needed ${saving!.toFixed(1)}× less robot time than real-only GRPO to the target${intervalText} ` +
          `(every seed reached it)`) +
      (anchorsRow
        ? `; GRPO on the environment with WMRL's anchors alone (anchors-only: one real group every step, ` +
          `nothing imagined) ${savingOf(anchorsRow)!.toFixed(1)}× (${anchorsRow.reachedTarget}/${anchorsRow.seeds}): ` +
          `a saving beyond that one is imagination's.`
        : '.'),
  ...(realGained && charged.length
    ? [
        "Charged the robot time of the world model's own data (collected for it alone, charged once and spread over " +
          "the runs that share the world model; the demonstrations every arm's clone learned from are not charged; " +
          `the warm-up and anchors are training robot time already), to the target and real-only's over it: ` +
          table
            .filter((t) => imagines(t.arm) && chargedApart(t.arm))
            .map(chargedLine)
            .join('; ') +
          '.',
      ]
    : []),
  ...(realGained
    ? [
        `To real-only GRPO's final mean success (${pct(realFinal)}; a seed that never reaches it counts at its ` +
          'whole budget): ' +
          table
            .map((t) => {
              const perSeed = t.robotSecondsToRealFinalPerSeed;
              const ratio =
                t.arm === 'real'
                  ? ''
                  : `, ${(mean(realRow.robotSecondsToRealFinalPerSeed) / mean(perSeed)).toFixed(1)}×`;
              return `${t.arm} ${mean(perSeed).toFixed(0)} s (${t.reachedRealFinal}/${t.seeds}${ratio})`;
            })
            .join(', ') +
          '.',
        "On the mean curve over seeds (linear between evaluations; a seed's peak counts by its share, where " +
          'per seed it counts whole): the target first reached at ' +
          table.map((t) => `${t.arm} ${onMeanText(t.robotSecondsToTargetOnMean)}`).join(', ') +
          '.',
      ]
    : []),
  `At equal robot time (${equalTime.toFixed(0)} s, WMRL's budget): ` +
    table
      .filter((t) => [headline, 'real', 'anchors-only'].includes(t.arm) && t.successAtEqualRobotTime !== null)
      .map((t) => `${t.arm} ${pct(t.successAtEqualRobotTime!)} ± ${pct(t.successAtEqualRobotTimeSd!)}`)
      .join(', ') +
    ' (sd over seeds; real-only interpolated between its evaluations).',
  ...(leadLines.length
    ? [
        `${headline}'s lead at equal robot time, per seed against the same seed's run (points, 95% t interval ` +
          'over seeds; real-only interpolated between its evaluations):',
        ...leadLines,
      ]
    : []),
  `Rank AUC on anchors: how often, within one anchor group, the world model's imagined score of a ` +
    `rollout (imagined with the noise it was then executed with) ranked a real success above a real ` +
    `failure (0.5 = no information; GRPO uses only this order). λ: the weight of one imagined policy sample ` +
    `against a real one (the config's imaginedWeight).`,
  `PPI intervals (95%) covered the true success rate ` +
    `in ${runs.reduce((s, r) => s + r.ppiCoverage.covered, 0)} ` +
    `of ${runs.reduce((s, r) => s + r.ppiCoverage.checked, 0)} checks, mean width ${(
      runs.reduce((s, r) => s + r.ppiCoverage.width, 0) /
        Math.max(
          1,
          runs.reduce((s, r) => s + r.ppiCoverage.checked, 0),
        )
    ).toFixed(2)} (${headline} arm; truth: 60 real episodes of the same policy each).`,
  large_
    ? `Small beats large? tiny (${smallReport.parameters.toLocaleString()} parameters) after ` +
      `WMRL: ${pct(wmrlRow.finalSuccess)}; base (${large_.parameters.toLocaleString()} parameters, ` +
      `${(large_.parameters / smallReport.parameters).toFixed(1)}×) after BC only: ${pct(large_.bcHeldOutSuccess)}.`
    : '',
  describeRunCommits(results.runCommits),
  unrecordedData
    ? `${unrecordedData} reused runs predate the record of the data folders a run read: a change of ` +
      'data since they were made would not show in them.'
    : '',
].join('\n');
writeFileSync(`${outBase}.md`, md + '\n');
console.log(md);
console.log(
  `\nwritten: ${outBase}.json, .svg, .md (${((performance.now() - started) / 60000).toFixed(1)} min; ` +
    `${runsMade} runs made, ${runsReused} reused)`,
);

/**
 * Held-out success against robot time: per arm the mean over seeds ± sd, log time, the target marked. `method`:
 * every arm but the headline's ablations; `ablations`: real-only, the headline and its ablations; `charged`: each
 * curve starting at the robot time of its world model's own data (arms learning from the headline's data left out).
 */
function plot(rs: Run[], which: 'method' | 'ablations' | 'charged'): string {
  const charge = which === 'charged';
  const shown = (arm: string) =>
    which === 'charged'
      ? chargedApart(arm)
      : which === 'ablations'
        ? arm === 'real' || arm === headline || ablations.includes(arm)
        : !ablations.includes(arm);
  // Every arm run is drawn: one without a colour of its own (a probe) takes the next unused one of these.
  const spare = ['#e6550d', '#31a354', '#756bb1', '#636363', '#fd8d3c', '#74c476', '#9e9ac8', '#843c39'];
  const drawn = preset.arms.filter((arm) => rs.some((r) => r.arm === arm) && shown(arm));
  const taken = new Set(drawn.map(armColour).filter(Boolean));
  const free = spare.filter((c) => !taken.has(c));
  return learningCurveSvg({
    title:
      `${familyName}: held-out success against robot time (${preset.name === 'quick' ? 'quick, ' : ''}` +
      `${seeds} seed${seeds > 1 ? 's' : ''}${firstSeed > 0 ? `, ${firstSeed}–${firstSeed + seeds - 1}` : ''}` +
      `${charge ? ", the world model's own data charged" : which === 'ablations' ? ', ablations' : ''})`,
    target: realGained ? target : undefined,
    timeLabel: charge ? "robot time: the world model's own data, then training" : undefined,
    arms: drawn.map((arm) => ({
      name: armLabel(arm),
      colour: armColour(arm) ?? free.shift() ?? '#000000',
      points: meanCurve(rs.filter((r) => r.arm === arm).map((r) => r.curve)).map((p) => ({
        ...p,
        robotSeconds: p.robotSeconds + (charge ? worldModelDataSeconds(arm) : 0),
      })),
    })),
  });
}
