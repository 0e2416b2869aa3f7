/**
 * The viewer's data layer answers `wmrl label`'s questions on a dataset (`wmrl view --data DIR`):
 * the episode asked about is listed and served blind (a recorded success, shown nowhere), and so is
 * every other episode still to be asked; a label given here reaches the asking desk through
 * DIR/labels.jsonl and the row shows it; an episode not asked about takes no label. Once the session
 * ends, the rows show the labels and the recorded outcomes, and an episode recorded without success
 * information shows none. The page's row mark stays ? for a pending episode whatever its row says.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { unpack } from 'msgpackr';
import { EpisodeStore } from '../../src/data/episodeStore.ts';
import { OperatorDesk } from '../../src/operator/operatorDesk.ts';
import { encodeServerMessage } from '../../src/viewer/clientSession.ts';
import type { EpisodeSummary } from '../../src/viewer/messages.ts';
import { ViewerData } from '../../src/viewer/viewerData.ts';
import { WAITING_NOTE } from '../../src/viewer/waitingForLabel.ts';
import { outcomeMark } from '../../web/viewer/outcomeMark.ts';
import { makeTestEpisode } from '../helpers/episodes.ts';

const dir = mkdtempSync(join(tmpdir(), 'wmrl-viewer-dataset-labels-'));
const data = join(dir, 'data');
const ASKED = 'ep-success';
const UNKNOWN = 'ep-unknown';
const LATER = 'ep-failure';

/** The list as the page receives it (msgpack over the websocket). */
function received(viewer: ViewerData): EpisodeSummary[] {
  const hello = unpack(encodeServerMessage({ type: 'hello', run: viewer.runInfo(true), episodes: viewer.episodes }));
  return (hello as { episodes: EpisodeSummary[] }).episodes;
}

const rows = (viewer: ViewerData) => received(viewer).map((e) => [e.id, e.success, e.waiting]);

before(async () => {
  const store = await EpisodeStore.create(data, { robot: 'vx300' });
  const episode = (id: string, seed: number, success: boolean) =>
    makeTestEpisode({ id, seed, robot: 'vx300', stateDim: 0, width: 16, height: 16, success });
  await store.append(episode(ASKED, 1, true));
  await store.append({ ...episode(UNKNOWN, 2, false), successUnknown: true });
  await store.append(episode(LATER, 3, false));
  await store.close();
});
after(() => rmSync(dir, { recursive: true, force: true }));

test("the viewer answers wmrl label's question on a dataset, blind until labelled", async () => {
  const desk = await OperatorDesk.open({ runDir: data, pollMs: 20 });
  const viewer = new ViewerData({ dataDirs: [data] });
  try {
    await viewer.poll();
    assert.deepEqual(
      rows(viewer),
      [
        [ASKED, true, undefined],
        [UNKNOWN, undefined, undefined],
        [LATER, false, undefined],
      ],
      'no session: recorded outcomes, none for the episode recorded without one',
    );

    const verdict = desk.ask({ id: ASKED, task: makeTestEpisode().task, steps: 5 }, { reason: 'outcome' });
    // The desk lists it (operator/pending.json in the dataset) once it has looked for an earlier label.
    for (let i = 0; i < 200 && viewer.pending.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 10));
      await viewer.poll();
    }
    assert.deepEqual(
      viewer.pending.map((p) => `${p.kind}:${p.id}`),
      [`label:${ASKED}`],
      "the dataset's question is listed",
    );
    for (const id of [ASKED, UNKNOWN, LATER]) {
      const row = received(viewer).find((e) => e.id === id)!;
      assert.ok(!('success' in row), `${id}: no outcome while the dataset is being labelled: ${JSON.stringify(row)}`);
      assert.equal(row.waiting, true);
      assert.equal(outcomeMark(row), '?');
    }
    // The page's mark for the asked episode is ? even from a stale row that carries an outcome.
    const stale: EpisodeSummary = { ...received(viewer)[0]!, success: true, waiting: undefined };
    assert.equal(outcomeMark(stale, new Set([ASKED])), '?');
    assert.equal(outcomeMark(stale), '✓');
    const view = await viewer.episodeView(ASKED);
    assert.ok(!('success' in view.summary));
    assert.equal(view.progress, null, 'no recorded progress');
    assert.equal(view.successes, null, 'no recorded success flags');
    assert.equal(view.imaginationNote, WAITING_NOTE);
    assert.equal(view.cameras[0]!.frames.length, 6 * 16 * 16 * 3, 'the frames to judge by');

    await assert.rejects(viewer.label(LATER, 'failure'), /does not wait for a label/, 'only the asked episode');
    // The person judges it a failure, against the record: the label, not the record, counts.
    const stored = await viewer.label(ASKED, 'failure', 'missed the block');
    assert.equal(stored.by, 'viewer');
    assert.deepEqual(await verdict, { success: false, note: 'missed the block' }, 'the desk gets the label');
    const lines = readFileSync(join(data, 'labels.jsonl'), 'utf8').split('\n').filter(Boolean);
    assert.deepEqual(
      lines.map((l) => JSON.parse(l).episode),
      [ASKED],
      'stored once, beside the dataset',
    );
    await desk.close();
    await viewer.poll();
    assert.deepEqual(rows(viewer), [
      [ASKED, false, undefined],
      [UNKNOWN, undefined, undefined],
      [LATER, false, undefined],
    ]);
    assert.equal(outcomeMark(received(viewer)[1]!), '–', 'no outcome recorded, none labelled');
    const labelled = await viewer.episodeView(ASKED);
    assert.equal(labelled.summary.success, false);
    assert.ok(labelled.progress && labelled.successes, 'the recorded series show once it is labelled');
  } finally {
    await desk.close();
    await viewer.close();
  }
});
