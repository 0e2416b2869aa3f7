/**
 * A robot description outside the package (`--robot /some/folder`): collect, pretrain, train,
 * eval, info and the viewer all find it again from where the dataset recorded it. The copy is
 * named 'myarm', so any reload by name alone (robots/myarm) would fail loudly.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { selectBackend } from '../../src/backend/selectBackend.ts';
import { POLICY_KERNELS } from '../../src/policy/policyConfig.ts';
import { ViewerData } from '../../src/viewer/viewerData.ts';
import { WORLD_MODEL_KERNELS } from '../../src/worldmodel/worldModelConfig.ts';
import { copyRobot } from '../helpers/robotCopy.ts';

const BIN = resolve('bin/wmrl.js');
const dir = mkdtempSync(join(tmpdir(), 'wmrl-robot-path-'));
const robotDir = copyRobot(dir, 'myarm');
const data = join(dir, 'data');

function wmrl(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 180_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

before(() => {
  // A relative folder, as a user in the working directory would type it.
  const r = wmrl(
    'collect',
    '--robot',
    relative(process.cwd(), robotDir),
    '--task',
    'reach',
    '--episodes',
    '4',
    '--out',
    data,
  );
  assert.equal(r.status, 0, r.stderr);
});
after(() => rmSync(dir, { recursive: true, force: true }));

test('collect --robot FOLDER records where the robot came from; info reads the dataset', () => {
  const manifest = JSON.parse(readFileSync(join(data, 'dataset.json'), 'utf8'));
  assert.equal(manifest.robot, 'myarm');
  assert.equal(manifest.robotPath, join(robotDir, 'robot.yaml'));
  const info = wmrl('info', data);
  assert.equal(info.status, 0, info.stderr);
  assert.match(info.stdout, /robot myarm/);
  // Appending the same robot from a .yaml path is the same description; another folder is refused.
  const again = wmrl(
    'collect',
    '--robot',
    join(robotDir, 'robot.yaml'),
    '--task',
    'reach',
    '--episodes',
    '1',
    '--seed',
    '9',
    '--out',
    data,
  );
  assert.equal(again.status, 0, again.stderr);
  const other = copyRobot(join(dir, 'elsewhere'), 'myarm');
  const refused = wmrl('collect', '--robot', other, '--task', 'reach', '--episodes', '1', '--out', data);
  assert.equal(refused.status, 1);
  assert.match(refused.stderr, /refusing to append robot 'myarm' \(from .*elsewhere.*another description/);
});

test('pretrain, train, eval and the viewer reload the robot from its recorded path', async () => {
  const bc = join(dir, 'bc');
  let r = wmrl(
    'pretrain',
    ...['--data', data, '--out', bc, '--config', 'configs/policy/tiny.yaml'],
    ...['--bc.epochs=1', '--encoder.epochs=1', '--backend', 'cpu'],
  );
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /policy saved/);
  writeFileSync(join(dir, 'wm.yaml'), 'kind: state\nmembers: 2\nhidden: [16]\ntrain: { epochs: 1, k: 2 }\n');
  const run = join(dir, 'run');
  r = wmrl(
    'train',
    ...['--policy', join(bc, 'policy'), '--data', data, '--out', run, '--backend', 'cpu'],
    ...['--wm-config', join(dir, 'wm.yaml'), '--steps=1', '--groups=1', '--rolloutsPerGroup=2', '--anchorFraction=1'],
    ...['--horizon=2', '--eval.episodes=1', '--eval.every=5', '--eval.tasks=reach', '--tasks=reach'],
  );
  assert.equal(r.status, 0, r.stderr);
  const anchors = JSON.parse(readFileSync(join(run, 'anchors', 'dataset.json'), 'utf8'));
  assert.equal(anchors.robotPath, join(robotDir, 'robot.yaml'), "the run's anchors record the robot's path too");
  r = wmrl(
    'eval',
    ...['--policy', bc, '--robot', robotDir, '--task', 'reach', '--split', 'train', '--episodes', '1'],
    ...['--out', join(dir, 'eval'), '--backend', 'cpu'],
  );
  assert.equal(r.status, 0, r.stderr);
  assert.equal(JSON.parse(readFileSync(join(dir, 'eval', 'dataset.json'), 'utf8')).robotPath, anchors.robotPath);

  // The viewer: an anchor episode's scene and imagination need the robot (kinematics, MJCF geoms).
  await selectBackend('cpu', { requiredKernels: [...POLICY_KERNELS, ...WORLD_MODEL_KERNELS], log: () => {} });
  const view = new ViewerData({ runDir: run, dataDirs: [data] });
  try {
    await view.poll();
    const anchor = view.episodes.find((e) => e.origin === 'anchor');
    assert.ok(anchor, 'the run has anchor episodes');
    const v = await view.episodeView(anchor.id);
    assert.ok(v.geoms.role.includes('robot'));
    assert.ok(v.imagined, v.imaginationNote ?? 'imagined');
    const demo = view.episodes.find((e) => e.origin === 'data')!;
    assert.ok((await view.episodeView(demo.id)).geoms.role.includes('robot'));
  } finally {
    await view.close();
  }
});

test('a reader that closes stdout early (| head) ends the command quietly with exit 0', async () => {
  // The pipe is closed before the command writes anything: every write meets EPIPE.
  const child = spawn(process.execPath, [BIN, 'info', data], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.destroy();
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const code = await new Promise((r) => child.once('exit', r));
  assert.equal(code, 0, stderr);
  assert.equal(stderr, '', 'no stack trace');
  // And through a real shell pipe: `wmrl info DIR | head -1` prints one line, wmrl exits 0.
  const shell = spawnSync('bash', ['-c', `set -o pipefail; "${process.execPath}" "${BIN}" info "${data}" | head -1`], {
    encoding: 'utf8',
  });
  assert.equal(shell.status, 0, shell.stderr);
  assert.match(shell.stdout, /^dataset .*robot myarm/);
  assert.equal(shell.stdout.trim().split('\n').length, 1);
  assert.equal(shell.stderr, '');
});
