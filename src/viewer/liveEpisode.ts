/**
 * The episode a command is running now, for the viewer (`wmrl run --view`): the rollout hands
 * over its recorder after every step; the viewer packs it when a page asks. Each episode keeps
 * one id while it runs, so the page can follow it step by step.
 */
import type { Episode } from '../core/types.ts';
import type { EpisodeRecorder } from '../envs/episodeRecorder.ts';
import type { EpisodeSummary } from './messages.ts';

export class LiveEpisode {
  /** Bumped on every update: the viewer's poll compares it. */
  version = 0;
  /** Episodes begun so far. */
  count = 0;
  #recorder: EpisodeRecorder | undefined;
  #id = '';
  #ended = false;

  /** The rollout's onStep: a new recorder is a new episode. */
  update(recorder: EpisodeRecorder): void {
    if (recorder !== this.#recorder) {
      this.#recorder = recorder;
      this.count++;
      this.#id = `live-${this.count}`;
      this.#ended = false;
    }
    this.version++;
  }

  /** The episode finished or stopped: it stays on show until the next begins. */
  end(): void {
    this.#ended = true;
    this.version++;
  }

  get ended(): boolean {
    return this.#ended;
  }

  get id(): string | undefined {
    return this.#recorder ? this.#id : undefined;
  }

  /** The recording so far, under the live id. */
  episode(): Episode | undefined {
    const recorder = this.#recorder;
    if (!recorder) return undefined;
    // Packed for showing only (the status is not shown); the command stores its own copy.
    return { ...recorder.finish('complete'), id: this.#id };
  }

  summary(): EpisodeSummary | undefined {
    const recorder = this.#recorder;
    if (!recorder) return undefined;
    const m = recorder.meta;
    return {
      id: this.#id,
      origin: 'live',
      step: null,
      instruction: m.task.instruction,
      family: m.task.family,
      split: m.task.split,
      success: recorder.succeeded,
      steps: recorder.steps,
      policy: m.policy,
      source: m.source,
      running: !this.#ended,
    };
  }
}
