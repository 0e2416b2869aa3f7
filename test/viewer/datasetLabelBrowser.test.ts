/**
 * `wmrl label DIR --view` in a real browser (headless Chromium): a recorded dataset's episodes, one recorded as a
 * success, one as a failure, one without success information (a LeRobot import's), are put to the person one at a
 * time. While its label is pending, an episode's row in the page's list shows `?` and neither ✓ nor ✗ (every
 * unlabelled episode of the dataset, not only the one asked); a click answers it, the command receives it and asks
 * the next; at the end every label is in DIR/labels.jsonl once and the rows show the labels.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { EpisodeStore } from '../../src/data/episodeStore.ts';
import { LABELS_FILE } from '../../src/operator/labelStore.ts';
import { requireBundle } from '../../src/viewer/bundle.ts';
import { makeTestEpisode } from '../helpers/episodes.ts';
import { spawnWmrl, type WmrlProcess } from '../helpers/wmrlProcess.ts';
import { waitRow } from './episodeRows.ts';
import { launchTestChromium, testChromium } from './testChromium.ts';

const ARTIFACTS = join(import.meta.dirname, '..', '..', 'test-artifacts', 'viewer');
const dir = mkdtempSync(join(tmpdir(), 'wmrl-label-browser-'));
const data = join(dir, 'data');
const IDS = ['rec-success', 'rec-failure', 'rec-unknown'];
let browser: Browser;

before(async () => {
  requireBundle();
  const chromium = await testChromium();
  mkdirSync(ARTIFACTS, { recursive: true });
  const store = await EpisodeStore.create(data, { robot: 'vx300' });
  const recorded = [{ success: true }, { success: false }, { success: false, successUnknown: true as const }];
  for (const [i, id] of IDS.entries()) {
    const episode = makeTestEpisode({ id, seed: i + 1, robot: 'vx300', stateDim: 0, width: 32, height: 32 });
    await store.append({ ...episode, ...recorded[i]! });
  }
  await store.close();
  browser = await launchTestChromium(chromium);
});

after(async () => {
  await browser?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function asked(label: WmrlProcess, n: number): Promise<void> {
  await label.waitFor(new RegExp(`\\[${n} of 3 unlabelled\\]`), 30_000);
}

test('wmrl label --view: blind rows, answered by clicks, every label stored once', async () => {
  const label = spawnWmrl(['label', data, '--view', '--port', '0']);
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  try {
    const [, url] = await label.waitFor(/in the viewer, (http:\/\/127\.0\.0\.1:\d+\/)/);
    await page.goto(url!);
    const answers = ['success', 'failure', 'success'];
    for (const [i, id] of IDS.entries()) {
      await asked(label, i + 1);
      // Every episode still unlabelled is blind, the one asked and those after it.
      for (const later of IDS.slice(i))
        assert.doesNotMatch(await waitRow(page, later, /^\? /), /[✓✗–]/, `${later} shows no outcome while unlabelled`);
      if (i === 0) await page.screenshot({ path: join(ARTIFACTS, 'dataset-labels-pending.png') });
      const item = page.locator(`#operator-list li[data-id="${id}"]`);
      await item.locator(`button[data-answer="${answers[i]}"]`).click({ timeout: 30_000 });
    }
    assert.equal(await label.exited, 0, label.output().stderr);
    assert.match(
      label.output().stdout,
      /3 episodes; labelled now 2 success, 1 failure, 0 skip; 0 labelled before; 0 left/,
    );
    const lines = readFileSync(join(data, LABELS_FILE), 'utf8').trim().split('\n');
    assert.deepEqual(
      lines.map((l) => {
        const { episode, verdict, by } = JSON.parse(l) as { episode: string; verdict: string; by: string };
        return [episode, verdict, by];
      }),
      IDS.map((id, i) => [id, answers[i], 'viewer']),
    );
    assert.deepEqual(errors, []);
  } finally {
    label.child.kill('SIGKILL');
    await page.close();
  }
});
