/**
 * The viewer page in a real headless Chromium (Debian's `chromium` when installed, otherwise the
 * one shipped in the `@sparticuz/chromium` devDependency; driven by playwright-core)
 * against a real run folder: it loads without console errors, the WebGL canvas shows the scene,
 * scrubbing changes the rendered frame, a metrics line appended to the run appears live, a deep
 * link opens the given episode, a mesh arm's meshes arrive and are drawn as meshes, and screenshots
 * land in test-artifacts/viewer/.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { readRunLog } from '../../src/core/runLog.ts';
import { BUNDLE_DIR, requireBundle } from '../../src/viewer/bundle.ts';
import { ViewerData } from '../../src/viewer/viewerData.ts';
import { ViewerServer } from '../../src/viewer/viewerServer.ts';
import { makeFixtureRun, type FixtureRun } from './fixtureRun.ts';
import { makeMeshDataset, type MeshDataset } from './meshFixture.ts';
import { canvasPixels } from './canvasPixels.ts';
import { launchTestChromium, testChromium } from './testChromium.ts';

const ARTIFACTS = join(import.meta.dirname, '..', '..', 'test-artifacts', 'viewer');
const dir = mkdtempSync(join(tmpdir(), 'wmrl-viewer-browser-'));
let fixture: FixtureRun;
let data: ViewerData;
let server: ViewerServer;
let meshes: MeshDataset;
let meshData: ViewerData;
let meshServer: ViewerServer;
let browser: Browser;

before(async () => {
  requireBundle();
  // Never skip silently: without a browser that starts, these tests fail and say why.
  const chromiumToUse = await testChromium();
  mkdirSync(ARTIFACTS, { recursive: true });
  fixture = await makeFixtureRun(dir);
  data = new ViewerData({ runDir: fixture.runDir, dataDirs: [fixture.dataDir] });
  server = await ViewerServer.start({ data, bundleDir: BUNDLE_DIR, port: 0, pollMs: 200 });
  meshes = await makeMeshDataset(dir);
  meshData = new ViewerData({ dataDirs: [meshes.dataDir], robots: [meshes.robot] });
  meshServer = await ViewerServer.start({ data: meshData, bundleDir: BUNDLE_DIR, port: 0, pollMs: 0 });
  browser = await launchTestChromium(chromiumToUse);
});

after(async () => {
  await browser?.close();
  await server?.close();
  await data?.close();
  await meshServer?.close();
  await meshData?.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Viewer {
  episode: string | null;
  frame: number;
  renderedFrame: number;
  steps: number[];
  meshTriangles: number;
}

/** Open the page, recording console errors, failed requests and requests that leave this server. */
async function openPage(hash = '', on = server): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const errors: string[] = [];
  page.on('console', (m) => m.type() === 'error' && errors.push(`console: ${m.text()}`));
  page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
  page.on('requestfailed', (r) => errors.push(`request failed: ${r.url()}`));
  page.on(
    'request',
    (r) =>
      !r.url().startsWith(`http://127.0.0.1:${on.port}/`) &&
      !r.url().startsWith(`ws://127.0.0.1:${on.port}/`) &&
      !r.url().startsWith('data:') &&
      errors.push(`network request off this server: ${r.url()}`),
  );
  await page.goto(on.url + hash);
  await page.waitForFunction(
    () => ((globalThis as unknown as Partial<PageGlobals>).wmrlViewer?.renderedFrame ?? -1) >= 0,
    null,
    { timeout: 30_000 },
  );
  return { page, errors };
}

/**
 * The page globals the in-page checks touch, typed here because the Node test program has no
 * DOM types (the canvas's pixels: canvasPixels.ts). In-page functions are serialised, so each
 * reaches them through `globalThis` itself (string predicates would need eval, which the page's
 * CSP forbids).
 */
interface PageGlobals {
  wmrlViewer: Viewer;
}

const viewer = (page: Page) =>
  page.evaluate(() => {
    const v = (globalThis as unknown as PageGlobals).wmrlViewer;
    return { episode: v.episode, frame: v.frame, renderedFrame: v.renderedFrame, steps: v.steps };
  });
const waitFor = <A extends number | string>(page: Page, predicate: (arg: A) => boolean, arg: A) =>
  page.waitForFunction(predicate as (arg: number | string) => boolean, arg, { timeout: 10_000 });

