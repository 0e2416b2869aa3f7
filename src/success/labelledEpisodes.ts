/**
 * Which episodes can teach the detector, and with what label: an episode's `success` as the
 * environment recorded it (the simulator's predicate, a robot's task-status service) or as an
 * operator labelled it. A detector's own decision is never a label (it would teach itself its
 * mistakes).
 */
import type { Episode } from '../core/types.ts';

export interface LabelledEpisode {
  episode: Episode;
  success: boolean;
  source: 'environment' | 'operator';
}

export function labelledEpisodes(episodes: readonly Episode[]): LabelledEpisode[] {
  return episodes
    .filter((e) => e.status === 'complete' && e.outcome?.source !== 'detector')
    .map((episode) => ({
      episode,
      success: episode.success,
      source: episode.outcome?.source === 'operator' ? 'operator' : 'environment',
    }));
}
