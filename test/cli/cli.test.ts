import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runWmrl } from '../helpers/wmrlProcess.ts';

const wmrl = (...args: string[]) => runWmrl(args);

function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) {
      const p = join(
        (entry as unknown as { parentPath?: string; path: string }).parentPath ??
          (entry as unknown as { path: string }).path,
        entry.name,
      );
      out[p] = readFileSync(p).toString('base64');
    }
  }
  return out;
}

test('wmrl tasks lists families and the held-out split', async () => {
  const r = await wmrl('tasks');
  assert.equal(r.code, 0, r.stderr);
  for (const f of ['reach', 'push', 'pick']) assert.match(r.stdout, new RegExp(`^${f} `, 'm'));
  assert.match(r.stdout, /test only/);
});

test('collect → info round trip, append, and refusals that change nothing', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'wmrl-cli-'));
  try {
    const out = join(dir, 'demos');
    let r = await wmrl('collect', '--task', 'reach,pick', '--episodes', '4', '--split', 'both', '--out', out);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /collected 4 episodes/);
    r = await wmrl('collect', '--task', 'push', '--policy', 'random', '--episodes', '2', '--seed', '100', '--out', out);
    assert.equal(r.code, 0, r.stderr);
    r = await wmrl('info', out, '--json');
    assert.equal(r.code, 0, r.stderr);
    const summary = JSON.parse(r.stdout);
    assert.equal(summary.episodes, 6);
    assert.equal(summary.robot, 'vx300');
    assert.ok(summary.groups.some((g: { family: string; split: string }) => g.family === 'pick' && g.split === 'test'));
    const human = await wmrl('info', out);
    assert.match(human.stdout, /6 episodes/);
    assert.match(human.stdout, /steps to success \(median \/ 95% \/ max\)/);
    assert.ok(readdirSync(join(out, 'runs')).some((f) => f.endsWith('.config.json')));

    // A folder with other files is refused and left as it was.
    const foreign = join(dir, 'foreign');
    rmSync(foreign, { recursive: true, force: true });
    writeFileSync(join(dir, 'note.txt'), 'keep me');
    const before = snapshot(dir);
    r = await wmrl('collect', '--episodes', '1', '--out', dir);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /not a wmrl dataset|not empty|other files/i);
    assert.deepEqual(snapshot(dir), before);

    // A dataset of another robot is refused and left as it was.
    const manifestPath = join(out, 'dataset.json');
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
    writeFileSync(manifestPath, JSON.stringify({ ...manifest, robot: 'other_arm' }));
    const before2 = snapshot(out);
    r = await wmrl('collect', '--episodes', '1', '--out', out);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /other_arm/);
    assert.deepEqual(snapshot(out), before2);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('bad input gets a clear message and a non-zero exit', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'wmrl-cli-'));
  try {
    let r = await wmrl('collect', '--task', 'stack', '--out', join(dir, 'x'));
    assert.equal(r.code, 1);
    assert.match(r.stderr, /unknown task family 'stack'/);
    r = await wmrl('collect', '--task', 'pick:magenta', '--out', join(dir, 'x'));
    assert.match(r.stderr, /unknown colour 'magenta'/);
    r = await wmrl('collect', '--episodes', 'lots', '--out', join(dir, 'x'));
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--episodes must be an integer/);
    r = await wmrl('collect', '--robot', 'nope', '--out', join(dir, 'x'));
    assert.match(r.stderr, /unknown robot 'nope'/);
    r = await wmrl('info', join(dir, 'missing'));
    assert.notEqual(r.code, 0);
    r = await wmrl('frobnicate');
    assert.equal(r.code, 2);
    assert.match(r.stderr, /unknown command 'frobnicate'/);
    assert.deepEqual(readdirSync(dir), [], 'nothing was written by refused commands');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('worker: --robot is the robot description as everywhere, --robot-name the pool name, --arm refused', async () => {
  const queue = ['worker', '--queue', 'redis://127.0.0.1:1'];
  let r = await wmrl(...queue, '--robot-name', 'arm1', '--arm', 'vx300');
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--arm is gone: give the robot description with --robot vx300/);
  r = await wmrl(...queue, '--robot', 'arm7');
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--robot-name are required\n--robot is the robot description/);
  r = await wmrl(...queue, '--robot-name', 'arm1', '--robot', 'nope', '--backend', 'cpu');
  assert.equal(r.code, 1);
  assert.match(r.stderr, /unknown robot 'nope'/);
});

