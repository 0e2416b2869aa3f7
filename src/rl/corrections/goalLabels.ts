/**
 * Where each recorded episode's goal was: what the goal localiser (goalLocaliser.ts) is fitted on.
 *
 * - `state`: the privileged state's last three numbers (`sim/privilegedState.ts`). The simulator
 *   records them; a robot over rosbridge does not.
 * - `gripper`: the gripper position at the last step a successful episode succeeded (forward
 *   kinematics of its joint positions), the goal as a demonstration shows it: a successful reach
 *   ends at the hover point, a pick at the lifted object, a push behind the block at the zone. It needs
 *   nothing but joint states and the outcome, so an arm's own demonstrations give it. Failed episodes
 *   give none.
 * - `auto`: the state's goal where an episode records it, else the gripper's.
 */
import type { RobotDescription } from '../../core/robotDescription.ts';
import type { Episode } from '../../core/types.ts';
import type { GoalLabel } from '../../worldmodel/goalLocaliser.ts';
import { ArmKinematics } from '../../../sim/armKinematics.ts';
import { recordedGoal } from '../../../sim/privilegedState.ts';

export const GOAL_SOURCES = ['auto', 'state', 'gripper'] as const;
export type GoalLabelSource = (typeof GOAL_SOURCES)[number];

/**
 * The goal of each of `recorded` from `source`, undefined where it gives none; `gripperAt` is the
 * end effector's position for an episode's joint positions at one step (the robot's kinematics).
 */
export function goalLabels(
  recorded: Episode[],
  source: GoalLabelSource,
  gripperAt: (qpos: Float32Array) => ArrayLike<number>,
): (GoalLabel | undefined)[] {
  return recorded.map((e) => {
    const state = source === 'gripper' ? undefined : stateGoal(e);
    if (state || source === 'state') return state;
    const t = lastSuccessStep(e);
    if (t === undefined) return undefined;
    const p = gripperAt(e.qpos.subarray(t * e.qposDim, (t + 1) * e.qposDim));
    return { xyz: [p[0]!, p[1]!, p[2]!], from: 'gripper' };
  });
}

/** The goal the privileged state records at the first step, if it records one. */
function stateGoal(e: Episode): GoalLabel | undefined {
  const g = recordedGoal(e.state, e.stateDim);
  return g ? { xyz: [g[0]!, g[1]!, g[2]!], from: 'state' } : undefined;
}

/**
 * The last step at which a successful episode's success held; its last step where the outcome came
 * without per-step flags (an operator's label, a detector's); undefined for a failed episode.
 */
function lastSuccessStep(e: Episode): number | undefined {
  if (!e.success) return undefined;
  for (let t = e.steps; t >= 0; t--) if (e.successes[t]) return t;
  return e.steps;
}

/** goalLabels with `robot`'s kinematics (loaded only when some episode's goal is read from its gripper). */
export async function goalLabelsOfRobot(
  recorded: Episode[],
  source: GoalLabelSource,
  robot: RobotDescription,
): Promise<(GoalLabel | undefined)[]> {
  if (source === 'state' || (source === 'auto' && recorded.every((e) => stateGoal(e))))
    return goalLabels(recorded, source, () => []);
  const kinematics = await ArmKinematics.create(robot);
  try {
    return goalLabels(recorded, source, (qpos) => kinematics.pose(qpos.subarray(0, kinematics.nArm)).pos);
  } finally {
    kinematics.close();
  }
}
