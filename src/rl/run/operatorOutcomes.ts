/**
 * Anchor outcomes from a person (config `--outcome operator`): every executed episode of a request
 * is put to the operator at once (the viewer lists them all; the terminal asks them in turn), and
 * the training step waits up to `operator.labelTimeout` seconds for the labels. A group is used
 * only when every one of its M rollouts has a success/failure label: GRPO compares a group's
 * rollouts with each other, so one unlabelled rollout leaves the whole group out. An episode the
 * operator skips, or one still unlabelled at the timeout (`operator.onTimeout: skip`), drops its
 * group from the update; with `onTimeout: stop` the run stops instead and `--resume` continues
 * with the labels given so far (they are durable, and never asked again).
 */
import type { Episode } from '../../core/types.ts';
import type { AskContext, AskOperator, OperatorVerdict } from '../../operator/askOperator.ts';

export interface OperatorSettings {
  /** Seconds a step waits for its labels (0: for as long as it takes). */
  labelTimeout: number;
  onTimeout: 'skip' | 'stop';
}

export interface LabelledGroups {
  /** Indices (in request order) of the groups whose every rollout was labelled. */
  kept: number[];
  /** The kept groups' episodes, group-major, with the operator's outcomes. */
  episodes: Episode[];
  /** Episodes left out, and why. */
  skipped: { episode: string; group: number; why: 'skipped' | 'timeout' }[];
}

/** The step stopped waiting for labels (`operator.onTimeout: stop`). */
export class LabelTimeoutError extends Error {
  override name = 'LabelTimeoutError';
}

/**
 * Every episode put to the operator at once, the answers awaited together for up to
 * `settings.labelTimeout` seconds (0: as long as it takes); 'timeout' for those unanswered by then.
 */
export async function askWithin(
  episodes: Episode[],
  ask: AskOperator,
  context: Omit<AskContext, 'signal'>,
  settings: OperatorSettings,
): Promise<(OperatorVerdict | 'timeout')[]> {
  // A timer of our own, not AbortSignal.timeout: that one does not keep the process waiting.
  const timeout = new AbortController();
  const timer =
    settings.labelTimeout > 0
      ? setTimeout(() => timeout.abort(new Error('label timeout')), settings.labelTimeout * 1000)
      : undefined;
  const signal = timer ? timeout.signal : undefined;
  try {
    return await Promise.all(
      episodes.map((e) =>
        ask(e, { ...context, ...(signal ? { signal } : {}) }).catch((err: unknown) => {
          if (signal?.aborted) return 'timeout' as const;
          throw err;
        }),
      ),
    );
  } finally {
    clearTimeout(timer);
  }
}

export async function labelAnchorGroups(
  episodes: Episode[],
  rollouts: number,
  ask: AskOperator,
  settings: OperatorSettings,
  step: number,
): Promise<LabelledGroups> {
  const verdicts = await askWithin(episodes, ask, { reason: 'outcome', step }, settings);
  const missing = episodes.filter((_, i) => verdicts[i] === 'timeout').map((e) => e.id);
  if (missing.length > 0 && settings.onTimeout === 'stop')
    throw new LabelTimeoutError(
      `no operator label within ${settings.labelTimeout} s for ${missing.length} anchor episode(s) of step ` +
        `${step} (${missing.slice(0, 3).join(', ')}${missing.length > 3 ? ', …' : ''}); the labels given are ` +
        'kept in labels.jsonl: label the rest in `wmrl view --run` or the terminal after `wmrl train --resume`',
    );
  const out: LabelledGroups = { kept: [], episodes: [], skipped: [] };
  for (let g = 0; g < episodes.length / rollouts; g++) {
    const range = Array.from({ length: rollouts }, (_, m) => g * rollouts + m);
    const unlabelled = range.filter((i) => verdicts[i] === 'skip' || verdicts[i] === 'timeout');
    if (unlabelled.length === 0) {
      out.kept.push(g);
      for (const i of range)
        out.episodes.push(withOutcome(episodes[i]!, verdicts[i] as Exclude<OperatorVerdict, 'skip'>));
    } else
      for (const i of unlabelled)
        out.skipped.push({ episode: episodes[i]!.id, group: g, why: verdicts[i] === 'skip' ? 'skipped' : 'timeout' });
  }
  return out;
}

/**
 * The episode with the operator's outcome. The operator judges the end of the episode: its last
 * step carries the success flag, no earlier one does (what the env reported is replaced).
 */
export function withOutcome(episode: Episode, verdict: { success: boolean }): Episode {
  const successes = new Uint8Array(episode.successes.length);
  if (verdict.success) successes[successes.length - 1] = 1;
  return { ...episode, success: verdict.success, successes };
}
