/**
 * `npm run bench:ppi`: does evaluating with a world model (`wmrl eval --world-model`, prediction-
 * powered inference) give honest intervals, and narrower ones than real episodes alone?
 *
 * On the simulator, with the benchmark's cached tiny BC policy (mean actions) and world model
 * (runs/bench-cache/reach-v2, built by `npm run bench`), per family and split:
 *  - a pool of real episodes, each with the world model's score of its paired imagined episode
 *    (same start, mean actions), and a pool of further starts that are only imagined;
 *  - the truth: the success rate over a separate, large real evaluation (seeds used nowhere else);
 *  - for N real episodes (5 … 120), many resamples of N paired episodes and M imagined ones: the
 *    coverage of the truth by the 95% intervals and their mean width, real-only (Wilson, as
 *    `wmrl eval`), PPI and PPI++; and the N at which PPI++ is as narrow as real-only at N = 40, 80.
 * Two world models: the cached one as it is (demonstrations and noisy-expert episodes only), and
 * that one refitted on episodes of the evaluated policy from other starts (as a WMRL run's refits
 * do with its anchors), cached under runs/bench-cache/ppi-<setup>; and a start head
 * (`wmrl eval --start-head`) fitted on those same episodes of the policy.
 *
 *   npm run bench:ppi                         # reach, train and test splits
 *       (24 min on 2 cores under a load of about 12, from the `npm run bench` set-up; 2 min once its own cache exists)
 *   npm run bench:ppi -- --families reach,pick
 *   npm run bench:ppi -- --pool 60 --truth 60 --further 100 --refit-episodes 20 --resamples 100   # smoke run
 *   npm run bench:ppi -- --scores max,progress@8   # other predictions beside the default (rule[@horizon])
 *
 * Writes bench/results/ppi.json and ppi.md (other sizes or families: ppi-<what differs>.*).
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { selectBackend } from '../src/backend/selectBackend.ts';
import { DEFAULT_ROBOT, loadRobot } from '../src/core/robotDescription.ts';
import { Rng } from '../src/core/rng.ts';
import type { Episode, Split } from '../src/core/types.ts';
import { readEpisodes } from '../src/cli/common.ts';
import { EpisodeStore } from '../src/data/episodeStore.ts';
import { makeEnv } from '../src/envs/makeEnv.ts';
import { episodeStart, recordStart } from '../src/envs/startEpisode.ts';
import { evaluateController } from '../src/eval/evaluatePolicy.ts';
import { ppiEstimate, tunedPpiEstimate } from '../src/eval/ppiEstimate.ts';
import { correlation } from '../src/eval/ppiTable.ts';
import { wilsonInterval } from '../src/eval/proportion.ts';
import { POLICY_KERNELS, policyCamera } from '../src/policy/policyConfig.ts';
import { PolicyController } from '../src/policy/policyController.ts';
import { loadPolicy } from '../src/policy/policyFiles.ts';
import { imagineEvaluationScores } from '../src/rl/estimates/evaluationImagination.ts';
import { planEpisodes } from '../src/tasks/episodePlan.ts';
import { type TaskFamily, taskFamily } from '../src/tasks/families.ts';
import { worldModelEpisodes } from '../src/worldmodel/perceptionWorldModel.ts';
import { featuresOfModel } from '../src/rl/corrections/worldModelFeatures.ts';
import { StartHeads } from '../src/eval/startHeads.ts';
import { SCORE_RULES, type ScoreRuleName } from '../src/worldmodel/scoreRules.ts';
import { WORLD_MODEL_KERNELS } from '../src/worldmodel/worldModelConfig.ts';
import { loadWorldModel, saveWorldModel } from '../src/worldmodel/worldModelFiles.ts';

const { values } = parseArgs({
  options: {
    setup: { type: 'string' },
    families: { type: 'string' },
    pool: { type: 'string' },
    truth: { type: 'string' },
    further: { type: 'string' },
    imagined: { type: 'string' },
    'refit-episodes': { type: 'string' },
    resamples: { type: 'string' },
    scores: { type: 'string' },
  },
});
const setupDir = values.setup ?? join('runs', 'bench-cache', 'reach-v2');
const families = (values.families ?? 'reach').split(',').map((f) => taskFamily(f.trim()));
const SPLITS: Split[] = ['train', 'test'];
const sizes = {
  /** Paired real episodes per cell that resamples draw from. */
  pool: Number(values.pool ?? 400),
  /** Real episodes per cell that measure the truth. */
  truth: Number(values.truth ?? 400),
  /** Further starts per cell, imagined only, that resamples draw M from. */
  further: Number(values.further ?? 800),
  /** M: imagined episodes per resample (`wmrl eval --imagined`'s default). */
  imagined: Number(values.imagined ?? 200),
  /** Episodes of the policy the refitted world model sees (train split, every family). */
  refitEpisodes: Number(values['refit-episodes'] ?? 300),
  resamples: Number(values.resamples ?? 2000),
};
const DEFAULT_SIZES = { pool: 400, truth: 400, further: 800, imagined: 200, refitEpisodes: 300, resamples: 2000 };
// Other sizes or families than the defaults write beside the default results: ppi-refitEpisodes1000.json, …
const label = [
  ...(families.join() === 'reach' ? [] : [families.join('-')]),
  ...Object.entries(sizes)
    .filter(([k, v]) => DEFAULT_SIZES[k as keyof typeof sizes] !== v)
    .map(([k, v]) => `${k}${v}`),
  ...(values.scores && values.scores !== 'max'
    ? [`scores-${values.scores.replace(/@/g, 'h').replace(/,/g, '+')}`]
    : []),
]
  .map((part) => `-${part}`)
  .join('');
