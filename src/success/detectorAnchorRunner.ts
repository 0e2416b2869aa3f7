/**
 * Anchor runs whose outcomes come from the success detector: the wrapped runner executes the
 * request (and keeps the environment's own record in its store); each episode is scored by the
 * detector; a seeded random share of them goes to the operator as spot checks, whose labels
 * correct the detector's bias (SpotCheckCorrection) and stand in for the detector on those
 * episodes; the episodes, relabelled (withDetectorOutcome), are stored once in `storeDir`, the run's
 * anchor store, and returned. An operator's 'skip' leaves that episode to the detector.
 */
import { Rng } from '../core/rng.ts';
import type { Episode } from '../core/types.ts';
import { EpisodeStore, type CreateOptions } from '../data/episodeStore.ts';
import type { AnchorRequest, AnchorRunner } from '../rl/anchorRunner.ts';
import { withDetectorOutcome } from './detectorOutcome.ts';
import type { DetectorDrift, SpotCheckCorrection } from './spotCheckCorrection.ts';
import type { SuccessDetector } from './successDetector.ts';

/** An operator's answer for one episode: its outcome, or 'skip' (cannot tell). */
export type OperatorAnswer = { success: boolean; note?: string } | 'skip';
export type AskOperator = (episode: Episode) => Promise<OperatorAnswer>;

export interface DetectorAnchorReport {
  step: number;
  episodes: number;
  spotChecks: number;
  /** Operator labels that differed from the detector's raw decision. */
  disagreements: number;
  /** Mean detector score and the bias subtracted from it. */
  meanScore: number;
  bias: number;
  /** The PPI estimate of the anchors' success rate (null until two spot checks). */
  estimate: { estimate: number; lower: number; upper: number } | null;
  drift: DetectorDrift;
}

export interface DetectorAnchorOptions {
  inner: AnchorRunner;
  detector: SuccessDetector;
  correction: SpotCheckCorrection;
  /** Share of anchor episodes sent to the operator. */
  spotCheckFraction: number;
  askOperator: AskOperator;
  /** Seeds which episodes are spot-checked (with the step: the same choice after --resume). */
  seed: number;
  /** The run's anchor store (what the trainer reads back on resume). */
  storeDir: string;
  store: Pick<CreateOptions, 'robot' | 'robotPath'>;
  onReport?: (r: DetectorAnchorReport) => void;
}

export function detectorAnchorRunner(o: DetectorAnchorOptions): AnchorRunner {
  const families = new Set(o.detector.meta.families);
  return {
    async run(request: AnchorRequest): Promise<Episode[]> {
      const raw = await o.inner.run(request);
      const untrusted = raw.find((e) => !families.has(e.task.family));
      if (untrusted)
        throw new Error(
          `the success detector was trained on ${[...families].join(', ')} episodes, not ` +
            `${untrusted.task.family} (episode ${untrusted.id}); train one on that family with wmrl success train`,
        );
      const frames = o.detector.scoreFrames(raw.flatMap((episode) => frameRefs(episode)));
      const rng = new Rng(o.seed * 100_003 + request.step);
      const spot = raw.map(() => rng.next() < o.spotCheckFraction);
      const threshold = o.correction.threshold;
      let offset = 0;
      const scored = raw.map((e) => {
        const perFrame = frames.subarray(offset, offset + e.steps + 1);
        offset += e.steps + 1;
        return { episode: e, perFrame, score: perFrame[e.steps]! };
      });
      // Spot checks first: this request's labels correct its own other episodes too.
      const labels = new Map<number, boolean>();
      let disagreements = 0;
      for (const [i, s] of scored.entries()) {
        if (!spot[i]) continue;
        const answer = await o.askOperator(s.episode);
        if (answer === 'skip') continue;
        labels.set(i, answer.success);
        o.correction.add({ score: s.score, success: answer.success });
        if (s.score >= threshold !== answer.success) disagreements++;
      }
      const bias = o.correction.bias();
      const relabelled = scored.map((s, i) => {
        const label = labels.get(i);
        const corrected = o.correction.corrected(s.score);
        const success = label ?? corrected >= threshold;
        return withDetectorOutcome(s.episode, {
          success,
          outcome: { source: label === undefined ? 'detector' : 'operator', score: s.score, corrected, threshold },
          progress: Float32Array.from(s.perFrame, (p) => p - bias),
        });
      });
      const store = await EpisodeStore.openForAppend(o.storeDir, o.store);
      try {
        for (const e of relabelled) await store.append(e);
      } finally {
        await store.close();
      }
      const estimate = o.correction.estimate(scored.map((s) => s.score));
      o.onReport?.({
        step: request.step,
        episodes: raw.length,
        spotChecks: labels.size,
        disagreements,
        meanScore: scored.reduce((m, s) => m + s.score, 0) / Math.max(1, scored.length),
        bias,
        estimate: estimate && { estimate: estimate.estimate, lower: estimate.lower, upper: estimate.upper },
        drift: o.correction.drift(),
      });
      return relabelled;
    },
  };
}

function frameRefs(episode: Episode) {
  return Array.from({ length: episode.steps + 1 }, (_, step) => ({ episode, step }));
}
