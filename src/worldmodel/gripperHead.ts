/**
 * The gripper head's layout: which state dims a separate, small dynamics network predicts (the finger joints'
 * positions and velocities) and what it reads (those, the instructed object relative to the end effector and its
 * lift, and the gripper command). Whether fingers stop on a block or close on nothing turns on a centimetre of
 * block position: the joint dynamics network, predicting all of the state from all of it, averages the two
 * (one step from a real state it closes fingers 8 cm from the block as slowly as fingers on it), where a network
 * that reads only the gripper's neighbourhood learns the difference from the same data (docs/worldmodel.md).
 */
import { OBJECT_DIM } from './endEffectorFeatures.ts';
import type { StateModelDims } from './stateWorldModel.ts';

/** A set of state dims predicted by their own network from a few state and action dims. */
export interface LocalHeadLayout {
  /** State dims whose delta (mean and log-variance) the head predicts in place of the joint network's. */
  outputs: number[];
  /** State dims it reads (normalised). */
  stateInputs: number[];
  /** Action dims it reads. */
  actionInputs: number[];
}

/**
 * The gripper head of a state [qpos (qposDim), qvel (qposDim), …, object − end effector (3), lift] whose actions
 * are [arm joints, one gripper command]: the finger joints are the joint positions after the arm's.
 */
export function gripperHeadLayout(
  dims: StateModelDims,
  qposDim: number,
  perception: { object?: string } | undefined,
): LocalHeadLayout {
  if (!perception?.object)
    throw new Error(
      "the gripper head reads the object's position relative to the gripper: train the world model told the " +
        'object (wmrl train --worldModel.object=localised)',
    );
  const arm = dims.action - 1;
  if (qposDim <= arm)
    throw new Error(
      `the gripper head predicts the finger joints after the arm's ${arm}: the state has ${qposDim} joint positions`,
    );
  const fingers = Array.from({ length: qposDim - arm }, (_, i) => arm + i);
  const outputs = [...fingers, ...fingers.map((f) => qposDim + f)];
  const object = Array.from({ length: OBJECT_DIM }, (_, i) => dims.state - OBJECT_DIM + i);
  return { outputs, stateInputs: [...outputs, ...object], actionInputs: [dims.action - 1] };
}
