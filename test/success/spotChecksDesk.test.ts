/**
 * `wmrl train --outcome detector` with its spot checks answered by a person through the operator
 * desk, as the viewer does (ViewerData: the pending list, the episode's frames, the label written
 * to labels.jsonl): in the simulator with `--outcome.spotCheckOperator=desk` through the real page
 * in headless Chromium (the waiting episode's row in the list shows no outcome until it is
 * answered), and on a pool of simulated robots (the desk by default there), killed while it waits
 * for a spot check and resumed: a label given meanwhile is used and its episode never asked again;
 * and on `--env rosbridge` against the project's `wmrl sim-server` (the desk by default).
 * `--queue`: test/fleet. The simulated person answers from the run's `anchors-env/` record on disk,
 * never from the page.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Episode } from '../../src/core/types.ts';
import { EpisodeStore } from '../../src/data/episodeStore.ts';
import { LABELS_FILE, LabelStore, type OperatorLabel } from '../../src/operator/labelStore.ts';
import { bin, cli, makeTrainPoolFixture, type TrainPoolFixture } from '../scheduler/trainPoolFixture.ts';
import { viewerOperator } from '../helpers/viewerOperator.ts';
import { launchTestChromium, testChromium } from '../viewer/testChromium.ts';
import { requireBundle } from '../../src/viewer/bundle.ts';
import { startSimServerProcess } from '../../sim/rosbridge/simServerProcess.ts';

let fx: TrainPoolFixture;
let detector: string;

before(async () => {
  fx = await makeTrainPoolFixture('wmrl-spot-desk-');
  detector = join(fx.dir, 'detector');
  const fit = ['success', 'train', '--data', join(fx.dir, 'data'), '--out', detector, '--backend', 'wasm'];
  cli([...fit, '--train.epochs=1']);
});
after(() => fx?.remove());

async function episodes(dir: string): Promise<Episode[]> {
  const out: Episode[] = [];
  for await (const e of (await EpisodeStore.open(dir)).episodes()) out.push(e);
  return out;
}

function reports(runDir: string): { step: number; spotChecks: number; drift: { checks: number } }[] {
  return readFileSync(join(runDir, 'detector.metrics.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
    .filter((r) => r.kind === 'anchors');
}

function labels(runDir: string): OperatorLabel[] {
  return readFileSync(join(runDir, LABELS_FILE), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as OperatorLabel);
}

const DETECTOR = ['--outcome', 'detector', '--outcome.spotChecks=1', '--outcome.minChecks=2'];

/** Runs `wmrl train` to its end (exit 0), or until `kill()` holds (then SIGKILL); returns its stderr. */
function train(args: string[], kill?: () => boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    // Checked on a timer: a run waiting for the operator writes nothing.
    const watch = kill ? setInterval(() => kill() && child.kill('SIGKILL'), 100) : undefined;
    // A run left waiting for an answer that never comes must not outlive the test.
    const limit = setTimeout(() => child.kill('SIGKILL'), 240_000);
    child.on('exit', (code, signal) => {
      clearInterval(watch);
      clearTimeout(limit);
      if (kill ? signal === 'SIGKILL' : code === 0) resolve(err);
      else reject(new Error(`exit ${code} ${signal}: ${err}`));
    });
  });
}

test('sim, --outcome.spotCheckOperator=desk: spot checks answered in the browser correct the detector', async () => {
  requireBundle();
  const browser = await launchTestChromium(await testChromium());
  const out = join(fx.dir, 'sim-desk');
  const operator = viewerOperator(out, { browser });
  try {
    await train(fx.args(out, [...DETECTOR, '--detector', detector, '--outcome.spotCheckOperator=desk']));
  } finally {
    await operator.stop();
    await browser.close();
  }
  // 3 steps × 1 anchor group × 2 rollouts, every one spot-checked.
  assert.equal(operator.shown.length, 6);
  const given = labels(out);
  const byId = new Map(given.map((l) => [l.episode, l.verdict]));
  for (const { item, listed, blind, row } of operator.shown) {
    assert.equal(item.reason, 'spot-check');
    assert.ok(!('detectorScore' in item), 'blind: the detector score is not shown');
    assert.ok(listed, `episode ${item.id} waiting for its spot check is listed in the viewer`);
    assert.ok(blind, `episode ${item.id}: its list entry carries no outcome while it waits`);
    // The simulator's own outcome is on disk (anchors-env/): the row must not give it away.
    assert.match(row?.waiting ?? '', /^\? /, `episode ${item.id}: its row is marked waiting`);
    assert.doesNotMatch(row?.waiting ?? '', /[✓✗]/, `episode ${item.id}: neither ✓ nor ✗ while it waits`);
    const mark = byId.get(item.id) === 'success' ? '✓' : '✗';
    assert.ok(row?.answered?.startsWith(mark), `episode ${item.id}: once answered its row shows the label`);
  }
  assert.deepEqual(operator.pageErrors, []);
  assert.deepEqual(
    given.map((l) => l.by),
    new Array(6).fill('viewer'),
  );
  const seen = await episodes(join(out, 'anchors'));
  assert.equal(seen.length, 6);
  for (const e of seen) {
    assert.equal(e.outcome?.source, 'operator');
    assert.equal(e.success ? 'success' : 'failure', byId.get(e.id), "the trainer's outcome is the label");
  }
  const r = reports(out);
  assert.deepEqual(
    r.map((x) => x.spotChecks),
    [2, 2, 2],
    'the correction used them',
  );
  assert.equal(r.at(-1)!.drift.checks, 6);
});

