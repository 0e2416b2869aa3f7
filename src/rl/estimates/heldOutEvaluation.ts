/**
 * A training run's held-out evaluations: the policy's mean action on the same planned episodes
 * after every `eval.every` steps (paired comparisons across steps, modes and seeds), never charged
 * as training robot time. By default they run in-process, on the run's env, and training waits.
 * A caller with a core to spare passes its own HeldOutEvaluator: it takes the policy as it is (a
 * snapshot) and hands back a result that may arrive while training goes on (`wmrl demo` evaluates
 * in a second process).
 */
import { evaluatePolicyOutcomes } from '../../eval/evaluatePolicy.ts';
import type { Env } from '../../envs/env.ts';
import type { VlaPolicy } from '../../policy/vlaPolicy.ts';
import { type PlannedEpisode, planEpisodes } from '../../tasks/episodePlan.ts';
import { parseTaskSelectors } from '../../tasks/selectors.ts';
import type { WmrlConfig } from '../config/wmrlConfig.ts';

export interface EvalMetrics {
  step: number;
  split: string;
  episodes: number;
  successes: number;
  successRate: number;
  perFamily: Record<string, { episodes: number; successes: number }>;
  robotSeconds: number;
  /** 1 or 0 per evaluation episode, in plan order: every step and run evaluates the same episodes (paired). */
  outcomes: number[];
}

export interface HeldOutEvaluator {
  /**
   * Evaluate the policy as it is after `step`. Resolves once the policy may change again (it has
   * been evaluated, or copied for evaluation elsewhere) to its result, which may still be pending.
   */
  start(policy: VlaPolicy, step: number): Promise<{ result: Promise<EvalMetrics> }>;
}

/** The first held-out episode seed: apart from every collection and training seed. */
export const HELD_OUT_SEED = 900_000;

/** The episodes every evaluation of a run with this config plays, in order. */
export function heldOutPlan(config: Pick<WmrlConfig, 'eval'>): PlannedEpisode[] {
  return planEpisodes(parseTaskSelectors(config.eval.tasks), config.eval.split, config.eval.episodes, HELD_OUT_SEED);
}

/** One evaluation on `env`, in this process. */
export async function evaluateHeldOut(
  env: Env,
  policy: VlaPolicy,
  config: Pick<WmrlConfig, 'eval'>,
  step: number,
): Promise<EvalMetrics> {
  return evalMetrics(step, config.eval.split, [await evaluatePolicyOutcomes(env, policy, heldOutPlan(config))]);
}

/** One evaluation's metrics from its parts: consecutive pieces of the plan, in plan order. */
export function evalMetrics(
  step: number,
  split: string,
  parts: Pick<EvalMetrics, 'perFamily' | 'robotSeconds' | 'outcomes'>[],
): EvalMetrics {
  const outcomes = parts.flatMap((p) => p.outcomes);
  const successes = outcomes.reduce((n, x) => n + x, 0);
  const perFamily: EvalMetrics['perFamily'] = {};
  for (const p of parts)
    for (const [family, f] of Object.entries(p.perFamily)) {
      perFamily[family] ??= { episodes: 0, successes: 0 };
      perFamily[family].episodes += f.episodes;
      perFamily[family].successes += f.successes;
    }
  return {
    step,
    split,
    episodes: outcomes.length,
    successes,
    successRate: outcomes.length > 0 ? successes / outcomes.length : 0,
    perFamily,
    robotSeconds: parts.reduce((t, p) => t + p.robotSeconds, 0),
    outcomes,
  };
}

/** The default: every evaluation in-process, training waiting for it. */
export function inProcessEvaluator(env: Env, config: Pick<WmrlConfig, 'eval'>): HeldOutEvaluator {
  return {
    start: async (policy, step) => {
      const result = await evaluateHeldOut(env, policy, config, step);
      return { result: Promise.resolve(result) };
    },
  };
}
