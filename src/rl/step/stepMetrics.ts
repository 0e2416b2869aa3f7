/** What one training step logs (a `step` line of train.metrics.jsonl), and the clock of its phases. */
import type { RankAgreement } from '../../eval/rankAgreement.ts';
import type { PpiEstimate } from '../../eval/ppiEstimate.ts';
import type { WmrlConfig } from '../config/wmrlConfig.ts';

export interface StepMetrics {
  step: number;
  mode: WmrlConfig['mode'];
  anchorGroups: number;
  /** The probability each group had of being an anchor group (uniform draw). */
  anchorInclusionProbability: number;
  imaginedRollouts: number;
  /** Anchor rollouts used (with operator outcomes: those of fully labelled groups). */
  realRollouts: number;
  /** Outcome operator: anchor episodes executed but left out for want of a label (skipped or timed out). */
  unlabelledAnchors: number;
  successImagined: number | null;
  successCalibrated: number | null;
  successAnchors: number | null;
  /**
   * Within-group AUC of this step's anchor rollouts: imagined (with the
   * noise they were executed with) raw scores against real outcomes.
   */
  anchorRank: RankAgreement | null;
  /** λ, the weight of one imagined policy sample relative to a real one (null: no imagined groups). */
  imaginedWeight: number | null;
  ppi: PpiEstimate | null;
  debiasMap: { x: number[]; y: number[] };
  calibrationPairs: number;
  anchorWeight: number;
  ensembleWeight: { min: number; max: number } | null;
  ensembleVariance: number | null;
  kl: number;
  clipFraction: number;
  /** Adam steps of the policy update (epochs × minibatches; 0 without samples). */
  updates: number;
  worldModelRefit: 'full' | false;
  /**
   * Episodes of the starting policy run before this step to refit
   * the world model (config worldModel.warmupEpisodes; step 1 only).
   */
  worldModelWarmupEpisodes: number;
  /** Robot time of the warm-up's episodes (included in robotSeconds). */
  worldModelWarmupRobotSeconds: number;
  robotSeconds: number;
  computeSeconds: number;
  /** Wall seconds of this step's phases. */
  phaseSeconds: StepPhases;
  /**
   * This process's CPU seconds (user + system) in each phase: the compute a step costs on a
   * machine of its own, where the wall clock also counts other jobs' turns on shared cores.
   */
  phaseCpuSeconds: StepPhases;
  numTensors: number;
}

export interface StepPhases {
  warmup: number;
  /** Imagining the step's groups and the anchor groups' predictions. */
  imagine: number;
  /** Running the anchor groups (robot time's wall clock, and waiting for robots). */
  anchors: number;
  /** Calibration, weights, the PPO update and the PPI estimate. */
  update: number;
  refit: number;
}

/** Wall and CPU seconds of a step's phases, for the metrics log: where a step's compute goes. */
export function phaseClock(): { lap(phase: keyof StepPhases): void; laps: StepPhases; cpu: StepPhases } {
  const laps: StepPhases = { warmup: 0, imagine: 0, anchors: 0, update: 0, refit: 0 };
  const cpu: StepPhases = { ...laps };
  let last = performance.now();
  let lastCpu = process.cpuUsage();
  return {
    lap(phase) {
      const now = performance.now();
      const nowCpu = process.cpuUsage();
      laps[phase] += (now - last) / 1000;
      cpu[phase] += (nowCpu.user - lastCpu.user + nowCpu.system - lastCpu.system) / 1e6;
      last = now;
      lastCpu = nowCpu;
    },
    laps,
    cpu,
  };
}

/** The mean of `values` (null when there are none). */
export function meanOrNull(values: ArrayLike<number> | undefined): number | null {
  if (!values?.length) return null;
  let s = 0;
  for (let i = 0; i < values.length; i++) s += values[i]!;
  return s / values.length;
}
