/**
 * Evaluation with prediction-powered inference: real episodes of the controller (each also
 * predicted from its own start: the pairs that measure the predictor's error) plus further starts
 * that are only predicted (a reset each, no control time), so the success rate's interval narrows
 * as far as the predictions track the real outcomes (ppiTable.ts). The predictor is handed in
 * (`wmrl eval --world-model`: the world model's score of the imagined episode from that start).
 */
import type { Episode } from '../core/types.ts';
import { recordStart, episodeStart } from '../envs/startEpisode.ts';
import type { PlannedEpisode } from '../tasks/episodePlan.ts';
import { evaluateController, type Evaluation, type EvaluationOptions } from './evaluatePolicy.ts';
import { ppiRows, type PpiRow, type PpiUnit } from './ppiTable.ts';

export interface PpiEvaluationOptions
  extends Pick<EvaluationOptions, 'env' | 'controller' | 'store' | 'initialStatus' | 'onAbort' | 'signal'> {
  /** Real episodes; each is also predicted from its own start (paired). */
  realPlan: PlannedEpisode[];
  /** Further starts of the same task distribution, predicted only. */
  imaginedPlan: PlannedEpisode[];
  /** The prediction of each start (a 0-step episode: its first observation), in order, in [0, 1]. */
  predict: (starts: Episode[]) => Float32Array;
  onEpisode?: (episode: Episode, index: number) => void;
  /** A further start was recorded (done of total). */
  onStart?: (done: number, total: number) => void;
}

export interface PpiEvaluationUnit extends PpiUnit {
  seed: number;
  instruction: string;
}

export interface PpiEvaluation {
  /** The real episodes alone, as `evaluateController` counts them. */
  evaluation: Evaluation;
  /** The real episodes (outcome set) in plan order, then the further starts (outcome null). */
  units: PpiEvaluationUnit[];
  rows: PpiRow[];
}

export async function evaluateWithPredictions(o: PpiEvaluationOptions): Promise<PpiEvaluation> {
  const real: { start: Episode; outcome: number }[] = [];
  const evaluation = await evaluateController({
    ...o,
    plan: o.realPlan,
    onEpisode: (e, i) => {
      real.push({ start: episodeStart(e), outcome: e.success ? 1 : 0 });
      o.onEpisode?.(e, i);
    },
  });
  const further: Episode[] = [];
  for (const planned of o.imaginedPlan) {
    if (o.signal?.aborted) break;
    further.push(await recordStart(o.env, { ...planned, policy: o.controller.name, initialStatus: o.initialStatus }));
    o.onStart?.(further.length, o.imaginedPlan.length);
  }
  const starts = [...real.map((r) => r.start), ...further];
  const predicted = starts.length > 0 ? o.predict(starts) : new Float32Array(0);
  if (predicted.length !== starts.length)
    throw new Error(`the predictor gave ${predicted.length} predictions for ${starts.length} starts`);
  const units = starts.map((s, i) => {
    const p = predicted[i]!;
    if (!(p >= 0 && p <= 1)) throw new Error(`prediction ${p} for the start of seed ${s.seed} is not in [0, 1]`);
    return {
      family: s.task.family,
      split: s.task.split,
      seed: s.seed,
      instruction: s.task.instruction,
      predicted: p,
      outcome: i < real.length ? real[i]!.outcome : null,
    };
  });
  return { evaluation, units, rows: ppiRows(units) };
}
