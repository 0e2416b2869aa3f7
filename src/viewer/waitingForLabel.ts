/**
 * What the page may see of an episode that waits for the operator's label (an outcome label with
 * `--outcome operator`, or a spot check of the success detector): its frames and joints, no outcome.
 * The recorded outcome would give the answer away (the simulator's is the truth) or mislead (a
 * robot without task status records a failure), and a score beside the question nudges the label
 * toward it, which hides the very bias the labels measure. Once labelled, the label is the outcome.
 */
import type { OperatorLabel } from '../operator/labelStore.ts';
import type { EpisodeSummary } from './messages.ts';

/** What the viewer knows of an anchor episode the operator was asked about. */
export interface OperatorState {
  /** Its question is on the pending list now. */
  waiting: boolean;
  /** The label that counts, once given. */
  label: OperatorLabel | undefined;
  /** The training step that asked (from the pending item; null when unknown). */
  step: number | null;
}

/** Said in place of the imagined rollouts of a waiting episode. */
export const WAITING_NOTE = 'waiting for your label: its outcome and the imagined rollouts show once it is labelled';

/**
 * The list row of an episode: while it waits, no `success` at all (`waiting` instead); once
 * labelled success or failure, that label (a skip says nothing of the outcome: the record stays).
 */
export function listedSummary(summary: EpisodeSummary, state: OperatorState): EpisodeSummary {
  const step = summary.step ?? state.step;
  if (state.waiting) {
    const { success: _hidden, ...rest } = summary;
    return { ...rest, step, waiting: true };
  }
  const verdict = state.label?.verdict;
  if (verdict === 'success' || verdict === 'failure') return { ...summary, step, success: verdict === 'success' };
  return { ...summary, step };
}
