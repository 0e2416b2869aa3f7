/**
 * Which episodes can teach the detector, and with what label: an episode's `success` as the
 * environment recorded it (the simulator's predicate, a robot's task-status service), or an
 * operator's label (a spot check's, stored on the episode, or one given with `wmrl label` and
 * stored beside the dataset, which overrides the record). A detector's own decision is never a
 * label (it would teach itself its mistakes), and an episode recorded without any success
 * information (`successUnknown`, a LeRobot import without `next.success`) is unlabelled until a
 * person labels it: its stored `false` is no failure.
 */
import type { Episode } from '../core/types.ts';

export interface LabelledEpisode {
  episode: Episode;
  success: boolean;
  source: 'environment' | 'operator';
}

/** Operators' success/failure labels by episode id (skips are no labels). */
export type OperatorOutcomes = ReadonlyMap<string, boolean>;

export function labelledEpisodes(
  episodes: readonly Episode[],
  labels: OperatorOutcomes = new Map(),
): LabelledEpisode[] {
  const out: LabelledEpisode[] = [];
  for (const episode of episodes) {
    if (episode.status !== 'complete') continue;
    const label = labels.get(episode.id);
    if (label !== undefined) out.push({ episode, success: label, source: 'operator' });
    else if (episode.outcome?.source !== 'detector' && !episode.successUnknown)
      out.push({
        episode,
        success: episode.success,
        source: episode.outcome?.source === 'operator' ? 'operator' : 'environment',
      });
  }
  return out;
}

/** Says how many episodes wait for a label, for errors that stop on too few labels. */
export function unlabelledNote(episodes: readonly Episode[], labels: OperatorOutcomes = new Map()): string {
  const unknown = episodes.filter((e) => e.status === 'complete' && e.successUnknown && !labels.has(e.id)).length;
  return unknown === 0
    ? ''
    : `; ${unknown} episode${unknown > 1 ? 's were' : ' was'} recorded without success information and ` +
        `${unknown > 1 ? 'are' : 'is'} unlabelled: label them with wmrl label DIR`;
}
