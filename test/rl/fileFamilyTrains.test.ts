/**
 * A task family added as a file alone trains with the generic score: demonstrations of it (a scripted expert the file
 * names), a clone, then `wmrl train` with the defaults, whose keyframes are learned from the family's own
 * demonstrations. No code knows the family.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runWmrl } from '../helpers/wmrlProcess.ts';

const wmrl = (...args: string[]) => runWmrl(args, 300_000);

/** A family no built-in one has: raise the block 3 cm and hold it there, demonstrated by the pick expert. */
const RAISE = [
  'instructions:',
  '  templates:',
  '    - raise the {color} block a little',
  '    - lift the {color} block off the table',
  '    - nudge up the {color} block',
  'split: { colors: [green], templates: [2] }',
  'seconds: 5',
  'scene:',
  '  objects: [block]',
  '  distractors: 1',
  '  expert: pick',
  '  goal: { at: target.start, offset: [0, 0, 0.03] }',
  '  success:',
  '    hold: 0.3',
  '    all: [{ above: [target, target.start], by: 0.03 }]',
  '  progress: [{ closer: [gripper, target], weight: 0.5 }, { rise: [target, target.start], to: 0.03, weight: 0.5 }]',
].join('\n');

test('a family added as a task file trains with the generic keyframe score, with no code change', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'wmrl-file-family-'));
  try {
    const file = join(dir, 'raise.yaml');
    writeFileSync(file, `${RAISE}\n`);
    const data = join(dir, 'demos');
    let r = await wmrl(
      'collect',
      '--task-file',
      file,
      '--task',
      'raise',
      '--episodes',
      '12',
      '--seed',
      '40',
      '--out',
      data,
    );
    assert.equal(r.code, 0, r.stderr);
    const bc = join(dir, 'bc');
    r = await wmrl(
      ...['pretrain', '--data', data, '--out', bc, '--config', 'configs/policy/tiny.yaml'],
      ...['--bc.epochs=1', '--encoder.epochs=1', '--backend', 'wasm'],
    );
    assert.equal(r.code, 0, r.stderr);
    writeFileSync(join(dir, 'wm.yaml'), 'kind: state\nmembers: 2\nhidden: [32]\ntrain: { epochs: 1, k: 2 }\n');
    const run = join(dir, 'run');
    r = await wmrl(
      ...['train', '--task-file', file, '--policy', join(bc, 'policy'), '--data', data, '--out', run],
      ...['--wm-config', join(dir, 'wm.yaml'), '--backend', 'wasm', '--tasks=raise', '--eval.tasks=raise'],
      ...['--steps=1', '--groups=2', '--rolloutsPerGroup=2', '--anchorFraction=0.5', '--anchorEvery=1'],
      ...['--eval.episodes=2', '--eval.every=1', '--isotonic.minPairs=2', '--worldModel.warmupEpisodes=0'],
    );
    assert.equal(r.code, 0, r.stderr);
    // The keyframes came from the family's own demonstrations: the pick expert closes on the block, then ends.
    assert.match(
      r.stdout + r.stderr,
      /keyframes fitted .*close: raise [\d.]+ cm over 12.*end: raise [\d.]+ cm over 12/,
    );
    const records = readFileSync(join(run, 'train.metrics.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, any>);
    const config = JSON.parse(readFileSync(join(run, 'train.config.json'), 'utf8')) as { config: { score: string } };
    assert.equal(config.config.score, 'keyframes', 'the default score, no family rule');
    const [fit] = records.filter((m) => m.kind === 'keyframe-localiser');
    assert.deepEqual(Object.keys(fit!.events).sort(), ['close', 'end']);
    const [step] = records.filter((m) => m.kind === 'step');
    assert.ok(step!.imaginedRollouts > 0, 'imagined rollouts scored and trained on');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
