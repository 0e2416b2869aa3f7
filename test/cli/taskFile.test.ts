import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runWmrl } from '../helpers/wmrlProcess.ts';

const HOLD = resolve('test/fixtures/tasks/hold.yaml');

const wmrl = (...args: string[]) => runWmrl(args, 240_000);

/** A family for the pick expert whose success needs the block held `by` metres up for half a second. */
function liftHold(by: number): string {
  return [
    'instructions:',
    '  templates: ["hold the {color} block up", "keep the {color} block raised", "hold up the {color} block"]',
    'split: { colors: [green], templates: [2] }',
    'seconds: 6',
    'scene:',
    '  objects: [block]',
    '  expert: pick',
    '  goal: { at: target.start, offset: [0, 0, 0.08] }',
    '  success:',
    '    hold: 0.5',
    `    all: [{ above: [target, target.start], by: ${by} }]`,
    '  progress: [{ rise: [target, target.start], to: 0.05 }]',
  ].join('\n');
}

test('a task family added with a YAML file alone: listed, collected, evaluated with its own success', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'wmrl-taskfile-'));
  try {
    let r = await wmrl('tasks', '--task-file', HOLD);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^hold {2}\(6 s; objects: block; .*hold\.yaml\)/m);
    assert.match(r.stdout, /template 2 \[test only\]: carry the \{color\} block/);

    // Random episodes of it; the dataset keeps the family's file, so later commands need no --task-file.
    const data = join(dir, 'hold');
    r = await wmrl(
      'collect',
      '--task-file',
      HOLD,
      '--task',
      'hold',
      '--policy',
      'random',
      '--episodes',
      '2',
      '--out',
      data,
    );
    assert.equal(r.code, 0, r.stderr);
    assert.ok(existsSync(join(data, 'tasks', 'hold.yaml')));
    r = await wmrl('info', data, '--json');
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(
      JSON.parse(r.stdout).groups.map((g: { family: string }) => g.family),
      ['hold'],
    );
    r = await wmrl('collect', '--task-file', HOLD, '--task', 'hold', '--episodes', '1', '--out', join(dir, 'x'));
    assert.equal(r.code, 2);
    assert.match(r.stderr, /no scripted expert demonstrates hold .* --policy random/);

    // Its own success condition decides, in the simulator: the pick expert holds the block 5 cm up, not 50.
    const reachable = join(dir, 'liftable.yaml');
    writeFileSync(reachable, liftHold(0.05));
    r = await wmrl(
      'collect',
      '--task-file',
      reachable,
      '--task',
      'liftable',
      '--episodes',
      '2',
      '--out',
      join(dir, 'ok'),
    );
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /collected 2 episodes/);
    assert.equal(JSON.parse((await wmrl('info', join(dir, 'ok'), '--json')).stdout).successRate, 1);
    const unreachable = join(dir, 'toohigh.yaml');
    writeFileSync(unreachable, liftHold(0.5));
    r = await wmrl(
      'collect',
      '--task-file',
      unreachable,
      '--task',
      'toohigh',
      '--episodes',
      '2',
      '--out',
      join(dir, 'no'),
    );
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse((await wmrl('info', join(dir, 'no'), '--json')).stdout).successRate, 0);

    // A policy evaluated on it: both splits, as the file declares them.
    r = await wmrl(
      'eval',
      '--task-file',
      HOLD,
      '--policy',
      'random',
      '--task',
      'hold',
      '--episodes',
      '1',
      '--out',
      join(dir, 'eval'),
    );
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^train\s+hold\s/m);
    assert.match(r.stdout, /^test\s+hold\s/m);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
