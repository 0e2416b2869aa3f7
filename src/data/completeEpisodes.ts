/**
 * The rule every learner keeps: an aborted episode never trains. Datasets serve only complete
 * episodes (EpisodeStore.episodes()); this guard at each learner's door makes a slip upstream an
 * error naming the episode instead of a silent use of a cut-off trajectory.
 */
import type { Episode } from '../core/types.ts';

export function requireComplete(episodes: readonly Episode[], what: string): void {
  const bad = episodes.find((e) => e.status !== 'complete');
  if (bad)
    throw new Error(
      `${what}: episode ${bad.id} is '${bad.status}'; aborted episodes never train ` +
        `(datasets serve only complete ones: EpisodeStore.episodes())`,
    );
}
