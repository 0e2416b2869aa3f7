/**
 * The one question the toolkit asks a person about an episode: did it succeed? Anything that wants
 * a human outcome calls an `AskOperator`: the trainer for anchor episodes when `--outcome operator`
 * (src/rl/run/operatorOutcomes.ts), and a learned success detector for its spot checks. `wmrl train`
 * builds one over the run's OperatorDesk (viewer panel and terminal prompt, labels.jsonl).
 */
import type { Episode } from '../core/types.ts';

/** What the operator said: the outcome (with an optional note), or 'skip' (cannot tell; never trained on). */
export type OperatorVerdict = { success: boolean; note?: string } | 'skip';

export interface AskContext {
  /** Why a person is asked: the episode's outcome itself, or a spot check of a learned detector's answer. */
  reason: 'outcome' | 'spot-check';
  /** The training step the episode belongs to (shown to the operator). */
  step?: number;
  /** Stops waiting (a label timeout, or shutdown): the promise then rejects with the signal's reason. */
  signal?: AbortSignal;
}

/**
 * Resolves with the operator's verdict on `episode` (already stored in the run's anchor store, so the
 * viewer can show its frames). A verdict given before, even in an earlier process, comes back at
 * once without asking again: each episode is labelled, and counted, once.
 */
export type AskOperator = (episode: Episode, context: AskContext) => Promise<OperatorVerdict>;
