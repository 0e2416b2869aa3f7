/**
 * An episode's start without its episode: the env is reset to the task and seed and its first
 * observation recorded as a 0-step episode. Imagination starts from it (a world model's estimate
 * of an episode nobody runs); no action is sent, so it costs a reset and no control time.
 */
import type { Episode, TaskSpec } from '../core/types.ts';
import { EpisodeRecorder } from './episodeRecorder.ts';
import type { Env } from './env.ts';
import { runWithReruns } from './rerunAborted.ts';

export interface StartOptions {
  task: TaskSpec;
  seed: number;
  /** Recorded as the episodes' `policy`. */
  policy: string;
  /** Initial progress/success of the reset state (envs that can tell; default 0/false). */
  initialStatus?: () => { progress: number; success: boolean };
  /** Aborted resets in a row before giving up (default 3). */
  maxAttempts?: number;
}

export async function recordStart(env: Env, o: StartOptions): Promise<Episode> {
  // An aborted reset waits for the robot to answer again before the next attempt, as an episode does.
  return runWithReruns(
    env,
    async () => {
      const observation = await env.reset({ task: o.task, seed: o.seed });
      const recorder = new EpisodeRecorder(
        {
          robot: env.robot.name,
          task: o.task,
          seed: o.seed,
          source: env.source,
          policy: o.policy,
          controlHz: env.robot.controlHz,
        },
        observation,
        o.initialStatus?.() ?? { progress: 0, success: false },
      );
      return recorder.finish('complete');
    },
    { what: `the start of seed ${o.seed}`, ...(o.maxAttempts !== undefined ? { maxAttempts: o.maxAttempts } : {}) },
  );
}

/**
 * The first observation of a recorded episode as a 0-step episode of its own: a copy, so that
 * keeping many starts does not keep every episode's frames alive.
 */
export function episodeStart(e: Episode): Episode {
  const cameras: Episode['cameras'] = {};
  for (const [name, cam] of Object.entries(e.cameras))
    cameras[name] = { ...cam, frames: cam.frames.slice(0, cam.width * cam.height * 3) };
  return {
    ...e,
    steps: 0,
    success: e.successes[0] === 1,
    actions: new Float32Array(0),
    qpos: e.qpos.slice(0, e.qposDim),
    qvel: e.qvel.slice(0, e.qposDim),
    state: e.state.slice(0, e.stateDim),
    progress: e.progress.slice(0, 1),
    successes: e.successes.slice(0, 1),
    cameras,
  };
}
