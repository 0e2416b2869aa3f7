/**
 * `wmrl run --view 0 --record DIR` against `wmrl sim-server` (its own process, real time), watched
 * in a real headless Chromium (testChromium.ts) as a user would: the live episode is listed and
 * opened while it runs, its step counter and scene follow the robot, its outcome shows when it
 * ends, the page moves on to the next episode, and every recorded episode is listed exactly once
 * (the live copy and the stored one are one entry). Screenshots land in test-artifacts/viewer/.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { ChildProcess } from 'node:child_process';
import { selectBackend } from '../../src/backend/selectBackend.ts';
import { loadRobot } from '../../src/core/robotDescription.ts';
import { EpisodeStore } from '../../src/data/episodeStore.ts';
import { POLICY_KERNELS } from '../../src/policy/policyConfig.ts';
import { requireBundle } from '../../src/viewer/bundle.ts';
import { startSimServerProcess } from '../../sim/rosbridge/simServerProcess.ts';
import { saveUntrainedPolicy } from '../helpers/untrainedPolicy.ts';
import { spawnWmrl } from '../helpers/wmrlProcess.ts';
import { launchTestChromium, testChromium } from './testChromium.ts';

const ARTIFACTS = join(import.meta.dirname, '..', '..', 'test-artifacts', 'viewer');
const STEPS = 20;
/**
 * The page's messages reach the server this late, as over a slow link. An episode asked for while
 * live can then be answered with its stored copy, the next episode having begun meanwhile: the page
 * must still follow the run (it once stayed on that stored copy, shown as "dataset", for good).
 */
const LAG_MS = 1000;
const dir = mkdtempSync(join(tmpdir(), 'wmrl-run-live-'));
const policyDir = join(dir, 'policy');
const recordDir = join(dir, 'recorded');
let browser: Browser;
let simServer: { child: ChildProcess; url: string };

before(async () => {
  requireBundle();
  const chromiumToUse = await testChromium();
  mkdirSync(ARTIFACTS, { recursive: true });
  await selectBackend('cpu', { requiredKernels: POLICY_KERNELS, log: () => {} });
  await saveUntrainedPolicy(loadRobot('vx300'), ['reach the red ball'], policyDir);
  // A robot at half real time (5 steps a second): an episode of 20 steps lasts 4 s, long enough to
  // watch it grow even when the page takes a few seconds to come up on a loaded machine.
  simServer = await startSimServerProcess(['--port', '0', '--speed', '0.5', '--quiet']);
  browser = await launchTestChromium(chromiumToUse);
});

