/**
 * The viewer's data layer keeps a waiting question blind: an episode waiting for a spot check (only
 * in `anchors-env/`, recorded a success) or for an outcome label (in `anchors/`, recorded a failure)
 * is served without any outcome, in the list and in the episode itself; once labelled, both show
 * the label, not the record; once the step completes, the checkpoint decides what is listed.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { unpack } from 'msgpackr';
import { EpisodeStore } from '../../src/data/episodeStore.ts';
import { LabelStore } from '../../src/operator/labelStore.ts';
import { writePending, type PendingItem } from '../../src/operator/pendingItems.ts';
import { runAnchorDir } from '../../src/rl/run/runTraining.ts';
import { envRecordDir } from '../../src/success/envRecordDir.ts';
import { encodeServerMessage } from '../../src/viewer/clientSession.ts';
import type { EpisodeSummary } from '../../src/viewer/messages.ts';
import { ViewerData } from '../../src/viewer/viewerData.ts';
import { WAITING_NOTE } from '../../src/viewer/waitingForLabel.ts';
import { makeTestEpisode } from '../helpers/episodes.ts';

const dir = mkdtempSync(join(tmpdir(), 'wmrl-viewer-waiting-'));
const runDir = join(dir, 'run');
const SPOT = 'run.s1.g0.r0';
const LABEL = 'run.s1.g0.r1';

function item(id: string, reason: 'outcome' | 'spot-check'): PendingItem {
  return { kind: 'label', id, instruction: 'reach', steps: 5, step: 1, reason, since: new Date().toISOString() };
}

async function storeOne(storeDir: string, id: string, success: boolean): Promise<void> {
  const store = await EpisodeStore.create(storeDir, { robot: 'vx300' });
  await store.append(makeTestEpisode({ id, seed: 3, robot: 'vx300', stateDim: 0, width: 16, height: 16, success }));
  await store.close();
}

/** The list as the page receives it (msgpack over the websocket), not as the server holds it. */
function received(data: ViewerData): EpisodeSummary[] {
  const hello = unpack(encodeServerMessage({ type: 'hello', run: data.runInfo(true), episodes: data.episodes }));
  return (hello as { episodes: EpisodeSummary[] }).episodes;
}

before(async () => {
  mkdirSync(runDir, { recursive: true });
  writeFileSync(join(runDir, 'train.metrics.jsonl'), `${JSON.stringify({ kind: 'eval', step: 0 })}\n`);
  // In the simulator the environment's record is the truth: a success the question must not show.
  await storeOne(envRecordDir(runDir), SPOT, true);
  // On a robot without task status the record reads failure.
  await storeOne(runAnchorDir(runDir), LABEL, false);
  await writePending(runDir, [item(SPOT, 'spot-check'), item(LABEL, 'outcome')]);
});
after(() => rmSync(dir, { recursive: true, force: true }));

test('a waiting episode is served without an outcome; once labelled, with the label', async () => {
  const data = new ViewerData({ runDir });
  try {
    await data.poll();
    for (const id of [SPOT, LABEL]) {
      const row = received(data).find((e) => e.id === id);
      assert.ok(row, `${id} waiting for a label is listed`);
      assert.ok(!('success' in row), `${id}: no outcome in the list: ${JSON.stringify(row)}`);
      assert.equal(row.waiting, true);
      assert.equal(row.step, 1, 'the step that asked');
      const view = await data.episodeView(id);
      assert.ok(!('success' in view.summary), `${id}: no outcome in the episode's summary`);
      assert.equal(view.progress, null, `${id}: no recorded progress`);
      assert.equal(view.successes, null, `${id}: no recorded success flags`);
      assert.equal(view.imagined, null, `${id}: no imagined success either`);
      assert.equal(view.imaginationNote, WAITING_NOTE);
      // What the operator judges by stays: the camera frames and the arm's poses, every step.
      assert.equal(view.cameras[0]!.frames.length, 6 * 16 * 16 * 3);
      assert.equal(view.ee.length, 6 * 3);
      assert.ok(view.poses.length > 0);
    }

    // The spot check answered here (the opposite of the record: the label, not the record, shows).
    await data.label(SPOT, 'failure');
    const spot = data.episodes.find((e) => e.id === SPOT);
    assert.deepEqual([spot?.success, spot?.waiting], [false, undefined], 'listed with its label at once');
    const view = await data.episodeView(SPOT);
    assert.equal(view.summary.success, false);
    assert.ok(view.progress && view.successes, 'the recorded series show once it is labelled');

    // The outcome label given on the trainer's terminal; the trainer takes both off its list.
    const labels = await LabelStore.open(runDir);
    await labels.add({ episode: LABEL, verdict: 'success', by: 'terminal', at: new Date().toISOString() });
    await writePending(runDir, []);
    const changes = await data.poll();
    assert.ok(changes.episodes, 'the list changed');
    assert.deepEqual(
      received(data).map((e) => [e.id, e.success, e.waiting]),
      [
        [LABEL, true, undefined],
        [SPOT, false, undefined],
      ],
      'answered episodes stay listed, each with its label, until their step completes',
    );

    // Step 1 completes; its checkpoint counts the labelled anchor (the spot check's relabelled copy
    // would be in anchors/; here it is not, so it is no longer listed).
    mkdirSync(join(runDir, 'checkpoint'), { recursive: true });
    const state = { step: 1, anchorEpisodeIds: [LABEL] };
    writeFileSync(join(runDir, 'checkpoint', 'state.json'), JSON.stringify(state));
    await data.poll();
    assert.deepEqual(
      received(data).map((e) => [e.id, e.success, e.waiting]),
      [[LABEL, true, undefined]],
    );
  } finally {
    await data.close();
  }
});

test('a viewer opened while an episode waits serves it blind from the first poll', async () => {
  const fresh = join(dir, 'fresh');
  mkdirSync(fresh, { recursive: true });
  writeFileSync(join(fresh, 'train.metrics.jsonl'), `${JSON.stringify({ kind: 'eval', step: 0 })}\n`);
  await storeOne(envRecordDir(fresh), SPOT, true);
  await writePending(fresh, [item(SPOT, 'spot-check')]);
  const data = new ViewerData({ runDir: fresh });
  try {
    await data.poll();
    assert.deepEqual(
      received(data).map((e) => [e.id, 'success' in e, e.waiting]),
      [[SPOT, false, true]],
    );
  } finally {
    await data.close();
  }
});
