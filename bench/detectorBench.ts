/**
 * WMRL with anchor outcomes from the learned success detector against the same runs with the
 * simulator's true outcomes: same BC start, world model, config and seeds (the WMRL arm of
 * bench/wmrlBench.ts at --quick's 12 steps). The detector arm hides the privileged outcome: the
 * trainer sees only the detector's (bias-corrected) decisions, and a simulated operator answers
 * the spot checks (10% of anchor episodes) with the simulator's outcome. Reports held-out success
 * and each arm's gain over the BC start, the share of the true-outcome gain the detector arm
 * keeps, and the detector's agreement with the truth on the run's own anchors (anchors-env/).
 *
 *   npm run bench:detector -- [--cache DIR] [--detector DIR] [--seeds 5] [--steps 12] [--jobs 2]
 *
 * Needs the benchmark's set-up (npm run bench builds it in runs/bench-cache/reach-v2) and a
 * detector (wmrl success train --task reach …, docs/success.md). Writes bench/results/detector.{json,md}.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { readRunLog } from '../src/core/runLog.ts';
import { EpisodeStore } from '../src/data/episodeStore.ts';
import { mean, sd } from '../src/eval/learningCurves.ts';
import { auroc } from '../src/success/detectorMetrics.ts';

const { values } = parseArgs({
  options: {
    cache: { type: 'string' },
    detector: { type: 'string' },
    seeds: { type: 'string' },
    steps: { type: 'string' },
    jobs: { type: 'string' },
    'eval-episodes': { type: 'string' },
  },
});
const cache = values.cache ?? join('runs', 'bench-cache', 'reach-v2');
const detector = values.detector ?? join('runs', 'detector-reach');
const seeds = Number(values.seeds ?? 5);
const steps = Number(values.steps ?? 12);
const jobs = Number(values.jobs ?? 2);
const evalEpisodes = Number(values['eval-episodes'] ?? 60);
for (const need of [join(cache, 'bc-tiny', 'policy'), join(cache, 'worldmodel', 'model.json')])
  if (!existsSync(need)) throw new Error(`${need} is missing: build the benchmark's set-up with npm run bench first`);
if (!existsSync(join(detector, 'detector', 'model.json')))
  throw new Error(`${detector} holds no detector: train one with wmrl success train --task reach --out ${detector} …`);
const runsDir = join('runs', 'bench-detector');
const ARMS = ['true', 'detector'] as const;
type Arm = (typeof ARMS)[number];

function wmrl(args: string[], log: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join('bin', 'wmrl.js'), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let tail = '';
    const keep = (d: Buffer) => {
      tail = (tail + d.toString()).slice(-4000);
      writeFileSync(log, d, { flag: 'a' });
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`wmrl ${args.join(' ')} failed (${code}):\n${tail}`)),
    );
  });
}

const common = [
  '--policy',
  join(cache, 'bc-tiny', 'policy'),
  '--data',
  join(cache, 'demos'),
  '--data',
  join(cache, 'mixed'),
  '--config',
  'configs/train/quickstart.yaml',
  '--tasks=reach',
  '--eval.tasks=reach',
  `--eval.episodes=${evalEpisodes}`,
  '--world-model',
  join(cache, 'worldmodel'),
  `--steps=${steps}`,
];
const armFlags: Record<Arm, string[]> = {
  true: [],
  detector: ['--outcome', 'detector', '--detector', detector, '--outcome.spotChecks=0.1'],
};
const dirOf = (arm: Arm, seed: number) => join(runsDir, `${arm}-seed${seed}`);
const queue = ARMS.flatMap((arm) => Array.from({ length: seeds }, (_, seed) => ({ arm, seed }))).filter(
  (r) => !existsSync(join(dirOf(r.arm, r.seed), 'report.json')),
);
await Promise.all(
  Array.from({ length: jobs }, async () => {
    for (let r = queue.shift(); r; r = queue.shift()) {
      const dir = dirOf(r.arm, r.seed);
      mkdirSync(dir, { recursive: true });
      const resume = existsSync(join(dir, 'checkpoint')) ? ['--resume'] : [];
      const t0 = performance.now();
      console.error(`train ${r.arm} seed ${r.seed} ...`);
      await wmrl(
        ['train', ...common, ...armFlags[r.arm], '--seed', String(r.seed), '--out', dir, ...resume],
        join(dir, 'bench.log'),
      );
      console.error(`train ${r.arm} seed ${r.seed}: ${((performance.now() - t0) / 1000).toFixed(0)} s`);
    }
  }),
);

interface Run {
  arm: Arm;
  seed: number;
  start: number;
  final: number;
  robotSeconds: number;
  computeSeconds: number;
  detector?: { anchors: number; spotChecks: number; agreement: number; auroc: number | null; drifted: number };
}
const runs: Run[] = [];
for (const arm of ARMS)
  for (let seed = 0; seed < seeds; seed++) {
    const dir = dirOf(arm, seed);
    const evals = (
      readRunLog(join(dir, 'train.metrics.jsonl')) as unknown as {
        kind: string;
        successRate: number;
        trainingRobotSeconds?: number;
      }[]
    ).filter((l) => l.kind === 'eval');
    const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as { computeSeconds: number };
    const run: Run = {
      arm,
      seed,
      start: evals[0]!.successRate,
      final: evals.at(-1)!.successRate,
      robotSeconds: evals.at(-1)!.trainingRobotSeconds ?? 0,
      computeSeconds: report.computeSeconds,
    };
    if (arm === 'detector') run.detector = await anchorAgreement(dir);
    runs.push(run);
  }

/** The trainer's outcomes (anchors/) against the simulator's (anchors-env/), episode by episode. */
async function anchorAgreement(dir: string): Promise<NonNullable<Run['detector']>> {
  const truth = new Map<string, boolean>();
  for await (const e of (await EpisodeStore.open(join(dir, 'anchors-env'))).episodes()) truth.set(e.id, e.success);
  const scores: number[] = [];
  const outcomes: boolean[] = [];
  let agree = 0;
  let spot = 0;
  for await (const e of (await EpisodeStore.open(join(dir, 'anchors'))).episodes()) {
    const y = truth.get(e.id);
    if (y === undefined) throw new Error(`${dir}: anchor ${e.id} has no environment record`);
    scores.push(e.outcome!.score);
    outcomes.push(y);
    if (e.success === y) agree++;
    if (e.outcome!.source === 'operator') spot++;
  }
  const drifted = (
    readRunLog(join(dir, 'detector.metrics.jsonl')) as unknown as { drift: { drifted: boolean } }[]
  ).filter((l) => l.drift.drifted).length;
  return {
    anchors: scores.length,
    spotChecks: spot,
    agreement: agree / scores.length,
    auroc: auroc(scores, outcomes),
    drifted,
  };
}