const GRID = Array.from({ length: 24 }, (_, i) => 5 * (i + 1)).filter((n) => n <= sizes.pool / 2);
const REFERENCES = [40, 80].filter((n) => GRID.includes(n));
// Seeds apart from every other use: collection (1000–40 000), `wmrl eval` (900 000 + …), training.
const SEEDS = { refit: 4_000_000, pool: 6_000_000, truth: 7_000_000, further: 8_000_000 };
const cellSeed = (base: number, split: number, family: number) => base + 200_000 * split + 20_000 * family;
const started = performance.now();

for (const need of ['bc-tiny/policy/model.json', 'worldmodel/model.json', 'demos/dataset.json', 'mixed/dataset.json'])
  if (!existsSync(join(setupDir, need)))
    throw new Error(
      `${join(setupDir, need)} is missing: the PPI benchmark reuses the set-up \`npm run bench\` builds ` +
        `(\`npm run bench -- --quick\` makes it in a few minutes), or pass --setup DIR`,
    );
const cache = join('runs', 'bench-cache', `ppi-${setupDir.split('/').at(-1)}-${families.join('-')}`);
mkdirSync(cache, { recursive: true });
await selectBackend('auto', { requiredKernels: [...POLICY_KERNELS, ...WORLD_MODEL_KERNELS] });
const policy = await loadPolicy(join(setupDir, 'bc-tiny', 'policy'));
const robot = loadRobot(DEFAULT_ROBOT);
const env = await makeEnv(robot, { env: 'sim', cameras: [policyCamera(policy.config, robot.cameras[0]!.name)] });
const controller = new PolicyController(policy, { deterministic: true, name: 'vla:bc-tiny' });
const status = () => env.status();
const elapsed = () => `${((performance.now() - started) / 1000).toFixed(0)} s`;

/** Episodes (here 0-step starts) in a fresh store at `dir`. */
async function saveStarts(dir: string, starts: Episode[]): Promise<void> {
  rmSync(dir, { recursive: true, force: true });
  const store = await EpisodeStore.create(dir, { robot: robot.name });
  try {
    for (const e of starts) await store.append(e);
  } finally {
    await store.close();
  }
}

/** Real episodes of the policy from a plan: their starts (0-step episodes) and outcomes. */
async function runReal(family: TaskFamily, split: Split, count: number, seed: number) {
  const starts: Episode[] = [];
  const outcomes: number[] = [];
  await evaluateController({
    env,
    controller,
    plan: planEpisodes([{ family }], split, count, seed),
    initialStatus: status,
    onEpisode: (e) => {
      starts.push(episodeStart(e));
      outcomes.push(e.success ? 1 : 0);
    },
  });
  return { starts, outcomes };
}

