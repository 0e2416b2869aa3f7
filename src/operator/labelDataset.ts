/**
 * Labelling a recorded dataset (`wmrl label DIR`): every episode without a label is put to the
 * operator, one at a time in storage order, through an OperatorDesk over the dataset folder (its
 * terminal, and the viewer's "Waiting for you" panel on `wmrl view --data DIR`). Labels go to
 * `DIR/labels.jsonl` (LabelStore: fsynced, the first label of an episode counts), so a stopped
 * run of it loses nothing and the next one resumes at the episodes still unlabelled. The question is
 * blind: it shows the instruction and the episode's length, never its recorded outcome.
 */
import type { Episode } from '../core/types.ts';
import { EpisodeStore } from '../data/episodeStore.ts';
import type { OperatorLabel } from './labelStore.ts';
import type { OperatorDesk } from './operatorDesk.ts';

export interface LabelDatasetOptions {
  /** The dataset folder; the desk must be open on it. */
  dir: string;
  desk: OperatorDesk;
  /** Stops asking (Ctrl-C, or the terminal's input ended with no viewer to answer); labels given are kept. */
  signal?: AbortSignal;
  /** Told before each question: which one of how many. */
  onQuestion?: (index: number, count: number, episode: Pick<Episode, 'id' | 'task' | 'steps'>) => void;
}

export interface LabelDatasetReport {
  /** Complete episodes in the dataset. */
  episodes: number;
  /** Of those, labelled before this run. */
  labelledBefore: number;
  /** Labels given during this run, by verdict (from the file: answers from any side count). */
  given: Record<OperatorLabel['verdict'], number>;
  /** Episodes still without a label. */
  left: number;
  /** The run stopped (the signal) before every episode had a label. */
  stopped: boolean;
}

export async function labelDataset(options: LabelDatasetOptions): Promise<LabelDatasetReport> {
  const { desk, signal } = options;
  const store = await EpisodeStore.open(options.dir);
  await desk.labels.refresh();
  const todo: Pick<Episode, 'id' | 'task' | 'steps'>[] = [];
  const seen = new Set<string>();
  for await (const e of store.episodes()) {
    if (seen.has(e.id)) continue;
    seen.add(e.id);
    // Only what the question needs is kept: an episode's frames are read again by the viewer.
    if (!desk.labels.get(e.id)) todo.push({ id: e.id, task: e.task, steps: e.steps });
  }
  let stopped = false;
  for (const [i, episode] of todo.entries()) {
    if (signal?.aborted) {
      stopped = true;
      break;
    }
    options.onQuestion?.(i, todo.length, episode);
    try {
      await desk.ask(episode, { reason: 'outcome', ...(signal ? { signal } : {}) });
    } catch (err) {
      if (!signal?.aborted) throw err;
      stopped = true;
      break;
    }
  }
  // After any label still being written (the store writes one at a time): count what the file holds.
  await desk.labels.refresh();
  const given: LabelDatasetReport['given'] = { success: 0, failure: 0, skip: 0 };
  let left = 0;
  for (const { id } of todo) {
    const label = desk.labels.get(id);
    if (label) given[label.verdict]++;
    else left++;
  }
  return { episodes: seen.size, labelledBefore: seen.size - todo.length, given, left, stopped: stopped && left > 0 };
}
