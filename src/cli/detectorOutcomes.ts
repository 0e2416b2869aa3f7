/**
 * `wmrl train --outcome detector`'s composition: the detector anchor runner around the
 * environment's runner, its spot-check correction (rebuilt from the run's stored anchors on
 * --resume), the simulated operator, and the per-step report (<out>/detector.metrics.jsonl,
 * drift on stderr).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { RobotDescription } from '../core/robotDescription.ts';
import { RunLog } from '../core/runLog.ts';
import type { Episode } from '../core/types.ts';
import { EpisodeStore, storeRobot } from '../data/episodeStore.ts';
import type { AnchorRunner } from '../rl/anchorRunner.ts';
import { runAnchorDir } from '../rl/runTraining.ts';
import type { WmrlConfig } from '../rl/wmrlConfig.ts';
import { detectorAnchorRunner, type AskOperator } from '../success/detectorAnchorRunner.ts';
import { SpotCheckCorrection } from '../success/spotCheckCorrection.ts';
import type { SuccessDetector } from '../success/successDetector.ts';

/** --detector names wmrl success train's --out or the checkpoint inside it. */
export function detectorDir(dir: string): string {
  return existsSync(join(dir, 'detector', 'model.json')) ? join(dir, 'detector') : dir;
}

/**
 * The simulator's operator: it answers with the outcome the simulator recorded, which only it
 * reads (the detector and the trainer get the relabelled episode).
 */
export const simulatedOperator: AskOperator = async (episode: Episode) => ({ success: episode.success });

export async function detectorAnchors(
  inner: AnchorRunner,
  detector: SuccessDetector,
  config: WmrlConfig,
  runDir: string,
  robot: RobotDescription,
  resume: boolean,
): Promise<AnchorRunner> {
  const o = config.outcome;
  const correction = new SpotCheckCorrection(
    { window: o.window, minChecks: o.minChecks, tolerance: o.driftTolerance },
    { threshold: detector.meta.threshold, heldOutErrorRate: detector.meta.heldOut?.errorRate ?? 0 },
  );
  const storeDir = runAnchorDir(runDir);
  if (resume && existsSync(storeDir))
    for await (const e of (await EpisodeStore.open(storeDir)).episodes())
      if (e.outcome?.source === 'operator') correction.add({ score: e.outcome.score, success: e.success });
  const log = new RunLog(
    runDir,
    'detector',
    { detector: detector.meta.heldOut, threshold: detector.meta.threshold, outcome: o },
    { append: resume },
  );
  return detectorAnchorRunner({
    inner,
    detector,
    correction,
    spotCheckFraction: o.spotChecks,
    askOperator: simulatedOperator,
    seed: config.seed,
    storeDir,
    store: storeRobot(robot),
    onReport: (r) => {
      log.log({ kind: 'anchors', ...r });
      if (r.drift.drifted) console.error(`  detector drift at step ${r.step}: ${r.drift.reasons.join('; ')}`);
    },
  });
}