// Episodes of the policy on the train split, other starts: the refitted world model's extra data and
// the start head's labelled episodes. Their starts and outcomes are kept; a refit cached before they
// were is matched by running the same plans again (the policy takes mean actions: the same episodes).
const refitDir = join(cache, `worldmodel-policy-${sizes.refitEpisodes}`);
const labelledStore = join(cache, `starts-policy-${sizes.refitEpisodes}`);
const labelledFile = join(cache, `outcomes-policy-${sizes.refitEpisodes}.json`);
let labelled: { starts: Episode[]; outcomes: number[] } | undefined;
if (!existsSync(join(refitDir, 'model.json')) || !existsSync(labelledFile)) {
  console.error(`${sizes.refitEpisodes} episodes of the policy (train split) ...`);
  const own: Episode[] = [];
  for (const [fi, family] of families.entries())
    await evaluateController({
      env,
      controller,
      plan: planEpisodes(
        [{ family }],
        'train',
        Math.round(sizes.refitEpisodes / families.length),
        SEEDS.refit + fi * 20_000,
      ),
      initialStatus: status,
      onEpisode: (e) => own.push(e),
    });
  labelled = { starts: own.map(episodeStart), outcomes: own.map((e) => (e.success ? 1 : 0)) };
  await saveStarts(labelledStore, labelled.starts);
  writeFileSync(labelledFile, JSON.stringify(labelled.outcomes));
  if (!existsSync(join(refitDir, 'model.json'))) {
    console.error(`refitting the world model on ${sizes.refitEpisodes} episodes of the policy ...`);
    const model = await loadWorldModel(join(setupDir, 'worldmodel'));
    const endEffector = await featuresOfModel(model, policy, robot);
    const data = worldModelEpisodes(
      policy,
      await readEpisodes([join(setupDir, 'demos'), join(setupDir, 'mixed')]),
      endEffector,
    );
    const mine = worldModelEpisodes(policy, own, endEffector);
    // Three copies of the policy's episodes: a few hundred against the data's thousand.
    await model.refit([...data, ...mine, ...mine, ...mine], { epochs: 3, seed: 1 });
    await saveWorldModel(model, refitDir);
    model.dispose();
    console.error(`refitted (${elapsed()})`);
  }
}
labelled ??= {
  starts: await readEpisodes([labelledStore]),
  outcomes: JSON.parse(readFileSync(labelledFile, 'utf8')) as number[],
};
// The start heads, one per family: the outcomes of the labelled episodes from starts the policy perceives alike.
const heads = StartHeads.fit(
  policy,
  labelled.starts.map((e, i) => ({ ...e, success: labelled.outcomes[i] === 1 })),
);
for (const [family, h] of heads.heads)
  console.error(`start head (${family}): bandwidth ${h.state.bandwidth}, ${h.state.kept.length} varying features`);
const HEAD = `start-head-${sizes.refitEpisodes}`;
// How an imagined episode is scored: `wmrl eval --score R --horizon H`; 'max' over the family's horizon is
// its default, and its predictions keep the world model's name (results and caches of earlier runs).
const SCORERS = (values.scores ?? 'max').split(',').map((raw) => {
  const spec = raw.trim();
  const [rule, h] = spec.split('@');
  if (!(SCORE_RULES as readonly string[]).includes(rule!))
    throw new Error(`--scores: '${spec}' (${SCORE_RULES.join(' | ')}[@H])`);
  const horizon = h === undefined ? undefined : Number(h);
  if (horizon !== undefined && !(Number.isInteger(horizon) && horizon >= 1))
    throw new Error(`--scores: '${spec}': the horizon is a whole number of control steps`);
  return { spec, rule: rule as ScoreRuleName, horizon };
});
const MODELS = [
  {
    name: 'as-is',
    dir: join(setupDir, 'worldmodel'),
    what: 'the benchmark world model (demonstrations, noisy experts)',
  },
  {
    name: `policy-refit-${sizes.refitEpisodes}`,
    dir: refitDir,
    what: `refitted on ${sizes.refitEpisodes} episodes of the evaluated policy (train split, other starts)`,
  },
];

