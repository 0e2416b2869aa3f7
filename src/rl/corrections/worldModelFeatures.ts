/**
 * The features a run appends to the world model's state (worldModel.endEffector, .keyframes): the gripper position,
 * and where configured the demonstrations' keyframes relative to it. A world model already saved in the run's folder
 * (or its resumed checkpoint) brings its own keyframe localiser; otherwise it is fitted here on the data, and its fits
 * logged.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type CheckpointManifest, MODEL_FILE } from '../../core/checkpoint.ts';
import type { RobotDescription } from '../../core/robotDescription.ts';
import type { RunLog } from '../../core/runLog.ts';
import type { Episode } from '../../core/types.ts';
import {
  type ArmPoses,
  EndEffectorFeatures,
  type EndEffectorOptions,
  gripperPosition,
} from '../../worldmodel/endEffectorFeatures.ts';
import { ArmKinematics } from '../../../sim/armKinematics.ts';
import type { VlaPolicy } from '../../policy/vlaPolicy.ts';
import type { WorldModel } from '../../worldmodel/worldModel.ts';
import { KeyframeLocaliser, keyframeLabels } from '../../worldmodel/keyframes.ts';
import { featureSources, perceptionLayout } from '../../worldmodel/perceptionWorldModel.ts';
import type { PerceptionLayout, WorldModelMeta } from '../../worldmodel/worldModel.ts';
import type { WmrlConfig } from '../config/wmrlConfig.ts';

/** What the features are computed from: the run's world-model settings, data and robot, the policy's latent width. */
export interface FeatureSetup extends Pick<WmrlConfig['worldModel'], 'keyframes'> {
  data: Episode[];
  robot: RobotDescription;
  latentDim: number;
}

export interface FeatureReporting {
  log: RunLog;
  onProgress?: (message: string) => void;
}

/**
 * The run's end-effector features; `perceived` is the data with the policy's perception as its state, `modelDir`
 * where a saved world model (and its localisers) may already be.
 */
export async function worldModelFeatures(
  setup: FeatureSetup,
  perceived: Episode[],
  modelDir: string | undefined,
  report: FeatureReporting,
): Promise<EndEffectorFeatures> {
  const layout = savedLayout(modelDir);
  // Compiled once (a mesh arm takes seconds): the keyframes' labels and the features share it.
  const kinematics = await ArmKinematics.create(setup.robot);
  try {
    const options = keyframeSource(setup, perceived, layout, report, kinematics);
    return new EndEffectorFeatures(setup.robot.name, kinematics, options);
  } catch (e) {
    kinematics.close();
    throw e;
  }
}

/** The end-effector features a loaded world model's state holds (computed for `robot`'s arm), if any. */
export async function featuresOfModel(
  model: WorldModel,
  policy: VlaPolicy,
  robot: RobotDescription,
): Promise<EndEffectorFeatures | undefined> {
  const layout = perceptionLayout(model, policy);
  if (!layout.endEffector) return undefined;
  return new EndEffectorFeatures(robot.name, await ArmKinematics.create(robot), featureSources(layout));
}

/** Where the features read the demonstrations' keyframes (worldModel.keyframes). */
function keyframeSource(
  setup: FeatureSetup,
  perceived: Episode[],
  layout: PerceptionLayout | undefined,
  report: FeatureReporting,
  kinematics: ArmPoses,
): EndEffectorOptions {
  if (!setup.keyframes) return {};
  if (layout?.keyframes) return { keyframes: KeyframeLocaliser.fromJSON(layout.keyframes) };
  const labels = keyframeLabels(setup.data, (e, t) => gripperPosition(kinematics, e, t));
  const localiser = KeyframeLocaliser.fit(perceived, labels, setup.latentDim);
  const fits = localiser.fits();
  report.log.log({ kind: 'keyframe-localiser', events: fits });
  const each = Object.entries(fits).map(
    ([event, families]) =>
      `${event}: ${Object.entries(families)
        .map(([f, x]) => `${f} ${(100 * x.rmse).toFixed(1)} cm over ${x.episodes}`)
        .join(', ')}`,
  );
  report.onProgress?.(`keyframes fitted (RMSE over successful episodes) ${each.join('; ')}`);
  return { keyframes: localiser };
}

/** The perception layout of the world model saved in `modelDir`, if one is. */
function savedLayout(modelDir: string | undefined): PerceptionLayout | undefined {
  const manifest = modelDir ? join(modelDir, MODEL_FILE) : undefined;
  if (!manifest || !existsSync(manifest)) return undefined;
  return (JSON.parse(readFileSync(manifest, 'utf8')) as CheckpointManifest<unknown, WorldModelMeta>).extra?.perception;
}
