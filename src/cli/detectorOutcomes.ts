/**
 * `wmrl train --outcome detector`'s composition: the detector anchor runner around the
 * environment's runner, its spot-check correction (rebuilt from the run's stored anchors on
 * --resume), who answers the spot checks (the operator desk or, in the simulator, a simulated
 * operator), and the per-step report (<out>/detector.metrics.jsonl, drift on stderr).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { RobotDescription } from '../core/robotDescription.ts';
import { RunLog } from '../core/runLog.ts';
import type { Episode } from '../core/types.ts';
import { EpisodeStore, storeRobot } from '../data/episodeStore.ts';
import type { AskOperator } from '../operator/askOperator.ts';
import type { AnchorRunner } from '../rl/run/anchorRunner.ts';
import { runAnchorDir } from '../rl/run/runTraining.ts';
import type { WmrlConfig } from '../rl/config/wmrlConfig.ts';
import { detectorAnchorRunner } from '../success/detectorAnchorRunner.ts';
import { SpotCheckCorrection } from '../success/spotCheckCorrection.ts';
import type { SuccessDetector } from '../success/successDetector.ts';
import { UsageError } from './args.ts';

/** --detector names wmrl success train's --out or the checkpoint inside it. */
export function detectorDir(dir: string): string {
  return existsSync(join(dir, 'detector', 'model.json')) ? join(dir, 'detector') : dir;
}

/**
 * The simulator's operator: it answers with the outcome the simulator recorded, which only it
 * reads (the detector and the trainer get the relabelled episode).
 */
export const simulatedOperator: AskOperator = async (episode: Episode) => ({ success: episode.success });

/** Who answers the detector's spot checks: nobody (no spot checks), the simulated operator, or a person. */
export type SpotCheckAnswerer = 'none' | 'simulated' | 'desk';

/**
 * `outcome.spotCheckOperator` resolved once, for where the anchors run: on a robot (`--env
 * rosbridge`, a pool, remote workers) the environment's outcome is what the detector stands in for,
 * so only a person can check it.
 */
export function spotCheckAnswerer(outcome: WmrlConfig['outcome'], where: { onRobot: boolean }): SpotCheckAnswerer {
  if (outcome.source !== 'detector' || outcome.spotChecks === 0) return 'none';
  if (outcome.spotCheckOperator === 'simulated' && where.onRobot)
    throw new UsageError(
      "outcome.spotCheckOperator=simulated answers with the simulator's own outcome, which a robot does not " +
        'have: its spot checks go to the operator desk (outcome.spotCheckOperator=auto or desk)',
    );
  if (outcome.spotCheckOperator === 'auto') return where.onRobot ? 'desk' : 'simulated';
  return outcome.spotCheckOperator;
}

export interface DetectorAnchorsOptions {
  inner: AnchorRunner;
  detector: SuccessDetector;
  config: WmrlConfig;
  runDir: string;
  robot: RobotDescription;
  resume: boolean;
  /** Who answers the spot checks (unused with outcome.spotChecks 0). */
  askOperator: AskOperator;
}

export async function detectorAnchors(a: DetectorAnchorsOptions): Promise<AnchorRunner> {
  const { config, detector, runDir } = a;
  const o = config.outcome;
  const correction = new SpotCheckCorrection(
    { window: o.window, minChecks: o.minChecks, tolerance: o.driftTolerance },
    { threshold: detector.meta.threshold, heldOutErrorRate: detector.meta.heldOut?.errorRate ?? 0 },
  );
  // What the run's anchor store holds: its spot checks count again (once each), its episodes are not redone.
  const storeDir = runAnchorDir(runDir);
  const stored = new Set<string>();
  if (a.resume && existsSync(storeDir))
    for await (const e of (await EpisodeStore.open(storeDir)).episodes()) {
      stored.add(e.id);
      if (e.outcome?.source === 'operator')
        correction.add({ score: e.outcome.score, success: e.success, episode: e.id });
    }
  const log = new RunLog(
    runDir,
    'detector',
    { detector: detector.meta.heldOut, threshold: detector.meta.threshold, outcome: o },
    { append: a.resume },
  );
  return detectorAnchorRunner({
    inner: a.inner,
    detector,
    correction,
    spotCheckFraction: o.spotChecks,
    askOperator: a.askOperator,
    labels: config.operator,
    seed: config.seed,
    storeDir,
    store: storeRobot(a.robot),
    stored,
    onReport: (r) => {
      log.log({ kind: 'anchors', ...r });
      if (r.drift.drifted) console.error(`  detector drift at step ${r.step}: ${r.drift.reasons.join('; ')}`);
    },
  });
}