/** Every world model under every scorer: the predictors studied. */
const PREDICTORS = MODELS.flatMap((m) =>
  SCORERS.map((sc) => ({ ...m, scorer: sc, name: sc.spec === 'max' ? m.name : `${m.name} ${sc.spec}` })),
);

interface Cell {
  family: string;
  split: Split;
  truth: { episodes: number; rate: number };
  pool: { outcomes: number[]; predicted: Record<string, number[]> };
  further: { predicted: Record<string, number[]> };
}
const cells: Cell[] = [];
for (const [si, split] of SPLITS.entries()) {
  for (const [fi, family] of families.entries()) {
    const name = `${family}-${split}-${sizes.pool}-${sizes.truth}-${sizes.further}`;
    const file = join(cache, `cell-${name}.json`);
    let cell = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Cell) : undefined;
    const missing = PREDICTORS.filter((m) => !cell?.pool.predicted[m.name]);
    if (cell && missing.length === 0 && cell.pool.predicted[HEAD]) {
      cells.push(cell);
      console.error(`[cached] ${family} ${split}`);
      continue;
    }
    // The starts are kept (0-step episodes), so another world model is scored without running the episodes again.
    const poolStore = join(cache, `starts-${name}-pool`);
    const furtherStore = join(cache, `starts-${name}-further`);
    let poolStarts: Episode[];
    let further: Episode[];
    if (cell && existsSync(join(poolStore, 'dataset.json')) && existsSync(join(furtherStore, 'dataset.json'))) {
      poolStarts = await readEpisodes([poolStore]);
      further = await readEpisodes([furtherStore]);
    } else {
      console.error(`${family} ${split}: ${sizes.pool} paired episodes, ${sizes.further} starts ...`);
      const pool = await runReal(family, split, sizes.pool, cellSeed(SEEDS.pool, si, fi));
      if (cell && pool.outcomes.join() !== cell.pool.outcomes.join())
        throw new Error(`${family} ${split}: the pool's outcomes differ from the cached ones (${file})`);
      poolStarts = pool.starts;
      further = [];
      for (const p of planEpisodes([{ family }], split, sizes.further, cellSeed(SEEDS.further, si, fi)))
        further.push(await recordStart(env, { ...p, policy: controller.name, initialStatus: status }));
      await saveStarts(poolStore, poolStarts);
      await saveStarts(furtherStore, further);
      if (!cell) {
        console.error(`${family} ${split}: ${sizes.truth} episodes for the truth ...`);
        const truth = await runReal(family, split, sizes.truth, cellSeed(SEEDS.truth, si, fi));
        cell = {
          family,
          split,
          truth: { episodes: sizes.truth, rate: mean(truth.outcomes) },
          pool: { outcomes: pool.outcomes, predicted: {} },
          further: { predicted: {} },
        };
      }
    }
    for (const m of missing) {
      const model = await loadWorldModel(m.dir);
      const endEffector = await featuresOfModel(model, policy, robot);
      const score = (starts: Episode[]) =>
        Array.from(
          imagineEvaluationScores(policy, model, starts, {
            noise: null,
            imagine: { rule: m.scorer.rule },
            ...(m.scorer.horizon !== undefined ? { horizon: m.scorer.horizon } : {}),
            ...(endEffector ? { endEffector } : {}),
          }),
        );
      cell.pool.predicted[m.name] = score(poolStarts);
      cell.further.predicted[m.name] = score(further);
      model.dispose();
    }
    const byHead = (starts: Episode[]) => Array.from(heads.predict(policy, starts));
    cell.pool.predicted[HEAD] = byHead(poolStarts);
    cell.further.predicted[HEAD] = byHead(further);
    writeFileSync(file, JSON.stringify(cell));
    cells.push(cell);
    console.error(`${family} ${split}: done (${elapsed()})`);
  }
}
await env.close();
policy.dispose();

