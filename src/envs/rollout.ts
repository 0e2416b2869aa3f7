/** Run one episode of a controller in an env and record it. */
import type { Episode, TaskSpec } from '../core/types.ts';
import { EpisodeRecorder } from './episodeRecorder.ts';
import type { Controller } from '../core/controller.ts';
import { EpisodeAbortedError, type Env } from './env.ts';
import { EpisodeStoppedError } from './episodeStopped.ts';

export interface RolloutOptions {
  task: TaskSpec;
  seed: number;
  /** Initial progress/success of the reset state (envs that can tell; default 0/false). */
  initialStatus?: () => { progress: number; success: boolean };
  /** End the episode (complete) after this many steps, before the task's horizon. */
  maxSteps?: number;
  /** Looked at before every action: once aborted, nothing more is sent and EpisodeStoppedError is thrown. */
  signal?: AbortSignal;
  /** After reset and after every step, with the recording so far (a live view). */
  onStep?: (recorder: EpisodeRecorder) => void;
}

export async function runEpisode(env: Env, controller: Controller, options: RolloutOptions): Promise<Episode> {
  let observation = await env.reset({ task: options.task, seed: options.seed });
  controller.reset(options.task, options.seed);
  const recorder = new EpisodeRecorder(
    {
      robot: env.robot.name,
      task: options.task,
      seed: options.seed,
      source: env.source,
      policy: controller.name,
      controlHz: env.robot.controlHz,
    },
    observation,
    options.initialStatus?.() ?? { progress: 0, success: false },
  );
  options.onStep?.(recorder);
  try {
    while (recorder.steps < (options.maxSteps ?? Infinity)) {
      if (options.signal?.aborted) throw new EpisodeStoppedError(recorder.finish('aborted'));
      const action = controller.act(observation);
      const result = await env.step(action);
      recorder.record(action, result.observation, result.reward, result.success);
      options.onStep?.(recorder);
      observation = result.observation;
      if (result.done) break;
    }
  } catch (err) {
    // Hand the partial episode to the caller, marked aborted: it may keep it for inspection, never as complete.
    if (err instanceof EpisodeAbortedError) err.episode = recorder.finish('aborted');
    throw err;
  }
  return recorder.finish('complete');
}
