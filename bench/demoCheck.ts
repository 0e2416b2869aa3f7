/**
 * `npm run bench:demo-check -- --run DIR`: does what `wmrl demo` printed hold on other episodes?
 *
 * The demo compares its policies on its own held-out episodes (one seed of them). This evaluates the
 * same policies, read from the demo's folder, on other held-out episodes of the same split and
 * tasks, and compares the demo's three printed differences with the check's:
 *  - WMRL's gain over the BC start, and real-only GRPO's gain at its end (each paired, as printed);
 *  - at equal robot time, WMRL − real-only after the step the demo compared with (kept by the
 *    demo's `eval.keepPolicies`).
 * The two estimates of each figure share no episode, so they agree when the interval of their gap
 * (both estimates' errors together) holds 0; whether the check's point lies in the printed interval
 * is reported beside it (src/eval/estimateAgreement.ts says why that reading is too strict).
 *
 *   npm run bench:demo-check -- --run runs/demo               # 600 episodes from seed 500000 (10 min beside others)
 *   npm run bench:demo-check -- --run runs/demo --episodes 300 --seed 700000 --out bench/results/demo-check-s1
 *
 * Writes bench/results/demo-check.{json,md} (or --out PATH.{json,md}).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { selectBackend } from '../src/backend/selectBackend.ts';
import { loadRobot } from '../src/core/robotDescription.ts';
import { readRunLog } from '../src/core/runLog.ts';
import { makeSimEnv } from '../src/envs/makeEnv.ts';
import { estimatesAgree, type IntervalEstimate } from '../src/eval/estimateAgreement.ts';
import { evaluatePolicyOutcomes } from '../src/eval/evaluatePolicy.ts';
import { pairedDifference } from '../src/eval/proportion.ts';
import { loadPolicy } from '../src/policy/policyFiles.ts';
import { POLICY_KERNELS } from '../src/policy/policyConfig.ts';
import { evaluatedPolicyDir } from '../src/rl/run/runTraining.ts';
import type { WmrlConfig } from '../src/rl/config/wmrlConfig.ts';
import { planEpisodes } from '../src/tasks/episodePlan.ts';
import { parseTaskSelectors } from '../src/tasks/selectors.ts';

const { values } = parseArgs({
  options: {
    run: { type: 'string' },
    episodes: { type: 'string', default: '600' },
    seed: { type: 'string', default: '500000' },
    out: { type: 'string', default: 'bench/results/demo-check' },
  },
});
if (!values.run) throw new Error('--run DIR: the folder of a `wmrl demo` run (its --out) is needed');
const run = values.run;
const episodes = Number(values.episodes);
const seed = Number(values.seed);
if (!Number.isInteger(episodes) || episodes < 10)
  throw new Error(`--episodes: an integer ≥ 10, got ${values.episodes}`);
if (!Number.isInteger(seed) || seed < 0) throw new Error(`--seed: an integer ≥ 0, got ${values.seed}`);

interface DemoSummary {
  wmrlGain: IntervalEstimate & { episodes: number };
  realGain: IntervalEstimate & { episodes: number };
  equalTime: (IntervalEstimate & { episodes: number; realStep: number }) | null;
}
interface DemoConfig {
  robot: string;
  seed: number;
  evalEpisodes: number;
  train: WmrlConfig;
}
const readJson = <T>(file: string): T => {
  if (!existsSync(file)) throw new Error(`${file} not found: is ${run} the folder of a finished \`wmrl demo\` run?`);
  return JSON.parse(readFileSync(file, 'utf8')) as T;
};
const config = readJson<DemoConfig>(join(run, 'demo.config.json'));
const metrics = join(run, 'demo.metrics.jsonl');
const summaryLine = existsSync(metrics) ? readRunLog(metrics).find((r) => r.stage === 'summary') : undefined;
if (!summaryLine) throw new Error(`${run}/demo.metrics.jsonl holds no summary: the demo did not finish`);
const summary = summaryLine as unknown as DemoSummary;

const policies: Record<string, string> = {
  bc: join(run, 'bc', 'policy'),
  wmrl: join(run, 'wmrl', 'policy'),
  real: join(run, 'real', 'policy'),
};
if (summary.equalTime) {
  const dir = evaluatedPolicyDir(join(run, 'real'), summary.equalTime.realStep);
  if (!existsSync(dir))
    throw new Error(
      `${dir} not found: the demo compared WMRL with real-only after step ${summary.equalTime.realStep}, ` +
        'whose policy only demos of this version keep (eval.keepPolicies); run `wmrl demo` again',
    );
  policies.realAtEqualTime = dir;
}

await selectBackend('auto', { requiredKernels: POLICY_KERNELS });
const { tasks, split } = config.train.eval;
const plan = planEpisodes(parseTaskSelectors(tasks), split, episodes, seed);
const env = await makeSimEnv(loadRobot(config.robot));
const outcomes: Record<string, number[]> = {};
try {
  for (const [name, dir] of Object.entries(policies)) {
    const policy = await loadPolicy(dir);
    const started = performance.now();
    try {
      const e = await evaluatePolicyOutcomes(env, policy, plan);
      outcomes[name] = e.outcomes;
      console.log(
        `${name}: ${(100 * e.successRate).toFixed(1)}% of ${episodes} ` +
          `(${((performance.now() - started) / 1000).toFixed(0)} s)`,
      );
    } finally {
      policy.dispose();
    }
  }
} finally {
  await env.close();
}

const rate = (name: string) => outcomes[name]!.reduce((s, v) => s + v, 0) / episodes;
const rows = [
  { figure: "WMRL's gain over BC", demo: summary.wmrlGain, check: pairedDifference(outcomes.wmrl!, outcomes.bc!) },
  {
    figure: "real-only GRPO's gain over BC at its end",
    demo: summary.realGain,
    check: pairedDifference(outcomes.real!, outcomes.bc!),
  },
  ...(summary.equalTime && outcomes.realAtEqualTime
    ? [
        {
          figure: `WMRL − real-only after its step ${summary.equalTime.realStep} (equal robot time)`,
          demo: summary.equalTime,
          check: pairedDifference(outcomes.wmrl!, outcomes.realAtEqualTime),
        },
      ]
    : []),
].map((r) => ({ ...r, agreement: estimatesAgree(r.demo, r.check) }));

const pts = (x: number) => `${x >= 0 ? '+' : ''}${(100 * x).toFixed(1)}`;
const iv = (e: IntervalEstimate) => `${pts(e.difference)} [${pts(e.low)}, ${pts(e.high)}]`;
const agreeing = rows.filter((r) => r.agreement.agree).length;
const inside = rows.filter((r) => r.agreement.secondInsideFirst).length;
const md = [
  `# Demo check: ${run} (demo seed ${config.seed}, ${config.evalEpisodes} episodes) against ${episodes} ` +
    `other ${split} ${tasks} episodes from seed ${seed}`,
  '',
  `Success on the check's episodes: ${Object.keys(outcomes)
    .map((n) => `${n} ${(100 * rate(n)).toFixed(1)}%`)
    .join(', ')}.`,
  '',
  '| figure (points) | demo printed | check | gap demo − check | agree (gap interval holds 0) | check inside printed |',
  '|---|---|---|---|---|---|',
  ...rows.map(
    (r) =>
      `| ${r.figure} | ${iv(r.demo)} | ${iv(r.check)} | ${pts(r.agreement.gap)} [${pts(r.agreement.low)}, ` +
      `${pts(r.agreement.high)}] | ${r.agreement.agree ? 'yes' : '**no**'} | ` +
      `${r.agreement.secondInsideFirst ? 'yes' : 'no'} |`,
  ),
  '',
  `${agreeing} of ${rows.length} agree; the check's point lies inside the printed interval ` +
    `for ${inside} of ${rows.length}.`,
  '',
].join('\n');
console.log(`\n${md}`);
const result = {
  date: new Date().toISOString(),
  run,
  demoSeed: config.seed,
  demoEpisodes: config.evalEpisodes,
  checkEpisodes: episodes,
  checkSeed: seed,
  tasks,
  split,
  success: Object.fromEntries(Object.keys(outcomes).map((n) => [n, rate(n)])),
  rows,
  agreeing,
  insidePrinted: inside,
};
mkdirSync(dirname(values.out), { recursive: true });
writeFileSync(`${values.out}.json`, `${JSON.stringify(result, null, 2)}\n`);
writeFileSync(`${values.out}.md`, md);
console.log(`wrote ${values.out}.json and ${values.out}.md`);
