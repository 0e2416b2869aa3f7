/**
 * Where `wmrl demo` evaluates WMRL: off the path the demo waits on, on the core real-only GRPO
 * leaves when it ends (docs/benchmarks.md, "The demo").
 */
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readRunLog } from '../core/runLog.ts';
import type { Env } from '../envs/env.ts';
import { evaluatePolicyOutcomes } from '../eval/evaluatePolicy.ts';
import { savePolicy } from '../policy/policyFiles.ts';
import type { VlaPolicy } from '../policy/vlaPolicy.ts';
import {
  type EvalMetrics,
  evalMetrics,
  HELD_OUT_SEED,
  type HeldOutEvaluator,
  heldOutPlan,
} from '../rl/estimates/heldOutEvaluation.ts';
import { evaluatedPolicyDir } from '../rl/run/runTraining.ts';
import type { WmrlConfig } from '../rl/config/wmrlConfig.ts';
import { parseTaskSelectors } from '../tasks/selectors.ts';
import { runChild } from './wmrlChild.ts';

/**
 * The share of WMRL's last evaluation played here; the rest goes to the second process, free by
 * then, which starts about 3 s later (a new process) and plays about 15% slower (measured).
 */
const LAST_HERE = 0.6;

/**
 * WMRL's held-out evaluations, kept off the path the demo waits on. The start is real-only's own
 * evaluation (the same BC policy on the same episodes). Those between run one at a time in a
 * second process (`wmrl eval` on the policy saved after the step, on the core real-only leaves
 * when it ends) while training goes on. The last is split: most of its episodes here, where
 * nothing else is left to do, the rest in the second process, so that both end about together.
 */
export function demoEvaluator(o: {
  /** The demo's run folder (WMRL's run is its wmrl/). */
  out: string;
  /** The robot as the demo was given it (a name, folder or file), for `wmrl eval`. */
  robot: string;
  env: Env;
  config: WmrlConfig;
  /** Real-only GRPO's metrics records, once its run ends. */
  realOnly: Promise<Record<string, unknown>[]>;
  realConfig: WmrlConfig;
}): HeldOutEvaluator {
  const { config, env } = o;
  const runDir = join(o.out, 'wmrl');
  const plan = heldOutPlan(config);
  if (JSON.stringify(plan) !== JSON.stringify(heldOutPlan(o.realConfig)))
    throw new Error('the demo evaluates WMRL and real-only GRPO on different held-out episodes');
  // `wmrl eval` plans each task selector apart: with one, its episodes from seed s on are this plan's.
  if (parseTaskSelectors(config.eval.tasks).length !== 1)
    throw new Error(`the demo's evaluations take one task selector, not '${config.eval.tasks}'`);
  const log = join(o.out, 'wmrl-evaluations.log');
  writeFileSync(log, '');
  let queue: Promise<unknown> = o.realOnly.catch(() => {});
  /** Episodes [from, from + count) of the plan, by `wmrl eval` in the second process, after those queued. */
  const elsewhere = (policyDir: string, step: number, from: number, count: number) => {
    const evalDir = join(o.out, 'wmrl-evaluations', `step-${step}`);
    const args = ['eval', '--policy', policyDir, '--robot', o.robot, '--task', config.eval.tasks];
    args.push('--split', config.eval.split, '--episodes', String(count), '--seed', String(HELD_OUT_SEED + from));
    args.push('--out', evalDir, '--outcomes-only');
    const result = queue
      .then(() => runChild(args, log, `the held-out evaluation after WMRL step ${step}`))
      .then(() => childEvaluation(evalDir, env.robot.controlHz));
    queue = result.catch(() => {});
    return result;
  };
  return {
    start: async (policy: VlaPolicy, step: number) => {
      if (step === 0) return { result: o.realOnly.then((records) => realOnlyStart(records)) };
      const policyDir = evaluatedPolicyDir(runDir, step);
      // eval.keepPolicies (the demo sets it) has saved it already.
      if (!existsSync(join(policyDir, 'model.json'))) await savePolicy(policy, policyDir);
      const split = config.eval.split;
      if (step < config.steps) {
        const result = elsewhere(policyDir, step, 0, plan.length).then((e) => evalMetrics(step, split, [e]));
        return { result };
      }
      const here = Math.round(plan.length * LAST_HERE);
      const rest = here < plan.length ? elsewhere(policyDir, step, here, plan.length - here) : undefined;
      const first = await evaluatePolicyOutcomes(env, policy, plan.slice(0, here));
      return { result: (rest ?? Promise.resolve()).then((r) => evalMetrics(step, split, r ? [first, r] : [first])) };
    },
  };
}

/** Real-only GRPO's evaluation before its first step: its BC start, which is WMRL's too. */
function realOnlyStart(records: Record<string, unknown>[]): EvalMetrics {
  const r = records.find((x) => x.kind === 'eval' && x.step === 0);
  if (!r) throw new Error("real-only GRPO's metrics hold no evaluation at step 0");
  const parts = [r as unknown as Pick<EvalMetrics, 'perFamily' | 'robotSeconds' | 'outcomes'>];
  return evalMetrics(0, r.split as string, parts);
}

/** A `wmrl eval` run's outcomes in plan order, from its metrics log (one record per episode). */
function childEvaluation(
  evalDir: string,
  controlHz: number,
): Pick<EvalMetrics, 'perFamily' | 'robotSeconds' | 'outcomes'> {
  const logs = readdirSync(join(evalDir, 'runs')).filter((f) => f.endsWith('.metrics.jsonl'));
  if (logs.length !== 1) throw new Error(`${evalDir}/runs should hold one evaluation log; it holds ${logs.length}`);
  const episodes = readRunLog(join(evalDir, 'runs', logs[0]!))
    .filter((r) => typeof r.success === 'boolean')
    .sort((a, b) => (a.episode as number) - (b.episode as number));
  const perFamily: EvalMetrics['perFamily'] = {};
  for (const r of episodes) {
    perFamily[r.family as string] ??= { episodes: 0, successes: 0 };
    const f = perFamily[r.family as string]!;
    f.episodes++;
    if (r.success) f.successes++;
  }
  return {
    perFamily,
    robotSeconds: episodes.reduce((n, r) => n + (r.steps as number), 0) / controlHz,
    outcomes: episodes.map((r) => (r.success ? 1 : 0)),
  };
}
