/**
 * A request's spot checks put to the operator: all at once (the viewer lists them all, the terminal
 * asks them in turn), the step waiting up to `operator.labelTimeout` seconds for them together, as
 * operator outcomes do (src/rl/run/operatorOutcomes.ts). A spot check the operator skips, or one still
 * unanswered at the timeout with `operator.onTimeout: skip`, is no spot check: that episode's outcome
 * is the detector's and the correction learns nothing from it. With `onTimeout: stop` the run stops
 * instead; the labels given are durable (labels.jsonl) and an episode met again is never asked again.
 */
import type { Episode } from '../core/types.ts';
import type { AskOperator, OperatorVerdict } from '../operator/askOperator.ts';
import { askWithin, LabelTimeoutError, type OperatorSettings } from '../rl/run/operatorOutcomes.ts';

/**
 * The operator is not shown the detector's score: a label pulled towards the score would hide the
 * bias the spot checks are there to measure.
 */
export interface SpotCheckQuestion {
  episode: Episode;
}

/** The operator's verdict per question, in order, or 'timeout'. */
export async function askSpotChecks(
  questions: SpotCheckQuestion[],
  ask: AskOperator,
  settings: OperatorSettings,
  step: number,
): Promise<(OperatorVerdict | 'timeout')[]> {
  if (questions.length === 0) return [];
  const verdicts = await askWithin(
    questions.map((q) => q.episode),
    ask,
    { reason: 'spot-check', step },
    settings,
  );
  const missing = questions.filter((_, i) => verdicts[i] === 'timeout').map((q) => q.episode.id);
  if (missing.length > 0 && settings.onTimeout === 'stop')
    throw new LabelTimeoutError(
      `no operator label within ${settings.labelTimeout} s for ${missing.length} spot check(s) of the success ` +
        `detector at step ${step} (${missing.slice(0, 3).join(', ')}${missing.length > 3 ? ', …' : ''}); the ` +
        'labels given are kept in labels.jsonl: continue with `wmrl train --resume` ' +
        '(or operator.onTimeout=skip: an unanswered spot check leaves its episode to the detector)',
    );
  return verdicts;
}
