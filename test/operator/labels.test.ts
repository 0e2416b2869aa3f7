/**
 * Operator labels: the durable store (first label counts, torn lines, several writers), the desk
 * (a label given before is never asked again; the viewer's answer through the file), and the
 * training step's use of them (a group without a label for every rollout is left out; the stop
 * setting stops with the labels kept).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { LABELS_FILE, LabelStore } from '../../src/operator/labelStore.ts';
import { OperatorDesk } from '../../src/operator/operatorDesk.ts';
import { readPending } from '../../src/operator/pendingItems.ts';
import { TerminalPrompt } from '../../src/operator/terminalPrompt.ts';
import { labelAnchorGroups, LabelTimeoutError } from '../../src/rl/run/operatorOutcomes.ts';
import type { AskOperator } from '../../src/operator/askOperator.ts';
import { makeTestEpisode } from '../helpers/episodes.ts';

const label = (episode: string, verdict: 'success' | 'failure' | 'skip', by = 'test') => ({
  episode,
  verdict,
  by,
  at: new Date().toISOString(),
});

test('label store: the first label of an episode counts, a second is ignored, a torn line skipped', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'wmrl-labels-'));
  try {
    const a = await LabelStore.open(dir);
    assert.equal((await a.add(label('e1', 'success', 'viewer'))).verdict, 'success');
    // Another writer (the viewer's process) answers the same episode later: the first answer stands.
    const b = await LabelStore.open(dir);
    assert.equal((await b.add(label('e1', 'failure', 'terminal'))).by, 'viewer');
    // A kill mid-write leaves a torn line; the next label starts on a line of its own.
    appendFileSync(join(dir, LABELS_FILE), '{"episode":"e2","verd');
    await b.add(label('e3', 'failure'));
    const reopened = await LabelStore.open(dir);
    assert.deepEqual(
      reopened.all().map((l) => [l.episode, l.verdict]),
      [
        ['e1', 'success'],
        ['e3', 'failure'],
      ],
    );
    assert.equal(readFileSync(join(dir, LABELS_FILE), 'utf8').split('\n').filter(Boolean).length, 3);
    await assert.rejects(a.add({ ...label('e4', 'success'), verdict: 'maybe' as 'skip' }), /verdict must be success/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('label store: reads racing in one process (one desk, many waiting episodes) miss no later label', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'wmrl-labels-race-'));
  try {
    const reader = await LabelStore.open(dir);
    const writer = await LabelStore.open(dir);
    for (const id of ['a', 'b', 'c']) await writer.add(label(id, 'success'));
    // Both reads see the same new lines; neither may move past lines the other has not read.
    await Promise.all([reader.refresh(), reader.refresh(), reader.refresh()]);
    await writer.add(label('d', 'failure'));
    await reader.refresh();
    assert.deepEqual(
      reader.all().map((l) => l.episode),
      ['a', 'b', 'c', 'd'],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('desk: a pending episode is listed, the file answer resolves the ask, it is never asked again', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'wmrl-desk-'));
  try {
    const desk = await OperatorDesk.open({ runDir: dir, pollMs: 20 });
    const episode = makeTestEpisode({ id: 'run.s1.g0.r0' });
    const asked = desk.ask(episode, { reason: 'outcome', step: 1 });
    let pending = await readPending(dir);
    for (let i = 0; i < 50 && pending.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 20));
      pending = await readPending(dir);
    }
    assert.deepEqual(
      pending.map((p) => [p.kind, p.id]),
      [['label', 'run.s1.g0.r0']],
    );
    // The viewer (another process) writes the label.
    await (await LabelStore.open(dir)).add({ ...label('run.s1.g0.r0', 'failure', 'viewer'), note: 'dropped it' });
    assert.deepEqual(await asked, { success: false, note: 'dropped it' });
    assert.deepEqual(await readPending(dir), []);
    // A restarted trainer asks again: the stored label comes back, nothing is listed.
    const again = await OperatorDesk.open({ runDir: dir, pollMs: 20 });
    assert.deepEqual(await again.ask(episode, { reason: 'outcome' }), { success: false, note: 'dropped it' });
    assert.deepEqual(again.counts, { asked: 0, fromStore: 1 });
    await desk.close();
    await again.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("desk: a spot check says so, with the detector's score, on the list and the terminal", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'wmrl-desk-spot-'));
  const input = new PassThrough();
  const output = new PassThrough();
  let shown = '';
  output.on('data', (d: Buffer) => (shown += d.toString()));
  const terminal = new TerminalPrompt({ input, output });
  try {
    const desk = await OperatorDesk.open({ runDir: dir, pollMs: 20, terminal });
    const asked = desk.ask(makeTestEpisode({ id: 'run.s2.g0.r1' }), {
      reason: 'spot-check',
      step: 2,
    });
    for (let i = 0; i < 50 && !shown.includes('label> '); i++) await new Promise((r) => setTimeout(r, 20));
    assert.match(shown, /a spot check of the success detector\)/);
    assert.doesNotMatch(shown, /0\.\d\d/, 'blind: no detector score shown');
    const [item] = await readPending(dir);
    assert.deepEqual(item && item.kind === 'label' && [item.reason, 'detectorScore' in item], ['spot-check', false]);
    input.write('s\n');
    assert.deepEqual(await asked, { success: true });
    await desk.close();
  } finally {
    terminal.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('operator outcomes: a skipped or unlabelled rollout leaves its group out; labels replace success', async () => {
  const episodes = [0, 1, 2, 3, 4, 5].map((i) => makeTestEpisode({ id: `e${i}`, seed: i + 1, success: true }));
  const verdicts: Record<string, 'skip' | boolean | 'never'> = {
    e0: false,
    e1: true,
    e2: 'skip',
    e3: true,
    e4: true,
    e5: 'never',
  };
  const ask: AskOperator = (e, { signal }) => {
    const v = verdicts[e.id]!;
    if (v === 'never')
      return new Promise((_, reject) => signal!.addEventListener('abort', () => reject(signal!.reason)));
    return Promise.resolve(v === 'skip' ? 'skip' : { success: v });
  };
  const out = await labelAnchorGroups(episodes, 2, ask, { labelTimeout: 0.2, onTimeout: 'skip' }, 3);
  // Groups of two: (e0, e1) labelled; (e2, e3) has a skip; (e4, e5) has a timeout.
  assert.deepEqual(out.kept, [0]);
  assert.deepEqual(
    out.episodes.map((e) => [e.id, e.success, e.successes.at(-1)]),
    [
      ['e0', false, 0],
      ['e1', true, 1],
    ],
  );
  assert.equal(
    out.episodes[1]!.successes.slice(0, -1).reduce((s, v) => s + v, 0),
    0,
  );
  assert.deepEqual(
    out.skipped.map((s) => [s.episode, s.why]),
    [
      ['e2', 'skipped'],
      ['e5', 'timeout'],
    ],
  );
  await assert.rejects(
    labelAnchorGroups(episodes, 2, ask, { labelTimeout: 0.2, onTimeout: 'stop' }, 3),
    (err: unknown) => err instanceof LabelTimeoutError && /1 anchor episode\(s\) of step 3 \(e5\)/.test(err.message),
  );
});
