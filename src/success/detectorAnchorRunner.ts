/**
 * Anchor runs whose outcomes come from the success detector: the wrapped runner executes the
 * request (and keeps the environment's own record in its store); each episode is scored by the
 * detector; a seeded random share of them goes to the operator as spot checks (askSpotChecks),
 * whose labels correct the detector's bias (SpotCheckCorrection) and stand in for the detector on
 * those episodes; the episodes, relabelled (withDetectorOutcome), are stored once in `storeDir`, the
 * run's anchor store, and returned. An operator's 'skip', or no answer by the label timeout, leaves
 * that episode to the detector.
 *
 * Exactly once: an episode the run's anchor store already holds (a robot pool serves a killed step's
 * episodes again after --resume, under their stable ids) comes back as stored, neither asked nor
 * counted again.
 */
import { Rng } from '../core/rng.ts';
import type { Episode } from '../core/types.ts';
import { EpisodeStore, type CreateOptions } from '../data/episodeStore.ts';
import type { AskOperator } from '../operator/askOperator.ts';
import type { AnchorRequest, AnchorRunner } from '../rl/run/anchorRunner.ts';
import type { OperatorSettings } from '../rl/run/operatorOutcomes.ts';
import { askSpotChecks } from './askSpotChecks.ts';
import { withDetectorOutcome } from './detectorOutcome.ts';
import type { DetectorDrift, SpotCheckCorrection } from './spotCheckCorrection.ts';
import type { SuccessDetector } from './successDetector.ts';

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
  /** How long a request waits for its spot checks, and what then (`operator.*`). */
  labels: OperatorSettings;
  /** Seeds which episodes are spot-checked (with the step: the same choice after --resume). */
  seed: number;
  /** The run's anchor store (what the trainer reads back on resume). */
  storeDir: string;
  store: Pick<CreateOptions, 'robot' | 'robotPath'>;
  /** Ids the anchor store held when the run (re)started. */
  stored?: ReadonlySet<string>;
  onReport?: (r: DetectorAnchorReport) => void;
}

export function detectorAnchorRunner(o: DetectorAnchorOptions): AnchorRunner {
  const families = new Set(o.detector.meta.families);
  const stored = new Set(o.stored ?? []);
  return {
    async run(request: AnchorRequest): Promise<Episode[]> {
      const raw = await o.inner.run(request);
      const untrusted = raw.find((e) => !families.has(e.task.family));
      if (untrusted)
        throw new Error(
          `the success detector was trained on ${[...families].join(', ')} episodes, not ` +
            `${untrusted.task.family} (episode ${untrusted.id}); train one on that family with wmrl success train`,
        );
      const again = new Set(raw.filter((e) => stored.has(e.id)).map((e) => e.id));
      const before = again.size > 0 ? await readStored(o.storeDir, again) : new Map<string, Episode>();
      const fresh = raw.filter((e) => !before.has(e.id));
      const frames = o.detector.scoreFrames(fresh.flatMap((episode) => frameRefs(episode)));
      // Drawn over the whole request, stored episodes included: the same episodes are picked after --resume.
      const rng = new Rng(o.seed * 100_003 + request.step);
      const picked = new Set(raw.filter(() => rng.next() < o.spotCheckFraction).map((e) => e.id));
      const threshold = o.correction.threshold;
      let offset = 0;
      const scored = fresh.map((e) => {
        const perFrame = frames.subarray(offset, offset + e.steps + 1);
        offset += e.steps + 1;
        return { episode: e, perFrame, score: perFrame[e.steps]! };
      });
      // Spot checks first: this request's labels correct its own other episodes too.
      const spot = scored.filter((s) => picked.has(s.episode.id));
      const verdicts = await askSpotChecks(spot, o.askOperator, o.labels, request.step);
      const labels = new Map<string, boolean>();
      let disagreements = 0;
      for (const [i, s] of spot.entries()) {
        const verdict = verdicts[i]!;
        if (verdict === 'skip' || verdict === 'timeout') continue;
        labels.set(s.episode.id, verdict.success);
        o.correction.add({ score: s.score, success: verdict.success, episode: s.episode.id });
        if (s.score >= threshold !== verdict.success) disagreements++;
      }
      const bias = o.correction.bias();
      const relabelled = new Map(
        scored.map((s) => {
          const label = labels.get(s.episode.id);
          const corrected = o.correction.corrected(s.score);
          const success = label ?? corrected >= threshold;
          const source = label === undefined ? 'detector' : 'operator';
          const episode = withDetectorOutcome(s.episode, {
            success,
            outcome: { source, score: s.score, corrected, threshold },
            progress: Float32Array.from(s.perFrame, (p) => p - bias),
          });
          return [episode.id, episode] as const;
        }),
      );
      if (relabelled.size > 0) {
        const store = await EpisodeStore.openForAppend(o.storeDir, o.store);
        try {
          for (const e of relabelled.values()) await store.append(e);
        } finally {
          await store.close();
        }
        for (const id of relabelled.keys()) stored.add(id);
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
      return raw.map((e) => before.get(e.id) ?? relabelled.get(e.id)!);
    },
  };
}

/** The stored (relabelled) copies of the episodes in `ids`. */
async function readStored(dir: string, ids: ReadonlySet<string>): Promise<Map<string, Episode>> {
  const out = new Map<string, Episode>();
  for await (const e of (await EpisodeStore.open(dir)).episodes()) if (ids.has(e.id)) out.set(e.id, e);
  return out;
}

function frameRefs(episode: Episode) {
  return Array.from({ length: episode.steps + 1 }, (_, step) => ({ episode, step }));
}
