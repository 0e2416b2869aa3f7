/**
 * Resets done by a person, for robots without a reset service: the env asks the operator to set
 * the scene up for a task, waits for the confirmation, and the episode starts from what the robot
 * then observes (its first observation is the episode's recorded start; nothing is assumed about
 * the layout). The env knows only this function type; `wmrl` builds it over the operator desk
 * (src/operator/operatorDesk.ts: the viewer's panel and the terminal prompt).
 */
import type { TaskSpec } from '../core/types.ts';

/** What the operator is asked to set up before an episode. */
export interface SceneSetup {
  /** The robot (its name in the pool or description). */
  robot: string;
  task: TaskSpec;
  /** The group's scene seed: every rollout of a group asks for the same scene. */
  seed: number;
}

/** Resolves once the operator confirms the scene is ready; rejects when `signal` aborts. */
export type ConfirmReset = (setup: SceneSetup, signal?: AbortSignal) => Promise<void>;

/** What to set up, in words the operator acts on. */
export function setupSteps(setup: SceneSetup): string[] {
  const { task, seed } = setup;
  const target = `the ${task.color} ${task.object}`;
  const place =
    task.family === 'push' && task.zoneColor
      ? `place ${target} on the table, clear of the ${task.zoneColor} goal zone`
      : `place ${target} on the table within the arm's reach`;
  return [
    'move the arm to its home pose, gripper open',
    place,
    `scene seed ${seed}: set every rollout of this group up the same way (the same start, as far as you can)`,
    'keep hands and tools out of the workspace before confirming',
  ];
}
