/**
 * Operators' labels given on a dataset with `wmrl label DIR`: `DIR/labels.jsonl`, the same durable,
 * append-only file a run keeps (src/operator/labelStore.ts; the first label of an episode counts).
 * `wmrl success train|eval` read them as the outcome of those episodes (labelledEpisodes.ts).
 */
import { LabelStore } from '../operator/labelStore.ts';
import type { OperatorOutcomes } from './labelledEpisodes.ts';

/** The success/failure labels of the datasets in `dirs`, by episode id (skips are left out). */
export async function datasetOutcomeLabels(dirs: readonly string[]): Promise<OperatorOutcomes> {
  const outcomes = new Map<string, boolean>();
  for (const dir of dirs) {
    const store = await LabelStore.open(dir);
    for (const label of store.all())
      if (label.verdict !== 'skip' && !outcomes.has(label.episode))
        outcomes.set(label.episode, label.verdict === 'success');
  }
  return outcomes;
}
