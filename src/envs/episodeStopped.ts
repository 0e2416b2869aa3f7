/** Raised by runEpisode when its `signal` stopped the episode between two steps (an operator's Ctrl-C). */
import type { Episode } from '../core/types.ts';

export class EpisodeStoppedError extends Error {
  override name = 'EpisodeStoppedError';
  /** What ran before the stop, marked aborted: kept for the record, never served as complete. */
  readonly episode: Episode;

  constructor(episode: Episode) {
    super(`episode stopped after ${episode.steps} steps; nothing more was sent`);
    this.episode = episode;
  }
}
