/**
 * The features a run appends to the world model's state (worldModel.endEffector, .goal, .object): the
 * gripper position, and where configured the goal and the instructed object relative to it. A world model
 * already saved in the run's folder (or its resumed checkpoint) brings its own localisers; otherwise they are
 * fitted here on the data, and their fits logged.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type CheckpointManifest, MODEL_FILE } from '../../core/checkpoint.ts';
import type { RobotDescription } from '../../core/robotDescription.ts';
import type { RunLog } from '../../core/runLog.ts';
import type { Episode } from '../../core/types.ts';
import { EndEffectorFeatures, type EndEffectorOptions } from '../../worldmodel/endEffectorFeatures.ts';
import { ArmKinematics } from '../../../sim/armKinematics.ts';
import { recordedObject } from '../../../sim/privilegedState.ts';
import type { VlaPolicy } from '../../policy/vlaPolicy.ts';
import type { WorldModel } from '../../worldmodel/worldModel.ts';
import { goalLabelsOfRobot } from './goalLabels.ts';
import { GoalLocaliser } from '../../worldmodel/goalLocaliser.ts';
import { ObjectLocaliser } from '../../worldmodel/objectLocaliser.ts';
import { KeyframeLocaliser, keyframeLabels } from '../../worldmodel/keyframes.ts';
import {
  featureSources,
  goalOfLayout,
  objectOfLayout,
  perceptionLayout,
} from '../../worldmodel/perceptionWorldModel.ts';
import type { PerceptionLayout, WorldModelMeta } from '../../worldmodel/worldModel.ts';
import type { WmrlConfig } from '../config/wmrlConfig.ts';

/** What the features are computed from: the run's world-model settings, data and robot, the policy's latent width. */
export interface FeatureSetup extends Pick<WmrlConfig['worldModel'], 'goal' | 'goalFrom' | 'object' | 'keyframes'> {
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
  return new EndEffectorFeatures(setup.robot.name, await ArmKinematics.create(setup.robot), {
    ...(await goalSource(setup, perceived, layout, report)),
    ...(await objectSource(setup, perceived, layout, report)),
    ...(await keyframeSource(setup, perceived, layout, report)),
  });
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

const GOAL_FROM_WORDS: Record<string, string> = { state: "simulator's state", gripper: "gripper's final position" };
const FEW_EPISODES_TERMS: Record<string, string> = { plane: 'a plane', mean: "each object kind's mean goal" };

/** Where the features read the task's goal (worldModel.goal). */
async function goalSource(
  setup: FeatureSetup,
  perceived: Episode[],
  layout: PerceptionLayout | undefined,
  report: FeatureReporting,
): Promise<EndEffectorOptions> {
  const { goal, goalFrom } = setup;
  if (goal === 'none') return {};
  // A model without one is refused once it is loaded, with the switch to pass.
  if (layout?.goal === 'localised') return goalOfLayout(layout);
  const labels = await goalLabelsOfRobot(setup.data, goalFrom, setup.robot);
  const localiser = GoalLocaliser.fit(perceived, labels, setup.latentDim);
  const fits = Object.entries(localiser.families);
  const from = { state: 0, gripper: 0 };
  for (const l of labels) if (l) from[l.from]++;
  report.log.log({
    kind: 'goal-localiser',
    goalsFrom: from,
    families: Object.fromEntries(fits.map(([f, x]) => [f, { rmse: x.rmse, episodes: x.episodes, terms: x.terms }])),
  });
  const each = fits.map(([f, x]) => {
    const few = x.terms === 'cubic' ? '' : ` (${FEW_EPISODES_TERMS[x.terms!]}: few episodes)`;
    return `${f} ${(100 * x.rmse).toFixed(1)} cm RMSE over ${x.episodes} episodes${few}`;
  });
  const sources = Object.entries(from).flatMap(([k, n]) => (n ? [`${n} from the ${GOAL_FROM_WORDS[k]}`] : []));
  report.onProgress?.(`goal localiser fitted (goals: ${sources.join(', ')}): ${each.join(', ')}`);
  return { goal: localiser };
}

/** Where the features read the instructed object (worldModel.object). */
async function objectSource(
  setup: FeatureSetup,
  perceived: Episode[],
  layout: PerceptionLayout | undefined,
  report: FeatureReporting,
): Promise<EndEffectorOptions> {
  if (setup.object === 'none') return {};
  if (layout?.object === 'localised') return objectOfLayout(layout);
  const gripper = new EndEffectorFeatures(setup.robot.name, await ArmKinematics.create(setup.robot));
  let localiser: ObjectLocaliser;
  try {
    // The object where the simulator recorded it (its privileged state): simulator demonstrations give it.
    const objectAt = (i: number, t: number) => recordedObject(setup.data[i]!.state, setup.data[i]!.stateDim, t);
    localiser = ObjectLocaliser.fit(perceived, setup.latentDim, objectAt, (i, t) =>
      gripper.gripperAt(setup.data[i]!, t),
    );
  } finally {
    gripper.close();
  }
  const fits = Object.entries(localiser.families);
  report.log.log({
    kind: 'object-localiser',
    families: Object.fromEntries(fits.map(([f, x]) => [f, { rmse: x.rmse, episodes: x.episodes, frames: x.frames }])),
  });
  const each = fits.map(([f, x]) => `${f} ${(100 * x.rmse).toFixed(1)} cm RMSE over ${x.episodes} episodes`);
  report.onProgress?.(`object localiser fitted: ${each.join(', ')}`);
  return { object: localiser };
}

/** Where the features read the demonstrations' keyframes (worldModel.keyframes). */
async function keyframeSource(
  setup: FeatureSetup,
  perceived: Episode[],
  layout: PerceptionLayout | undefined,
  report: FeatureReporting,
): Promise<EndEffectorOptions> {
  if (!setup.keyframes) return {};
  if (layout?.keyframes) return { keyframes: KeyframeLocaliser.fromJSON(layout.keyframes) };
  const gripper = new EndEffectorFeatures(setup.robot.name, await ArmKinematics.create(setup.robot));
  let localiser: KeyframeLocaliser;
  try {
    const labels = keyframeLabels(setup.data, (e, t) => gripper.gripperAt(e, t).xyz);
    localiser = KeyframeLocaliser.fit(perceived, labels, setup.latentDim);
  } finally {
    gripper.close();
  }
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