test('info names the file and offset of a corrupted record', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'wmrl-cli-'));
  try {
    const out = join(dir, 'd');
    assert.equal((await wmrl('collect', '--task', 'reach', '--episodes', '2', '--out', out)).code, 0);
    const chunk = readdirSync(out).find((f) => f.endsWith('.wmrl'))!;
    const bytes = readFileSync(join(out, chunk));
    bytes[bytes.length - 100]! ^= 0xff;
    writeFileSync(join(out, chunk), bytes);
    const r = await wmrl('info', out);
    assert.equal(r.code, 1);
    assert.match(r.stderr, new RegExp(`${chunk}.*offset \\d+.*CRC32 mismatch`));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('wm train → wm eval on a tiny dataset; bad config values are named', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'wmrl-cli-'));
  try {
    const data = join(dir, 'data');
    assert.equal((await wmrl('collect', '--task', 'reach', '--episodes', '3', '--out', data)).code, 0);
    assert.equal(
      (await wmrl('collect', '--task', 'reach', '--policy', 'random', '--episodes', '3', '--seed', '50', '--out', data))
        .code,
      0,
    );
    const out = join(dir, 'wm');
    let r = await wmrl(
      'wm',
      'train',
      '--data',
      data,
      '--out',
      out,
      '--config',
      'configs/wm/state.yaml',
      '--members=2',
      '--hidden=[16]',
      '--train.epochs=1',
      '--backend',
      'cpu',
    );
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /world model saved/);
    assert.match(r.stdout, /AUROC/);
    const saved = JSON.parse(readFileSync(join(out, 'wm-train.config.json'), 'utf8'));
    assert.equal(saved.config.members, 2);
    assert.ok(readFileSync(join(out, 'wm-train.metrics.jsonl'), 'utf8').trim().split('\n').length >= 2);
    r = await wmrl('wm', 'eval', '--model', out, '--data', data, '--json', '--backend', 'cpu');
    assert.equal(r.code, 0, r.stderr);
    assert.ok(Number.isFinite(JSON.parse(r.stdout).oneStep.jointRmse));
    r = await wmrl('wm', 'train', '--data', data, '--out', join(dir, 'x'), '--members=0');
    assert.equal(r.code, 1);
    assert.match(r.stderr, /members/);
    r = await wmrl('wm', 'train', '--data', data, '--out', join(dir, 'x'), '--train.epoks=3');
    assert.match(r.stderr, /epoks/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('pretrain → eval: the evaluation lists the train and held-out splits separately', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'wmrl-cli-'));
  try {
    const data = join(dir, 'demos');
    assert.equal((await wmrl('collect', '--task', 'reach', '--episodes', '4', '--out', data)).code, 0);
    const out = join(dir, 'bc');
    let r = await wmrl(
      'pretrain',
      '--data',
      data,
      '--out',
      out,
      '--config',
      'configs/policy/tiny.yaml',
      '--bc.epochs=1',
      '--encoder.epochs=1',
      '--backend',
      'cpu',
    );
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /policy 'tiny': [\d,]+ parameters/);
    assert.match(r.stderr, /in the image [\d.]+ px/);
    assert.match(r.stdout, /policy saved/);
    assert.match(r.stderr, /warning: 'purple', the held-out colour of reach, is in no training instruction/);
    r = await wmrl(
      'eval',
      '--policy',
      out,
      '--task',
      'reach',
      '--episodes',
      '1',
      '--out',
      join(dir, 'eval'),
      '--backend',
      'cpu',
    );
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^train\s+reach\s/m);
    assert.match(r.stdout, /^test\s+reach\s/m);
    assert.match(r.stdout, /95% interval/);
    r = await wmrl('info', join(dir, 'eval'), '--json');
    assert.equal(JSON.parse(r.stdout).episodes, 2, 'evaluation episodes are stored');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
