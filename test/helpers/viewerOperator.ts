/**
 * A person at `wmrl view --run`, scripted: the viewer's own data layer (ViewerData) polls the run's
 * pending list, finds each waiting episode among those it lists, and writes the label as the page's
 * buttons do (labels.jsonl).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { PendingItem } from '../../src/operator/pendingItem.ts';
import { ViewerData } from '../../src/viewer/viewerData.ts';

export type LabelItem = Extract<PendingItem, { kind: 'label' }>;

/**
 * A person at `wmrl view --run`: answers each spot check listed (asked `since`) with the outcome
 * the episode's record shows (the simulator's), except those `hold` keeps waiting. Returns what it
 * was shown.
 */
export function viewerOperator(runDir: string, options: { hold?: (item: LabelItem) => boolean; since?: Date } = {}) {
  const { hold = () => false, since = new Date(0) } = options;
  const shown: { item: LabelItem; listed: boolean }[] = [];
  let stopped = false;
  const done = (async () => {
    // The viewer opens a run folder once training has started writing it.
    while (!stopped && !existsSync(join(runDir, 'train.metrics.jsonl'))) await sleep(50);
    if (stopped) return;
    const data = new ViewerData({ runDir });
    try {
      while (!stopped) {
        await data.poll();
        for (const item of data.pending) {
          if (item.kind !== 'label' || shown.some((s) => s.item.id === item.id)) continue;
          // A killed trainer's list stays until the next one starts: only questions asked since count.
          if (new Date(item.since) < since) continue;
          const summary = data.episodes.find((e) => e.id === item.id);
          shown.push({ item, listed: summary !== undefined });
          if (!hold(item) && summary) await data.label(item.id, summary.success ? 'success' : 'failure');
        }
        await sleep(50);
      }
    } finally {
      await data.close();
    }
  })();
  done.catch(() => {}); // Reported by stop().
  return {
    shown,
    async stop() {
      stopped = true;
      await done;
    },
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
