/**
 * The one evaluator: planned episodes of a controller on an env, counted per family and split
 * (with 95% intervals, SuccessTable) and in robot time. It serves `wmrl eval` (episodes stored)
 * and a training run's held-out evaluations (counted only, never charged as training robot
 * time). An aborted episode is stored marked aborted when there is a store, never counted, and
 * the same planned episode runs again (collectEpisodes).
 */
import type { Episode } from '../core/types.ts';
import type { Controller } from '../core/controller.ts';
import { collectEpisodes, type CollectOptions } from '../data/collectEpisodes.ts';
import type { Env } from '../envs/env.ts';
import { PolicyController } from '../policy/policyController.ts';
import type { VlaPolicy } from '../policy/vlaPolicy.ts';
import type { PlannedEpisode } from '../tasks/episodePlan.ts';
import { SuccessTable } from './successTable.ts';
import { episodeRobotSeconds } from '../data/robotTime.ts';

export interface EvaluationOptions extends Pick<CollectOptions, 'store' | 'initialStatus' | 'onAbort' | 'signal'> {
  env: Env;
  controller: Controller;
  plan: PlannedEpisode[];
  onEpisode?: (episode: Episode, index: number) => void;
}

export interface Evaluation {
  episodes: number;
  successes: number;
  successRate: number;
  perFamily: Record<string, { episodes: number; successes: number }>;
  robotSeconds: number;
  /** Success per family and split with 95% intervals. */
  table: SuccessTable;
}

export async function evaluateController(o: EvaluationOptions): Promise<Evaluation> {
  const table = new SuccessTable();
  const perFamily: Evaluation['perFamily'] = {};
  let robotSeconds = 0;
  const { episodes, successes } = await collectEpisodes({
    ...o,
    onEpisode: (e, i) => {
      table.add(e);
      perFamily[e.task.family] ??= { episodes: 0, successes: 0 };
      const f = perFamily[e.task.family]!;
      f.episodes++;
      if (e.success) f.successes++;
      robotSeconds += episodeRobotSeconds(e);
      o.onEpisode?.(e, i);
    },
  });
  return { episodes, successes, successRate: episodes > 0 ? successes / episodes : 0, perFamily, robotSeconds, table };
}

/**
 * A policy's mean action on every planned episode, with each episode's outcome (1 or 0, in plan
 * order): what paired comparisons of two policies on the same episodes need.
 */
export async function evaluatePolicyOutcomes(
  env: Env,
  policy: VlaPolicy,
  plan: PlannedEpisode[],
): Promise<Evaluation & { outcomes: number[] }> {
  const outcomes = new Array<number>(plan.length).fill(0);
  const evaluation = await evaluateController({
    env,
    controller: new PolicyController(policy, { deterministic: true }),
    plan,
    onEpisode: (episode, i) => {
      outcomes[i] = episode.success ? 1 : 0;
    },
  });
  return { ...evaluation, outcomes };
}
