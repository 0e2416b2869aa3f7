/**
 * What a training step reads and what it changes. `Trainer` holds the run's fixed parts and the
 * learning state; `LearningState` is everything a step changes, which a checkpoint saves whole
 * (src/rl/run/trainCheckpoint.ts), so a killed run resumes exactly where it stopped.
 */
import type * as tf from '@tensorflow/tfjs';
import type { Episode } from '../../core/types.ts';
import type { Env } from '../../envs/env.ts';
import type { AskOperator } from '../../operator/askOperator.ts';
import type { VlaPolicy } from '../../policy/vlaPolicy.ts';
import type { EndEffectorFeatures } from '../../worldmodel/endEffectorFeatures.ts';
import type { WorldModel } from '../../worldmodel/worldModel.ts';
import type { AnchorRunner } from '../run/anchorRunner.ts';
import type { AnchorWeight } from '../corrections/denoisingWeights.ts';
import type { IsotonicCalibrator } from '../corrections/isotonicCalibrator.ts';
import type { Method } from '../config/method.ts';
import type { PpiWindow } from '../estimates/ppiWindow.ts';
import type { StartPool } from './startPool.ts';
import type { WmrlConfig } from '../config/wmrlConfig.ts';

export interface Trainer {
  readonly config: WmrlConfig;
  /** The config's mode and switches, resolved once. */
  readonly method: Method;
  /** The behaviour-cloned policy: the KL reference. */
  readonly reference: VlaPolicy;
  readonly pool: StartPool;
  /** The world model's training data in its layout (perception episodes), for refits. */
  readonly modelData: Episode[];
  /** The end-effector features of the world model's state, if it has them. */
  readonly endEffector?: EndEffectorFeatures;
  /** Where anchor (and warm-up) episodes run and are stored. */
  readonly anchors: AnchorRunner;
  /** Where measurements run (imagination and PPI checks): never charged, never stored. */
  readonly env: Env;
  /** Who labels anchor outcomes when the config says `--outcome operator`. */
  readonly askOperator?: AskOperator;
  readonly learning: LearningState;
  readonly onProgress?: (what: string) => void;
  /** Each real episode of a step as it finishes. */
  readonly onEpisode?: (done: number, total: number) => void;
}

export interface LearningState {
  policy: VlaPolicy;
  optimizer: tf.Optimizer;
  worldModel?: WorldModel;
  calibrator: IsotonicCalibrator;
  anchorWeight: AnchorWeight;
  /** The latest anchor groups' prediction errors, for the PPI estimate. */
  ppiWindow: PpiWindow;
  progress: TrainingProgress;
  /**
   * Anchor episodes of completed steps in the world model's layout,
   * for refits (rebuilt from anchors/ on resume).
   */
  anchorModelEpisodes: Episode[];
}

export interface TrainingProgress {
  /** Steps completed. */
  step: number;
  robotSeconds: number;
  computeSeconds: number;
  realEpisodes: number;
  /** Anchor episodes (in <run>/anchors) that belong to completed steps. */
  anchorEpisodeIds: string[];
}
