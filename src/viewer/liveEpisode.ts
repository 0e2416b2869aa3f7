/**
 * The episode a command is running now, for the viewer (`wmrl run --view`): the rollout hands
 * over its recorder after every step; the viewer packs it when a page asks. The live episode has
 * its recorder's id, the one it is stored under with `--record`: the page follows it step by step,
 * and the viewer lists the live copy and the stored one as one episode.
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
  #ended = false;

  /** The rollout's onStep: a new recorder is a new episode. */
  update(recorder: EpisodeRecorder): void {
    if (recorder !== this.#recorder) {
      this.#recorder = recorder;
      this.count++;
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
    return this.#recorder?.id;
  }

  /** The recording so far. */
  episode(): Episode | undefined {
    // Packed for showing only (the status is not shown); the command stores its own copy.
    return this.#recorder?.finish('complete');
  }

  summary(): EpisodeSummary | undefined {
    const recorder = this.#recorder;
    if (!recorder) return undefined;
    const m = recorder.meta;
    return {
      id: recorder.id,
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