test('a pool: killed while a spot check waits, resumed: a label given meanwhile is not asked again', async () => {
  const out = join(fx.dir, 'pool-desk');
  const pool = ['--robots', join(fx.dir, 'robots.json')];
  // Step 2's spot checks are held: the run waits for them, and is killed there.
  const first = viewerOperator(out, { hold: (item) => item.step === 2 });
  try {
    await train(fx.args(out, [...DETECTOR, '--detector', detector, ...pool]), () =>
      first.shown.some((s) => s.item.step === 2),
    );
  } finally {
    await first.stop();
  }
  const held = first.shown.filter((s) => s.item.step === 2).map((s) => s.item.id);
  assert.ok(held.length >= 1);
  // The operator labels one of them after the kill (as the viewer would, straight into labels.jsonl).
  const store = await LabelStore.open(out);
  await store.add({ episode: held[0]!, verdict: 'failure', by: 'viewer', at: new Date().toISOString() });
  const second = viewerOperator(out, { since: new Date() });
  try {
    await train(fx.args(out, [...DETECTOR, '--detector', detector, ...pool, '--resume']));
  } finally {
    await second.stop();
  }
  assert.ok(
    [...first.shown, ...second.shown].every((s) => s.blind),
    'a waiting episode is listed without its outcome',
  );
  const askedAgain = second.shown.map((s) => s.item.id);
  assert.ok(!askedAgain.includes(held[0]!), 'the label given meanwhile is used, not asked for again');
  assert.ok(
    held.slice(1).every((id) => askedAgain.includes(id)),
    'a pool serves the killed step its same episodes: the unanswered spot check is asked again',
  );
  const given = labels(out);
  assert.equal(new Set(given.map((l) => l.episode)).size, given.length, 'each episode labelled once');
  const seen = await episodes(join(out, 'anchors'));
  assert.equal(new Set(seen.map((e) => e.id)).size, seen.length, 'each anchor stored once');
  assert.equal(seen.length, 6);
  const meanwhile = seen.find((e) => e.id === held[0]);
  assert.deepEqual([meanwhile?.outcome?.source, meanwhile?.success], ['operator', false]);
  assert.equal(reports(out).at(-1)!.drift.checks, 6, 'each spot check counted once in the correction');
});

test('--env rosbridge against `wmrl sim-server`: the spot checks go to the desk without being asked to', async () => {
  const { child: server, url } = await startSimServerProcess(['--port', '0', '--lockstep', '--quiet']);
  const out = join(fx.dir, 'rosbridge-desk');
  const operator = viewerOperator(out);
  try {
    const robot = ['--env', 'rosbridge', '--url', url, '--speed', 'max', '--steps=1'];
    await train(fx.args(out, [...DETECTOR, '--detector', detector, ...robot]));
  } finally {
    await operator.stop();
    server.kill();
  }
  assert.equal(operator.shown.length, 2, 'step 1: 1 anchor group × 2 rollouts');
  assert.ok(operator.shown.every((s) => s.listed && s.blind && s.item.reason === 'spot-check'));
  assert.equal(labels(out).length, 2);
  assert.deepEqual(
    reports(out).map((x) => x.spotChecks),
    [2],
  );
});

test('spot checks on a robot refuse the simulated operator, naming the key', () => {
  const r = spawnSync(
    process.execPath,
    [bin, ...fx.args(join(fx.dir, 'refused'), [...DETECTOR, '--detector', detector])].concat([
      '--robots',
      join(fx.dir, 'robots.json'),
      '--outcome.spotCheckOperator=simulated',
    ]),
    { encoding: 'utf8' },
  );
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /outcome\.spotCheckOperator=simulated answers with the simulator's own outcome/);
});
