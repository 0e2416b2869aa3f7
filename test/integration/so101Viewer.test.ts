/**
 * The viewer in a real headless Chromium (test/viewer/testChromium.ts) on 50 short SO-101 episodes: the arm's
 * meshes are drawn, and the page moves through every episode, each a task scene the server compiles around the
 * arm's 13 meshes (about 61 MB of WebAssembly memory a mix of objects), without a page or console error.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { loadRobot } from '../../src/core/robotDescription.ts';
import { EpisodeStore } from '../../src/data/episodeStore.ts';
import { RandomController } from '../../src/envs/randomController.ts';
import { runEpisode } from '../../src/envs/rollout.ts';
import { SimEnv } from '../../src/envs/simEnv.ts';
import { planEpisodes } from '../../src/tasks/episodePlan.ts';
import { BUNDLE_DIR, requireBundle } from '../../src/viewer/bundle.ts';
import { ViewerData } from '../../src/viewer/viewerData.ts';
import { ViewerServer } from '../../src/viewer/viewerServer.ts';
import { canvasPixels } from '../viewer/canvasPixels.ts';
import { launchTestChromium, testChromium } from '../viewer/testChromium.ts';

const ARTIFACTS = join(import.meta.dirname, '..', '..', 'test-artifacts', 'viewer');
const EPISODES = 50;
const dir = mkdtempSync(join(tmpdir(), 'wmrl-viewer-so101-'));
const episodeIds: string[] = [];
let data: ViewerData;
let server: ViewerServer;
let browser: Browser;

/** Short random episodes of reach, pick and push: each task and seed its own layout, so the mixes of objects vary. */
async function collect(dataDir: string): Promise<void> {
  const robot = loadRobot('so101');
  const env = await SimEnv.create({ robot });
  const random = new RandomController(robot.arm.joints.length + 1);
  const store = await EpisodeStore.create(dataDir, { robot: robot.name });
  try {
    const families = [{ family: 'reach' }, { family: 'pick' }, { family: 'push' }] as const;
    for (const plan of planEpisodes([...families], 'train', EPISODES, 500)) {
      const episode = await runEpisode(env, random, { ...plan, maxSteps: 4 });
      await store.append(episode);
      episodeIds.push(episode.id);
    }
  } finally {
    await store.close();
    await env.close();
  }
}

before(async () => {
  requireBundle();
  const chromiumToUse = await testChromium();
  mkdirSync(ARTIFACTS, { recursive: true });
  const dataDir = join(dir, 'so101-data');
  await collect(dataDir);
  data = new ViewerData({ dataDirs: [dataDir] });
  server = await ViewerServer.start({ data, bundleDir: BUNDLE_DIR, port: 0, pollMs: 0 });
  browser = await launchTestChromium(chromiumToUse);
});

after(async () => {
  await browser?.close();
  await server?.close();
  await data?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The page globals the in-page checks touch (the Node test program has no DOM types). */
interface PageGlobals {
  wmrlViewer: { episode: string | null; renderedFrame: number; meshTriangles: number; episodes: number };
}

/** The page's episode, the frame it drew (-1 before one) and the mesh triangles it draws. */
const viewer = (page: Page) =>
  page.evaluate(() => {
    const v = (globalThis as unknown as PageGlobals).wmrlViewer;
    return { episode: v.episode, renderedFrame: v.renderedFrame, meshTriangles: v.meshTriangles, listed: v.episodes };
  });

test(`SO-101's meshes are drawn, and the page moves through ${EPISODES} episodes without an error`, async () => {
  // What the page must draw: every triangle of every visible mesh geom (the arm's, the same in every scene).
  const g = (await data.episodeView(episodeIds[0]!)).geoms;
  let expected = 0;
  for (let i = 0; i < g.count; i++)
    if (g.mesh[i]! >= 0 && g.visible[i]) expected += g.meshes![g.mesh[i]!]!.faces.length / 3;
  assert.ok(expected > 1000, `${expected} triangles`);

  const page = await browser.newPage({ viewport: { width: 960, height: 640 } });
  const errors: string[] = [];
  page.on('console', (m) => m.type() === 'error' && errors.push(`console: ${m.text()}`));
  page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
  page.on('requestfailed', (r) => errors.push(`request failed: ${r.url()}`));
  /** Wait until the page shows `id` and has drawn its first frame. */
  const shown = (id: string) =>
    page.waitForFunction(
      (want) => {
        const v = (globalThis as unknown as PageGlobals).wmrlViewer;
        return v.episode === want && v.renderedFrame === 0;
      },
      id,
      { timeout: 30_000 },
    );
  try {
    await page.goto(server.url);
    await shown(episodeIds[0]!);
    const first = await viewer(page);
    assert.equal(first.listed, EPISODES);
    assert.equal(first.meshTriangles, expected, 'the arm is drawn as its meshes, not markers');
    const pixels = await canvasPixels(page);
    const of = pixels.width * pixels.height;
    assert.ok(pixels.foreground > 0.2 * of, `the 3D canvas is nearly blank: ${pixels.foreground} of ${of}`);
    await page.screenshot({ path: join(ARTIFACTS, 'viewer-so101.png') });
    // Every other episode, in turn from the list, as a user would; each loads its scene and reuses the meshes.
    for (const [i, id] of episodeIds.entries()) {
      if (i === 0) continue;
      await page.click(`#episode-list li[data-episode="${id}"]`);
      await shown(id);
      const v = await viewer(page);
      assert.equal(v.meshTriangles, expected, `episode ${i + 1}: ${v.meshTriangles} mesh triangles drawn`);
      assert.deepEqual(errors, [], `after episode ${i + 1} of ${EPISODES}`);
    }
    // And back to the first by a deep link.
    await page.goto(`${server.url}#episode=${episodeIds[0]}`);
    await shown(episodeIds[0]!);
    assert.deepEqual(errors, []);
  } finally {
    await page.close();
  }
});