after(async () => {
  await browser?.close();
  simServer?.child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** What a user sees on the page at one moment. */
interface Seen {
  /** The episode open in the centre. */
  open: string | null;
  renderedFrame: number;
  /** `#instruction`: the instruction, outcome and origin of the open episode. */
  caption: string;
  /** `#frame-label`: "t / T (s)". */
  frameLabel: string;
  /** The episode list: group headings and entries in order. */
  list: { group?: string; id?: string; text: string }[];
  connection: string;
}

interface DomLike {
  getElementById(id: string): { textContent: string | null } | null;
  querySelectorAll(sel: string): Iterable<{ className: string; dataset: { episode?: string }; textContent: string }>;
}

function look(page: Page): Promise<Seen> {
  // No named helpers inside: the page gets this function's source, without tsx's name shims.
  return page.evaluate(() => {
    const g = globalThis as unknown as {
      document: DomLike;
      wmrlViewer?: { episode: string | null; renderedFrame: number };
    };
    return {
      open: g.wmrlViewer?.episode ?? null,
      renderedFrame: g.wmrlViewer?.renderedFrame ?? -1,
      caption: g.document.getElementById('instruction')?.textContent ?? '',
      frameLabel: g.document.getElementById('frame-label')?.textContent ?? '',
      list: [...g.document.querySelectorAll('#episode-list li')].map((li) =>
        li.className === 'group'
          ? { group: li.textContent, text: li.textContent }
          : { id: li.dataset.episode, text: li.textContent },
      ),
      connection: g.document.getElementById('connection')?.textContent ?? '',
    };
  });
}

/** The newest step of "t / T (…)". */
const lastStep = (s: Seen) => Number(/^\d+ \/ (\d+)/.exec(s.frameLabel)?.[1] ?? -1);

test('wmrl run --view --record, in a browser: followed live, outcome at the end, each episode once', async () => {
  const run = spawnWmrl([
    ...['run', '--backend', 'cpu', '--policy', policyDir, '--url', simServer.url],
    ...['--instruction', 'reach the red ball', '--episodes', '2', '--max-steps', String(STEPS)],
    ...['--record', recordDir, '--view', '0'],
  ]);
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const errors: string[] = [];
  page.on('console', (m) => m.type() === 'error' && errors.push(`console: ${m.text()}`));
  page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
  await page.routeWebSocket(/\/ws$/, (ws) => {
    const server = ws.connectToServer();
    ws.onMessage((m) => void setTimeout(() => server.send(m), LAG_MS));
  });
  try {
    const [, url] = await run.waitFor(/live viewer: (http:\/\/127\.0\.0\.1:\d+\/)/);
    await page.goto(url!);
    // Watched as it happens: what the page showed, every 100 ms, until the run says it is done.
    const seen: Seen[] = [];
    let shotWhileRunning = false;
    while (!/episodes done; the viewer stays up/.test(run.output().stderr)) {
      if (run.child.exitCode !== null) assert.fail(`wmrl run exited early:\n${run.output().stderr}`);
      const s = await look(page);
      seen.push(s);
      if (!shotWhileRunning && /live, running/.test(s.caption) && lastStep(s) >= 5) {
        await page.screenshot({ path: join(ARTIFACTS, 'run-live-running.png') });
        shotWhileRunning = true;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    const stored: string[] = [];
    for await (const e of (await EpisodeStore.open(recordDir)).episodes()) stored.push(e.id);
    assert.equal(stored.length, 2, 'both episodes recorded');

    // While running: the live episode is open, listed under the live heading, and grows step by step.
    const running = seen.filter((s) => /live, running/.test(s.caption));
    assert.ok(
      running.length >= 2,
      `the page showed a running live episode ${running.length} times: ${seen.map((s) => s.caption).join(' | ')}`,
    );
    assert.ok(
      running.some((s) => s.list[0]?.group === 'live (wmrl run)' && s.list[1]?.id === s.open),
      'the running episode is listed first, under "live (wmrl run)"',
    );
    assert.ok(running.every((s) => s.connection === 'live'));
    // No outcome yet while it runs: ● in the list, "no success yet" in the caption (unless it already succeeded).
    assert.ok(
      running.some((s) => /^● /.test(s.list[1]?.text ?? '') && /— no success yet \(/.test(s.caption)) ||
        running.some((s) => /— success \(/.test(s.caption)),
      `a running episode is marked as such: ${running.map((s) => s.list[1]?.text).join(' | ')}`,
    );
    assert.ok(shotWhileRunning, 'a screenshot of the running episode');
    const byEpisode = new Map<string | null, Seen[]>();
    for (const s of running) byEpisode.set(s.open, [...(byEpisode.get(s.open) ?? []), s]);
    const grew = [...byEpisode.values()].some((ss) => lastStep(ss.at(-1)!) > lastStep(ss[0]!));
    assert.ok(grew, `the step counter of a running episode moved on: ${running.map((s) => s.frameLabel).join(', ')}`);
    assert.ok(
      running.some((s, i) => i > 0 && s.renderedFrame > running[i - 1]!.renderedFrame),
      'the 3D scene was redrawn at newer steps',
    );
    assert.deepEqual(
      [...byEpisode.keys()].filter((id) => id !== null && !stored.includes(id)),
      [],
      'a live episode keeps the id it is recorded under',
    );

    // At the end: the last episode's outcome, all its steps, and each recorded episode once.
    const outcome = /episode 2\/2 \(seed 1\): (no success|success) in (\d+) steps/.exec(run.output().stdout);
    assert.ok(outcome, run.output().stdout);
    // Generous: on 2 busy cores beside the rest of the suite the page has waited over 10 s for it.
    await page
      .waitForFunction(
        () =>
          /live, finished/.test(
            (globalThis as unknown as { document: DomLike }).document.getElementById('instruction')?.textContent ?? '',
          ),
        null,
        { timeout: 30_000 },
      )
      .catch(async (err: Error) => {
        const seen = await look(page);
        throw new Error(`${err.message}; the page showed "${seen.caption}" at ${seen.frameLabel}`);
      });
    const end = await look(page);
    assert.equal(end.open, stored[1], 'the page followed the run to its second episode');
    assert.match(end.caption, new RegExp(`^“reach the red ball” — ${outcome[1]} \\(live, finished`));
    assert.match(end.frameLabel, new RegExp(`^${outcome[2]} / ${outcome[2]} `));
    const listed = end.list.filter((l) => l.id).map((l) => l.id);
    assert.deepEqual([...listed].sort(), [...stored].sort(), 'each recorded episode is listed exactly once');
    assert.deepEqual(
      end.list.map((l) => l.group ?? l.id),
      ['live (wmrl run)', stored[1], 'dataset', stored[0]],
      'the finished live episode first, the earlier one among the dataset',
    );
    // No run folder: no training charts or steps, which would only be empty panels.
    assert.equal(await page.textContent('#run-name'), 'wmrl run (live)');
    assert.ok((await page.isHidden('#charts')) && (await page.isHidden('#steps')), 'no empty training panels');
    await page.screenshot({ path: join(ARTIFACTS, 'run-live-done.png') });
    assert.deepEqual(errors, []);

    run.child.kill('SIGINT');
    assert.equal(await run.exited, 0, run.output().stderr);
  } finally {
    run.child.kill('SIGKILL');
    await page.close();
  }
});