test('the page loads without errors, draws the scene, and scrubbing changes the rendered frame', async () => {
  const { page, errors } = await openPage();
  try {
    const first = await viewer(page);
    assert.equal(first.episode, fixture.episodeIds[0], 'the first episode opens by default');
    assert.equal(first.renderedFrame, 0);
    const before = await canvasPixels(page);
    assert.ok(before.width > 100 && before.height > 100);
    assert.ok(
      before.foreground > 0.2 * before.width * before.height,
      `the 3D canvas is nearly blank: ${before.foreground} ` +
        `of ${before.width * before.height} pixels differ from the background`,
    );
    assert.ok(before.colours > 20, `the 3D canvas shows only ${before.colours} colours`);
    assert.match((await page.textContent('#instruction')) ?? '', /reach/);
    assert.match(
      (await page.textContent('#imagined-note')) ?? '',
      /not pixels/,
      'the state kind says it has no imagined frames',
    );
    await page.screenshot({ path: join(ARTIFACTS, 'viewer-frame0.png') });

    // Scrub with the keyboard, as a user would: End jumps the range input to the last step.
    await page.focus('#scrubber');
    await page.keyboard.press('End');
    const last = Number(await page.getAttribute('#scrubber', 'max'));
    assert.ok(last > 0);
    await waitFor(page, (t) => (globalThis as unknown as PageGlobals).wmrlViewer.renderedFrame === t, last);
    const after = await canvasPixels(page);
    assert.notEqual(after.hash, before.hash, 'the rendered frame changed');
    assert.match((await page.textContent('#frame-label')) ?? '', new RegExp(`^${last} / ${last}`));
    await page.screenshot({ path: join(ARTIFACTS, 'viewer-last.png') });
    for (const name of ['viewer-frame0.png', 'viewer-last.png'])
      assert.ok(statSync(join(ARTIFACTS, name)).size > 10_000, `${name} saved`);
    assert.deepEqual(errors, []);
  } finally {
    await page.close();
  }
});

test('a step appended to train.metrics.jsonl appears on the open page', async () => {
  const { page, errors } = await openPage();
  try {
    await waitFor(page, (n) => (globalThis as unknown as PageGlobals).wmrlViewer.steps.length === n, 2);
    const metricsFile = join(fixture.runDir, 'train.metrics.jsonl');
    const lines = readRunLog(metricsFile);
    const lastStep = lines.filter((l) => l.kind === 'step').at(-1)!;
    appendFileSync(
      metricsFile,
      JSON.stringify({
        ...lastStep,
        step: 3,
        robotSeconds: 24,
        successAnchors: 0.5,
        ppi: { estimate: 0.4, lower: 0.1, upper: 0.7, naive: 0.6, imagined: 2, anchors: 2 },
      }) + '\n',
    );
    await waitFor(page, (step) => (globalThis as unknown as PageGlobals).wmrlViewer.steps.includes(step), 3);
    assert.match((await page.textContent('#latest-step')) ?? '', /step 3 · 24 robot-s/);
    assert.equal(await page.textContent('#connection'), 'live');
    assert.match((await page.textContent('#step-list li[data-step="3"]')) ?? '', /PPI 0\.40 \[0\.10, 0\.70\]/);
    await page.screenshot({ path: join(ARTIFACTS, 'viewer-live.png') });
    assert.ok(existsSync(join(ARTIFACTS, 'viewer-live.png')));
    assert.deepEqual(errors, []);
  } finally {
    await page.close();
  }
});

test('a deep link opens the given anchor episode and training step', async () => {
  const anchor = data.episodes.find((e) => e.origin === 'anchor' && e.step === 2);
  assert.ok(anchor, 'the run stored anchors of step 2');
  const { page, errors } = await openPage(`#episode=${anchor.id}&step=2`);
  try {
    assert.equal((await viewer(page)).episode, anchor.id);
    assert.match((await page.textContent('#instruction')) ?? '', /anchor, step 2/);
    assert.match((await page.textContent('#debias-caption')) ?? '', /at step 2/);
    assert.equal(await page.getAttribute('#step-list li.selected', 'data-step'), '2');
    // Picking another episode from the list updates the link.
    await page.click(`#episode-list li[data-episode="${fixture.episodeIds[1]}"]`);
    await waitFor(
      page,
      (id) => (globalThis as unknown as PageGlobals).wmrlViewer.episode === id,
      fixture.episodeIds[1]!,
    );
    assert.match(page.url(), new RegExp(`#episode=${fixture.episodeIds[1]}&step=2$`));
    assert.deepEqual(errors, []);
  } finally {
    await page.close();
  }
});

test("a mesh arm's meshes arrive once and are drawn as meshes, not markers", async () => {
  const view = await meshData.episodeView(meshes.episodeIds[0]!);
  const g = view.geoms;
  // What the page must draw: every triangle of every visible mesh geom.
  let expected = 0;
  for (let i = 0; i < g.count; i++)
    if (g.mesh[i]! >= 0 && g.visible[i]) expected += g.meshes![g.mesh[i]!]!.faces.length / 3;
  assert.ok(expected > 100, `${expected} triangles`);
  const { page, errors } = await openPage('', meshServer);
  const triangles = () => page.evaluate(() => (globalThis as unknown as PageGlobals).wmrlViewer.meshTriangles);
  try {
    assert.equal((await viewer(page)).episode, meshes.episodeIds[0]);
    assert.equal(await triangles(), expected);
    const pixels = await canvasPixels(page);
    assert.ok(pixels.foreground > 0.2 * pixels.width * pixels.height, 'the 3D canvas shows the scene');
    await page.screenshot({ path: join(ARTIFACTS, 'viewer-mesh-arm.png') });
    // The next episode of the same arm comes without meshes; the page reuses the ones it built.
    await page.click(`#episode-list li[data-episode="${meshes.episodeIds[1]}"]`);
    await waitFor(
      page,
      (id) => (globalThis as unknown as PageGlobals).wmrlViewer.episode === id,
      meshes.episodeIds[1]!,
    );
    await waitFor(page, (t) => (globalThis as unknown as PageGlobals).wmrlViewer.renderedFrame === t, 0);
    assert.equal(await triangles(), expected);
    assert.deepEqual(errors, []);
  } finally {
    await page.close();
  }
});