/** Coverage and mean width of each interval at each N, over resamples of one cell under one world model. */
function study(cell: Cell, model: string) {
  const rng = new Rng(12345);
  const y = cell.pool.outcomes;
  const f = cell.pool.predicted[model]!;
  const g = cell.further.predicted[model]!;
  const poolRate = mean(y);
  const rows = GRID.map((n) => {
    const acc = {
      real: { covered: 0, coveredPool: 0, width: 0 },
      wald: { covered: 0, coveredPool: 0, width: 0 },
      ppi: { covered: 0, coveredPool: 0, width: 0 },
      tuned: { covered: 0, coveredPool: 0, width: 0, lambda: 0 },
    };
    for (let r = 0; r < sizes.resamples; r++) {
      const idx = sample(rng, y.length, n);
      const ys = idx.map((i) => y[i]!);
      const fs = idx.map((i) => f[i]!);
      const gs = sample(rng, g.length, sizes.imagined).map((i) => g[i]!);
      const k = ys.filter((v) => v === 1).length;
      const w = wilsonInterval(k, n);
      const intervals = {
        real: { lower: w.low, upper: w.high },
        wald: waldInterval(k, n),
        ppi: ppiEstimate(gs, fs, ys),
        tuned: tunedPpiEstimate(gs, fs, ys),
      };
      for (const key of ['real', 'wald', 'ppi', 'tuned'] as const) {
        const iv = intervals[key];
        const a = acc[key];
        if (iv.lower <= cell.truth.rate && cell.truth.rate <= iv.upper) a.covered++;
        if (iv.lower <= poolRate && poolRate <= iv.upper) a.coveredPool++;
        a.width += iv.upper - iv.lower;
      }
      acc.tuned.lambda += intervals.tuned.lambda;
    }
    const R = sizes.resamples;
    const summary = (a: { covered: number; coveredPool: number; width: number }) => ({
      coverage: a.covered / R,
      coverageOfPool: a.coveredPool / R,
      width: a.width / R,
    });
    return {
      n,
      real: summary(acc.real),
      wald: summary(acc.wald),
      ppi: summary(acc.ppi),
      tuned: { ...summary(acc.tuned), lambda: acc.tuned.lambda / R },
    };
  });
  // The N at which PPI++'s mean width first reaches a real-only interval's at the reference N (linear
  // between grid points): against Wilson (what `wmrl eval` prints) and the normal approximation PPI uses.
  const reaches = (target: number) => {
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i]!;
      if (r.tuned.width > target) continue;
      const q = rows[i - 1];
      return q ? q.n + ((q.tuned.width - target) / (q.tuned.width - r.tuned.width)) * (r.n - q.n) : r.n;
    }
    return null;
  };
  const equivalent = REFERENCES.flatMap((ref) =>
    (['real', 'wald'] as const).map((against) => {
      const target = rows.find((r) => r.n === ref)![against].width;
      const at = reaches(target);
      return {
        reference: ref,
        against: against === 'real' ? 'wilson' : 'wald',
        realOnlyWidth: target,
        tunedReachesItAt: at,
        saving: at === null ? null : 1 - at / ref,
      };
    }),
  );
  return {
    family: cell.family,
    split: cell.split,
    model,
    truth: cell.truth,
    pool: { episodes: y.length, rate: poolRate },
    correlation: correlation(f, y),
    meanPredicted: { paired: mean(f), further: mean(g) },
    rows,
    equivalent,
  };
}
const studies = cells.flatMap((c) => [...PREDICTORS.map((m) => m.name), HEAD].map((name) => study(c, name)));

