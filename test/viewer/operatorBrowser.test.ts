/**
 * Operator labels in a real browser (headless Chromium, see testChromium.ts): the trainer's side
 * runs as a child process asking for the labels of a run's two anchor episodes; the page lists
 * them and shows the first; a click labels it and the trainer receives it. The trainer is then
 * killed (SIGKILL) and restarted: the first label comes back from labels.jsonl without being asked
 * again, the page lists only the second, and after its click the run holds each label once.
 * While an episode waits, its row in the episode list shows neither ✓ nor ✗ (the record reads
 * failure, as on a robot without task status); once labelled, it shows the label.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { EpisodeStore } from '../../src/data/episodeStore.ts';
import { LABELS_FILE } from '../../src/operator/labelStore.ts';
import { runAnchorDir } from '../../src/rl/run/runTraining.ts';
import { BUNDLE_DIR, requireBundle } from '../../src/viewer/bundle.ts';
import { ViewerData } from '../../src/viewer/viewerData.ts';
import { ViewerServer } from '../../src/viewer/viewerServer.ts';
import { makeTestEpisode } from '../helpers/episodes.ts';
import { waitRow } from './episodeRows.ts';
import { launchTestChromium, testChromium } from './testChromium.ts';

const ARTIFACTS = join(import.meta.dirname, '..', '..', 'test-artifacts', 'viewer');
const CHILD = join(import.meta.dirname, 'labelTrainerChild.ts');
const IDS = ['run.s1.g0.r0', 'run.s1.g0.r1'];
const dir = mkdtempSync(join(tmpdir(), 'wmrl-operator-browser-'));
const runDir = join(dir, 'run');
let data: ViewerData;
let server: ViewerServer;
let browser: Browser;

before(async () => {
  requireBundle();
  const chromiumToUse = await testChromium();
  mkdirSync(ARTIFACTS, { recursive: true });
  mkdirSync(runDir, { recursive: true });
  writeFileSync(join(runDir, 'train.metrics.jsonl'), `${JSON.stringify({ kind: 'eval', step: 0 })}\n`);
  // Two stored anchor episodes of a real arm (no object poses), with env outcomes the labels replace.
  const store = await EpisodeStore.create(runAnchorDir(runDir), { robot: 'vx300' });
  for (const [i, id] of IDS.entries())
    await store.append(
      makeTestEpisode({ id, seed: i + 1, robot: 'vx300', stateDim: 0, width: 32, height: 32, success: false }),
    );
  await store.close();
  data = new ViewerData({ runDir });
  server = await ViewerServer.start({ data, bundleDir: BUNDLE_DIR, port: 0, pollMs: 100 });
  browser = await launchTestChromium(chromiumToUse);
});

after(async () => {
  await browser?.close();
  await server?.close();
  await data?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The trainer's side, with its output collected and awaited line by line. */
function startTrainer(): { child: ChildProcess; output: () => string; line: (pattern: RegExp) => Promise<string> } {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, runDir], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
  const line = async (pattern: RegExp) => {
    for (let waited = 0; waited < 60_000; waited += 50) {
      const m = pattern.exec(out);
      if (m) return m[0];
      if (child.exitCode !== null && !pattern.test(out)) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`the trainer never printed ${pattern}; it printed:\n${out}`);
  };
  return { child, output: () => out, line };
}

const pendingOf = (page: Page) =>
  page.evaluate(() => (globalThis as unknown as { wmrlViewer: { pending: string[] } }).wmrlViewer.pending);

async function waitPending(page: Page, want: string[]): Promise<void> {
  for (let waited = 0; waited < 30_000; waited += 100) {
    if (JSON.stringify(await pendingOf(page)) === JSON.stringify(want)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.deepEqual(await pendingOf(page), want, 'the operator panel lists what the trainer waits for');
}

test('operator labels in a browser: clicked, received; a killed trainer neither loses nor recounts', async () => {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  let first = startTrainer();
  try {
    await page.goto(server.url);
    await first.line(/ASKING/);
    await waitPending(
      page,
      IDS.map((id) => `label:${id}`),
    );
    for (const id of IDS)
      assert.doesNotMatch(await waitRow(page, id, /^\? /), /[✓✗]/, `${id} waits: no outcome in its row`);
    // The first waiting episode opens by itself: its camera frames are on the page.
    await page.waitForFunction(
      (id) => (globalThis as unknown as { wmrlViewer: { episode: string | null } }).wmrlViewer.episode === id,
      IDS[0],
      { timeout: 30_000 },
    );
    assert.ok((await page.locator('#real-frames canvas').count()) > 0, 'the episode camera frames are shown');
    await page.screenshot({ path: join(ARTIFACTS, 'operator-pending.png') });
    const item = (id: string) => page.locator(`#operator-list li[data-id="${id}"]`);
    await item(IDS[0]!).locator('.operator-note').fill('reached it');
    await item(IDS[0]!).locator('button[data-answer="success"]').click();
    assert.match(await first.line(/LABEL run\.s1\.g0\.r0 \w+/), /success$/, 'the trainer received the click');
    await waitRow(page, IDS[0]!, /^✓ /); // the label, not the recorded failure
    await waitPending(page, [`label:${IDS[1]}`]);
    assert.match(
      (await page.locator('#operator-status').textContent()) ?? '',
      /recorded: episode run\.s1\.g0\.r0: success/,
    );

    // Killed while it waits for the second label, then started again.
    first.child.kill('SIGKILL');
    await new Promise((r) => first.child.once('exit', r));
    first = startTrainer();
    await first.line(/LABEL run\.s1\.g0\.r0 success/);
    await waitPending(page, [`label:${IDS[1]}`]);
    await waitRow(page, IDS[1]!, /^\? /);
    await item(IDS[1]!).locator('button[data-answer="failure"]').click();
    const result = JSON.parse((await first.line(/RESULT .*/)).slice(7)) as {
      kept: number[];
      outcomes: [string, boolean][];
      counts: { asked: number; fromStore: number };
    };
    assert.deepEqual(result.kept, [0]);
    assert.deepEqual(result.outcomes, [
      [IDS[0], true],
      [IDS[1], false],
    ]);
    assert.deepEqual(result.counts, { asked: 1, fromStore: 1 }, 'the restarted trainer asked only for the second');
    const lines = readFileSync(join(runDir, LABELS_FILE), 'utf8').trim().split('\n');
    assert.deepEqual(
      lines.map((l) => {
        const label = JSON.parse(l) as { episode: string; verdict: string; by: string; note?: string };
        return [label.episode, label.verdict, label.by, label.note ?? null];
      }),
      [
        [IDS[0], 'success', 'viewer', 'reached it'],
        [IDS[1], 'failure', 'viewer', null],
      ],
      'each label stored once',
    );
    await waitPending(page, []);
    await page.screenshot({ path: join(ARTIFACTS, 'operator-done.png') });
    assert.deepEqual(errors, []);
  } finally {
    first.child.kill('SIGKILL');
    await page.close();
  }
});
