/**
 * A person at `wmrl view --run`, scripted. Without a browser, the viewer's own data layer
 * (ViewerData) polls the run's pending list, finds each waiting episode among those it lists, and
 * writes the label as the page's buttons do (labels.jsonl). With one, the real page does it: a
 * ViewerServer over that ViewerData, the waiting episode's row read from the page's episode list,
 * the answer clicked in *Waiting for you*.
 *
 * The answer is the outcome the run's `anchors-env/` record holds on disk (in the simulator, the
 * simulator's): the test may know it, the page must not show it, so it is never read from the list.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { EpisodeStore } from '../../src/data/episodeStore.ts';
import type { PendingItem } from '../../src/operator/pendingItem.ts';
import { envRecordDir } from '../../src/success/envRecordDir.ts';
import { BUNDLE_DIR, requireBundle } from '../../src/viewer/bundle.ts';
import { ViewerData } from '../../src/viewer/viewerData.ts';
import { ViewerServer } from '../../src/viewer/viewerServer.ts';

export type LabelItem = Extract<PendingItem, { kind: 'label' }>;

/** What the operator was shown of one waiting episode. */
export interface ShownItem {
  item: LabelItem;
  /** The episode list holds it. */
  listed: boolean;
  /** Its list entry, as the data layer serves it, has no outcome (no `success`, `waiting` instead). */
  blind: boolean;
  /** With a browser: its row in the page's episode list while it waits, and once answered. */
  row?: { waiting: string; answered?: string };
}

export interface ViewerOperatorOptions {
  /** Leave these waiting (never answered). */
  hold?: (item: LabelItem) => boolean;
  /** Only questions asked since then count (a killed trainer's list stays until the next one starts). */
  since?: Date;
  /** Answer through the real page in this browser instead of the data layer. */
  browser?: Browser;
  /**
   * The person's verdict on an episode (default: what its environment record shows, for spot checks; a run whose
   * outcomes all come from the person has no such record).
   */
  answer?: (item: LabelItem) => Promise<boolean>;
}

/**
 * A person at `wmrl view --run`: answers each spot check listed with the outcome the episode's
 * environment record shows, except those `hold` keeps waiting. Returns what it was shown, and the
 * page's errors in browser mode.
 */
export function viewerOperator(runDir: string, options: ViewerOperatorOptions = {}) {
  const { hold = () => false, since = new Date(0), browser } = options;
  const answer = options.answer ?? ((item: LabelItem) => recordedSuccess(runDir, item.id));
  const shown: ShownItem[] = [];
  const pageErrors: string[] = [];
  let stopped = false;
  const done = (async () => {
    // The viewer opens a run folder once training has started writing it.
    while (!stopped && !existsSync(join(runDir, 'train.metrics.jsonl'))) await sleep(50);
    if (stopped) return;
    const data = new ViewerData({ runDir });
    let server: ViewerServer | null = null;
    try {
      let page: Page | null = null;
      if (browser) {
        // The server polls the data itself; the helper only reads what it found.
        server = await ViewerServer.start({ data, bundleDir: requireBundle(BUNDLE_DIR), port: 0, pollMs: 100 });
        page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
        page.on('pageerror', (e) => pageErrors.push(e.message));
        await page.goto(server.url);
      }
      while (!stopped) {
        if (!server) await data.poll();
        for (const item of data.pending) {
          if (item.kind !== 'label' || shown.some((s) => s.item.id === item.id)) continue;
          if (new Date(item.since) < since) continue;
          // The page first: its row (or a timeout naming it) once it shows the question.
          const waitingAt = page ? await waitingRow(page, item.id) : null;
          const summary = data.episodes.find((e) => e.id === item.id);
          const entry: ShownItem = {
            item,
            listed: summary !== undefined,
            blind: summary !== undefined && summary.waiting === true && !('success' in summary),
            ...(waitingAt !== null ? { row: { waiting: waitingAt } } : {}),
          };
          shown.push(entry);
          if (hold(item) || !summary) continue;
          const verdict = (await answer(item)) ? 'success' : 'failure';
          if (!page) {
            await data.label(item.id, verdict);
            continue;
          }
          await page.locator(`#operator-list li[data-id="${item.id}"] button[data-answer="${verdict}"]`).click();
          entry.row!.answered = await answeredRow(page, item.id);
        }
        await sleep(50);
      }
    } finally {
      await server?.close();
      await data.close();
    }
  })();
  done.catch(() => {}); // Reported by stop().
  return {
    shown,
    pageErrors,
    async stop() {
      stopped = true;
      await done;
    },
  };
}

/** The outcome the environment recorded for `id` (what the simulated person saw happen). */
async function recordedSuccess(runDir: string, id: string): Promise<boolean> {
  for await (const e of (await EpisodeStore.open(envRecordDir(runDir))).episodes({ onIssue: () => {} }))
    if (e.id === id) return e.success;
  throw new Error(`episode ${id} waits for a spot check but is not in ${envRecordDir(runDir)}`);
}

const row = (page: Page, id: string) => page.locator(`#episode-list li[data-episode="${id}"]`);

/** The episode's list row once the page lists it as waiting (its question shown). */
async function waitingRow(page: Page, id: string): Promise<string> {
  await page.locator(`#operator-list li[data-id="${id}"]`).waitFor({ timeout: 60_000 });
  return (await row(page, id).textContent({ timeout: 60_000 })) ?? '';
}

/** The row after the answer: it shows an outcome again (or whatever it shows after 10 s). */
async function answeredRow(page: Page, id: string): Promise<string> {
  const selector = `#episode-list li[data-episode="${id}"]`;
  await page
    .waitForFunction(
      (s) => {
        const doc = (
          globalThis as unknown as { document: { querySelector(s: string): { textContent: string } | null } }
        ).document;
        return /^[✓✗]/.test(doc.querySelector(s)?.textContent ?? '');
      },
      selector,
      { timeout: 10_000 },
    )
    .catch(() => {});
  return (
    (await row(page, id)
      .textContent({ timeout: 1000 })
      .catch(() => null)) ?? '(not listed)'
  );
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