const results = {
  date: new Date().toISOString(),
  machine: { cpu: cpus()[0]?.model, cores: cpus().length, node: process.version },
  setup: setupDir,
  policy: 'bc-tiny, mean actions',
  prediction:
    "the world model's score of the imagined episode from the same start: by default (a predictor named " +
    "as its world model) the best success probability over the family's horizon (--score max); others " +
    'are named `<world model> <rule>@<horizon>`',
  scorers: SCORERS,
  models: [
    ...MODELS.map(({ name, what }) => ({ name, what })),
    {
      name: HEAD,
      what:
        `start head: kernel regression of the outcomes of the ${sizes.refitEpisodes} labelled episodes ` +
        `(those the refit saw) on the policy's perception of the start, per family (bandwidths ` +
        `${[...heads.heads.values()].map((h) => h.state.bandwidth).join(', ')}, by leave-one-out)`,
    },
  ],
  sizes,
  studies,
  wallSeconds: (performance.now() - started) / 1000,
};
mkdirSync('bench/results', { recursive: true });
const base = `bench/results/ppi${label}`;
writeFileSync(`${base}.json`, JSON.stringify(results, null, 2) + '\n');
const pct = (v: number) => `${(100 * v).toFixed(1)}%`;
const md: string[] = [
  `PPI evaluation benchmark: tiny BC policy (mean actions), ${sizes.resamples} resamples per N, ` +
    `M = ${sizes.imagined} ` +
    `imagined episodes each; truth from ${sizes.truth} real episodes per row (seeds apart); 95% intervals.`,
  '',
  "Coverage of the truth, and of the pool's own rate (the resamples' population: the truth measured apart " +
    'differs from it by sampling error, which lowers the first at large N); widths in success-rate units.',
  '',
  '| family | split | world model | truth (pool) | corr(f, y) | N | coverage of truth: Wilson / PPI / PPI++ | ' +
    'of the pool rate | mean width: Wilson / Wald / PPI / PPI++ | mean λ |',
  '|---|---|---|---|---|---|---|---|---|---|',
];
for (const s of studies)
  for (const r of s.rows.filter((row) => [10, 20, 40, 80].includes(row.n)))
    md.push(
      `| ${s.family} | ${s.split} | ${s.model} | ${pct(s.truth.rate)} (${pct(s.pool.rate)}) | ` +
        `${s.correlation?.toFixed(2) ?? '–'} | ${r.n} | ` +
        `${pct(r.real.coverage)} / ${pct(r.ppi.coverage)} / ${pct(r.tuned.coverage)} | ` +
        `${pct(r.real.coverageOfPool)} / ${pct(r.ppi.coverageOfPool)} / ${pct(r.tuned.coverageOfPool)} | ` +
        `${r.real.width.toFixed(3)} / ${r.wald.width.toFixed(3)} / ${r.ppi.width.toFixed(3)} / ` +
        `${r.tuned.width.toFixed(3)} | ` +
        `${r.tuned.lambda.toFixed(2)} |`,
    );
md.push(
  '',
  '| family | split | world model | real-only interval | its width at N | PPI++ reaches it at N | ' +
    'real episodes saved |',
  '|---|---|---|---|---|---|---|',
);
for (const s of studies)
  for (const e of s.equivalent)
    md.push(
      `| ${s.family} | ${s.split} | ${s.model} | ${e.against} | ${e.realOnlyWidth.toFixed(3)} at ${e.reference} | ` +
        `${e.tunedReachesItAt === null ? 'not within the grid' : e.tunedReachesItAt.toFixed(1)} | ` +
        `${e.saving === null ? '–' : pct(e.saving)} |`,
    );
writeFileSync(`${base}.md`, md.join('\n') + '\n');
console.log(md.join('\n'));
console.log(`\nwritten: ${base}.json, ${base}.md (${((performance.now() - started) / 60000).toFixed(1)} min)`);

function mean(a: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]!;
  return s / a.length;
}

/** The normal-approximation (Wald) interval of k successes in n, clipped to [0, 1]: PPI's kind of interval. */
function waldInterval(k: number, n: number): { lower: number; upper: number } {
  const p = k / n;
  const half = 1.96 * Math.sqrt((p * (1 - p)) / n);
  return { lower: Math.max(0, p - half), upper: Math.min(1, p + half) };
}

/** k distinct indices of 0 … n − 1 (partial Fisher–Yates). */
function sample(rng: Rng, n: number, k: number): number[] {
  const idx = Array.from({ length: n }, (_, i) => i);
  for (let i = 0; i < k; i++) {
    const j = i + rng.int(n - i);
    [idx[i], idx[j]] = [idx[j]!, idx[i]!];
  }
  return idx.slice(0, k);
}
