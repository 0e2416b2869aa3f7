/**
 * `wmrl label DIR` on a dataset recorded without success information (as `wmrl import lerobot` stores
 * a LeRobot dataset without next.success): the answers typed on its input (stdin, as a person would)
 * are stored in DIR/labels.jsonl, a second run resumes at the unlabelled episodes, a label given twice
 * counts once, and `wmrl success train`, which refuses the unlabelled dataset, trains on the labels.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { selectBackend } from '../../src/backend/selectBackend.ts';
import { main } from '../../src/cli/main.ts';
import { EpisodeStore } from '../../src/data/episodeStore.ts';
import { LabelStore } from '../../src/operator/labelStore.ts';
import { POLICY_KERNELS } from '../../src/policy/policyConfig.ts';
import { datasetOutcomeLabels } from '../../src/success/datasetLabels.ts';
import { loadDetector } from '../../src/success/detectorFiles.ts';
import { makeTestEpisode } from '../helpers/episodes.ts';

const BIN = resolve('bin/wmrl.js');
const dir = mkdtempSync(join(tmpdir(), 'wmrl-label-'));
const data = join(dir, 'data');
const IDS = ['lerobot-demo-0', 'lerobot-demo-1', 'lerobot-demo-2', 'lerobot-demo-3'];

/** `wmrl label` with `input` typed on its stdin, which then ends. */
function label(input: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [BIN, 'label', data], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b));
    child.stderr.on('data', (b: Buffer) => (stderr += b));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('error', fail);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
    child.stdin.end(input);
  });
}

function fileLabels(): { episode: string; verdict: string; by: string }[] {
  return readFileSync(join(data, 'labels.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { episode: string; verdict: string; by: string });
}

before(async () => {
  await selectBackend('wasm', { requiredKernels: POLICY_KERNELS, log: () => {} });
  const store = await EpisodeStore.create(data, { robot: 'vx300' });
  // Stored as the import stores them: success false, progress 0, and no success information.
  for (const [i, id] of IDS.entries())
    await store.append({
      ...makeTestEpisode({ id, seed: 10 + i, robot: 'vx300', width: 16, height: 16, success: false }),
      successUnknown: true,
    });
  await store.close();
});
after(() => rmSync(dir, { recursive: true, force: true }));

test('wmrl success train refuses a dataset without success information, and says how to label it', async () => {
  const errors: string[] = [];
  const error = console.error;
  console.error = (...xs: unknown[]) => errors.push(xs.join(' '));
  try {
    const code = await main(['success', 'train', '--data', data, '--out', join(dir, 'refused'), '--backend', 'wasm']);
    assert.equal(code, 1);
  } finally {
    console.error = error;
  }
  const message = errors.join('\n');
  assert.match(message, /0 successes in 0 labelled episodes/, 'its false successes are no failures');
  assert.match(message, /4 episodes were recorded without success information .*wmrl label DIR/);
});

test('wmrl label stores typed labels, resumes at the unlabelled episodes, and counts each label once', async () => {
  // A wrong answer is asked again; the input ends after two labels: the session stops, nothing lost.
  const first = await label('s\nmaybe\nf dropped it\n');
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stdout, /4 episodes; labelled now 1 success, 1 failure, 0 skip; 0 labelled before; 2 left/);
  assert.match(first.stdout, /run wmrl label .* again/);
  assert.match(first.stderr, /answer s \(success\), f \(failure\) or k \(skip\)/, 'the wrong answer is said so');
  assert.deepEqual(
    fileLabels().map((l) => [l.episode, l.verdict, l.by]),
    [
      [IDS[0], 'success', 'terminal'],
      [IDS[1], 'failure', 'terminal'],
    ],
  );
  // Blind: the question names the episode and its instruction, never an outcome.
  assert.match(first.stderr, /label episode lerobot-demo-0 \(5 steps\)/);
  assert.match(first.stderr, /wmrl view --data /, 'says where to watch it');
  assert.doesNotMatch(first.stderr, /progress|reward|score|recorded/i);

  // Resumed: asked only about the two left.
  const second = await label('k\ns\n');
  assert.equal(second.code, 0, second.stderr);
  assert.doesNotMatch(second.stderr, /label episode lerobot-demo-[01] /, 'a labelled episode is not asked again');
  assert.match(second.stderr, /label episode lerobot-demo-2 .*\n[\s\S]*label episode lerobot-demo-3 /);
  assert.match(second.stdout, /labelled now 1 success, 0 failure, 1 skip; 2 labelled before; 0 left/);
  assert.match(second.stdout, /every episode is labelled: wmrl success train --data/);

  // Nothing left to ask: the third run asks nothing and adds nothing.
  const third = await label('f\n');
  assert.equal(third.code, 0, third.stderr);
  assert.doesNotMatch(third.stderr, /label episode/);
  assert.equal(fileLabels().length, 4);

  // A second label of an episode (a retry, another side answering) is stored nowhere and counts for nothing.
  const store = await LabelStore.open(data);
  const kept = await store.add({ episode: IDS[0]!, verdict: 'failure', by: 'viewer', at: new Date().toISOString() });
  assert.equal(kept.verdict, 'success', 'the first label counts');
  assert.equal(fileLabels().length, 4);
  assert.deepEqual(
    [...(await datasetOutcomeLabels([data]))],
    [
      [IDS[0], true],
      [IDS[1], false],
      [IDS[3], true],
    ],
    'the skip is no label',
  );
});

test('wmrl success train trains on the labels: operator labels, the skipped episode left out', async () => {
  const out = join(dir, 'detector');
  const errors: string[] = [];
  const error = console.error;
  console.error = (...xs: unknown[]) => errors.push(xs.join(' '));
  let code: number;
  try {
    code = await main([
      'success',
      'train',
      '--data',
      data,
      '--out',
      out,
      '--backend',
      'wasm',
      '--imageSize=8',
      '--heads=1',
      '--hidden=8',
      '--train.epochs=2',
      '--train.validationFraction=0',
    ]);
  } finally {
    console.error = error;
  }
  assert.equal(code, 0, errors.join('\n'));
  assert.match(errors.join('\n'), /on 3 labelled episodes \(2 successes, 3 labelled by an operator\)/);
  const detector = await loadDetector(join(out, 'detector'));
  try {
    assert.deepEqual([...detector.meta.trainedOn].sort(), [IDS[0], IDS[1], IDS[3]]);
  } finally {
    detector.dispose();
  }
});
