import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { WebSocketServer } from 'ws';
import { EpisodeAbortedError } from '../../src/envs/env.ts';
import { loadRobot } from '../../src/core/robotDescription.ts';
import { EpisodeStore } from '../../src/data/episodeStore.ts';
import { RosbridgeEnv } from '../../src/envs/rosbridgeEnv.ts';
import { startSimServerProcess } from '../../sim/rosbridge/simServerProcess.ts';
import { copyRobot } from '../helpers/robotCopy.ts';

const run = promisify(execFile);
const BIN = resolve('bin/wmrl.js');

test('wmrl collect --env rosbridge against `wmrl sim-server`; bad flags are usage errors', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'wmrl-rosbridge-cli-'));
  const { child: server, url } = await startSimServerProcess(['--port', '0', '--lockstep', '--quiet']);
  try {
    const out = join(dir, 'robot-demos');
    // The server renders 64×64; the client resizes to the requested 32×32.
    const { stdout } = await run(
      process.execPath,
      [
        BIN,
        'collect',
        '--env',
        'rosbridge',
        '--url',
        url,
        '--speed',
        'max',
        '--task',
        'reach',
        '--episodes',
        '2',
        '--image-size',
        '32',
        '--out',
        out,
      ],
      { timeout: 60_000 },
    );
    assert.match(stdout, /collected 2 episodes/);
    const episodes = [];
    for await (const e of (await EpisodeStore.open(out)).episodes()) episodes.push(e);
    assert.equal(episodes.length, 2);
    assert.ok(episodes.every((e) => e.source === 'rosbridge' && e.cameras.scene!.width === 32 && e.stateDim === 31));

    const bad = await run(process.execPath, [BIN, 'collect', '--env', 'rosbridge', '--out', join(dir, 'x')]).catch(
      (e: { code: number; stderr: string }) => e,
    );
    assert.equal((bad as { code: number }).code, 2);
    assert.match((bad as { stderr: string }).stderr, /--env rosbridge needs --url/);
  } finally {
    server.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
});

test('experts over `wmrl sim-server` with no ros.objectState in robot.yaml: the error says what to add', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'wmrl-rosbridge-nostate-'));
  const robot = copyRobot(dir, 'nostate');
  const yaml = join(robot, 'robot.yaml');
  const text = readFileSync(yaml, 'utf8');
  writeFileSync(yaml, text.replace(/^ {2}objectState: .*\n/m, ''));
  assert.notEqual(readFileSync(yaml, 'utf8'), text);
  const { child: server, url } = await startSimServerProcess([
    '--robot',
    robot,
    '--port',
    '0',
    '--lockstep',
    '--quiet',
  ]);
  try {
    const failed = (await run(
      process.execPath,
      [BIN, 'collect', '--env', 'rosbridge', '--url', url, '--speed', 'max', '--robot', robot].concat([
        '--task',
        'reach',
        '--episodes',
        '1',
        '--out',
        join(dir, 'demos'),
      ]),
      { timeout: 60_000 },
    ).catch((e: unknown) => e)) as { code: number; stderr: string };
    assert.equal(failed.code, 1, failed.stderr);
    assert.match(failed.stderr, /robot 'nostate' names none: add `ros\.objectState: \{ topic: \/wmrl\/object_state, /);
    assert.match(failed.stderr, /type: std_msgs\/msg\/Float64MultiArray \}` to .*nostate\/robot\.yaml/);
    assert.match(failed.stderr, /wmrl sim-server publishes it/);
  } finally {
    server.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an unreachable robot is a clear error after the connect timeout', async () => {
  await assert.rejects(
    RosbridgeEnv.create({ robot: loadRobot('vx300'), url: 'ws://127.0.0.1:9', connectTimeoutMs: 800 }),
    /cannot reach rosbridge at ws:\/\/127\.0\.0\.1:9 within 0\.8 s \((ECONNREFUSED|connection closed)/,
  );
  await assert.rejects(
    RosbridgeEnv.create({ robot: loadRobot('vx300'), url: 'http://x' }),
    /rosbridge URL must look like ws:\/\/host:9090/,
  );
  // The same from the command line, with --connect-timeout; and the flag is refused for the simulator.
  const dir = mkdtempSync(join(tmpdir(), 'wmrl-rosbridge-timeout-'));
  try {
    const failed = (await run(
      process.execPath,
      [
        BIN,
        'collect',
        '--env',
        'rosbridge',
        '--url',
        'ws://127.0.0.1:9',
        '--connect-timeout',
        '0.5',
        '--episodes',
        '1',
        '--out',
        join(dir, 'x'),
      ],
      { timeout: 30_000 },
    ).catch((e: unknown) => e)) as { code: number; stderr: string };
    assert.notEqual(failed.code, 0);
    assert.match(failed.stderr, /cannot reach rosbridge at ws:\/\/127\.0\.0\.1:9 within 0\.5 s/);
    const misuse = (await run(process.execPath, [
      BIN,
      'collect',
      '--connect-timeout',
      '5',
      '--out',
      join(dir, 'y'),
    ]).catch((e: unknown) => e)) as { code: number; stderr: string };
    assert.equal(misuse.code, 2);
    assert.match(misuse.stderr, /--connect-timeout are for --env rosbridge/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a robot that never answers a service call: the call times out and the episode is aborted', async () => {
  // A websocket server that accepts everything and answers nothing.
  const silent = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise((r) => silent.once('listening', r));
  const port = (silent.address() as { port: number }).port;
  const env = await RosbridgeEnv.create({
    robot: loadRobot('vx300'),
    url: `ws://127.0.0.1:${port}`,
    resetTimeoutMs: 300,
    serviceTimeoutMs: 300,
    workspace: false,
  });
  try {
    const started = performance.now();
    await assert.rejects(
      env.reset({
        task: {
          family: 'reach',
          color: 'red',
          object: 'ball',
          template: 0,
          split: 'train',
          instruction: 'reach the red ball',
        },
        seed: 0,
      }),
      // The first call of a connection asks rosapi for the server's dialect.
      (err: Error) =>
        err instanceof EpisodeAbortedError && /\/rosapi\/topics did not answer within 0\.3 s/.test(err.message),
    );
    assert.ok(performance.now() - started < 2000);
  } finally {
    await env.close();
    for (const c of silent.clients) c.terminate();
    await new Promise((r) => silent.close(r));
  }
});
