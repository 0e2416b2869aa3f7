/**
 * An episode as the trainer sees it when outcomes come from the detector: `success` is the
 * detector's (bias-corrected) decision or, for a spot check, the operator's label, recorded as such
 * (`outcome`); the per-step success flags say only that; the dense progress, which a robot without
 * a task-status service does not have, is the detector's corrected probability per frame; and the
 * simulator's privileged object state is dropped. What the environment itself recorded is kept
 * apart by the caller, for measurement only.
 */
import type { Episode, EpisodeOutcome } from '../core/types.ts';

export interface DetectorDecision {
  success: boolean;
  outcome: EpisodeOutcome;
  /** T+1 corrected per-frame probabilities (the progress the trainer sees). */
  progress: Float32Array;
}

export function withDetectorOutcome(e: Episode, d: DetectorDecision): Episode {
  if (d.progress.length !== e.steps + 1)
    throw new Error(`episode ${e.id}: ${d.progress.length} per-frame scores for ${e.steps + 1} frames`);
  const successes = new Uint8Array(e.steps + 1);
  successes[e.steps] = d.success ? 1 : 0;
  const progress = Float32Array.from(d.progress, (p) => Math.min(1, Math.max(0, p)));
  progress[e.steps] = d.success
    ? Math.max(progress[e.steps]!, d.outcome.threshold)
    : Math.min(progress[e.steps]!, d.outcome.threshold);
  return { ...e, success: d.success, outcome: d.outcome, successes, progress, state: new Float32Array(0), stateDim: 0 };
}