const byArm = (arm: Arm) => runs.filter((r) => r.arm === arm);
const gains = (arm: Arm) => byArm(arm).map((r) => r.final - r.start);
const kept = mean(gains('detector')) / mean(gains('true'));
const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const rows = ARMS.map((arm) => {
  const rs = byArm(arm);
  return (
    `| ${arm === 'true' ? 'true outcomes' : 'detector outcomes (10% spot checks)'} | ` +
    `${rs.map((r) => pct(r.final)).join(' / ')} | ` +
    `${pct(mean(rs.map((r) => r.final)))} ± ${pct(sd(rs.map((r) => r.final)))} | ` +
    `${pct(mean(gains(arm)))} | ${mean(rs.map((r) => r.robotSeconds)).toFixed(0)} |`
  );
});
const det = byArm('detector').map((r) => r.detector!);
const md = [
  `Reach, ${seeds} seeds, ${steps} steps, held-out (test split) success on ${evalEpisodes} episodes; ` +
    `BC start ${pct(mean(runs.map((r) => r.start)))}.`,
  '',
  '| anchor outcomes | final per seed | mean ± sd | gain | robot s |',
  '| --- | --- | --- | --- | --- |',
  ...rows,
  '',
  `The detector arm keeps ${pct(kept)} of the true-outcome arm's mean gain. On its own anchors the detector's ` +
    `AUROC was ${det.map((d) => (d.auroc === null ? 'n/a' : d.auroc.toFixed(3))).join(' / ')} and the outcomes the ` +
    `trainer saw agreed with the simulator's on ${det.map((d) => pct(d.agreement)).join(' / ')} of ` +
    `${det.map((d) => d.anchors).join(' / ')} anchor episodes (${det.map((d) => d.spotChecks).join(' / ')} ` +
    `spot-checked; drift flagged at ${det.map((d) => d.drifted).join(' / ')} steps).`,
].join('\n');
mkdirSync(join('bench', 'results'), { recursive: true });
writeFileSync(
  join('bench', 'results', 'detector.json'),
  JSON.stringify({ seeds, steps, evalEpisodes, kept, runs }, null, 2) + '\n',
);
writeFileSync(join('bench', 'results', 'detector.md'), md + '\n');
console.log(md);
