/**
 * `wmrl run` against the project's own `wmrl sim-server` (a real websocket rosbridge peer in its
 * own process): an episode runs and is recorded as a dataset `wmrl info` opens; Ctrl-C and a
 * killed server end the run cleanly with the partial episode stored marked aborted; bad input is
 * refused naming it; `--view` serves the running episode. The policy is a tiny untrained one
 * (what it does does not matter here, only that it drives the robot through the command).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Packr, Unpackr } from 'msgpackr';
import { WebSocket } from 'ws';
import { selectBackend } from '../../src/backend/selectBackend.ts';
import { loadRobot } from '../../src/core/robotDescription.ts';
import type { Episode } from '../../src/core/types.ts';
import { EpisodeStore } from '../../src/data/episodeStore.ts';
import { command as runCommand } from '../../src/cli/run.ts';
import { instructionWarnings, runTask } from '../../src/cli/runInputs.ts';
import { loadPolicy } from '../../src/policy/policyFiles.ts';
import { POLICY_KERNELS } from '../../src/policy/policyConfig.ts';
import type { ServerMessage } from '../../src/viewer/messages.ts';
import { startSimServerProcess } from '../../sim/rosbridge/simServerProcess.ts';
import { saveUntrainedPolicy } from '../helpers/untrainedPolicy.ts';
import { spawnWmrl, WMRL_BIN as BIN } from '../helpers/wmrlProcess.ts';

const execute = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'wmrl-run-'));
const policyDir = join(dir, 'policy');
const robot = loadRobot('vx300');
after(() => rmSync(dir, { recursive: true, force: true }));

before(async () => {
  await selectBackend('cpu', { requiredKernels: POLICY_KERNELS, log: () => {} });
  // Trained on balls only: 'block' is a word it never saw.
  await saveUntrainedPolicy(robot, ['reach the red ball', 'touch the blue ball'], policyDir);
});

async function stored(record: string): Promise<Episode[]> {
  const out: Episode[] = [];
  for await (const e of (await EpisodeStore.open(record)).episodes({ includeAborted: true })) out.push(e);
  return out;
}

/** `wmrl run …` as a child process whose output the test watches. */
const spawnRun = (args: string[]) => spawnWmrl(['run', '--backend', 'cpu', ...args]);

test('an episode on a sim-server robot, recorded as a dataset that wmrl info opens', async () => {
  const { child: server, url } = await startSimServerProcess(['--port', '0', '--lockstep', '--quiet']);
  try {
    const record = join(dir, 'recorded');
    const run = spawnRun([
      ...['--policy', dir, '--url', url, '--speed', 'max', '--instruction', 'reach the red block'],
      ...['--episodes', '2', '--max-steps', '6', '--seed', '7', '--record', record],
    ]);
    const code = await run.exited;
    const { stdout, stderr } = run.output();
    assert.equal(code, 0, stderr);
    assert.match(stderr, /warning: the policy never saw the word 'block' \(as <unk>\); its vocabulary: .*ball/);
    assert.match(stderr, /robot vx300 at ws:\/\/.* over rosbridge; every command through the safety filter/);
    assert.match(stdout, /^episode 1\/2 \(seed 7\): (no )?success in \d+ steps \(progress \d\.\d\d\)$/m);
    assert.match(stdout, /^episode 2\/2 \(seed 8\): /m);
    assert.match(stdout, /2 episodes run, \d successes?; recorded in .*recorded \(wmrl info/);
    const info = await execute(process.execPath, [BIN, 'info', record, '--json']);
    assert.equal(JSON.parse(info.stdout).episodes, 2);
    const episodes = await stored(record);
    assert.equal(episodes.length, 2);
    for (const e of episodes) {
      assert.equal(e.status, 'complete');
      assert.equal(e.source, 'rosbridge');
      assert.equal(e.task.family, 'reach');
      assert.equal(e.task.instruction, 'reach the red block');
      assert.ok(e.steps >= 1 && e.steps <= 6, `${e.steps} steps`);
      // What the robot measured stayed inside the joint limits the safety filter clamps to.
      robot.arm.joints.forEach((j, k) => {
        for (let t = 0; t <= e.steps; t++) {
          const q = e.qpos[t * e.qposDim + k]!;
          assert.ok(q >= j.lower - 1e-3 && q <= j.upper + 1e-3, `${j.name} at ${q}`);
        }
      });
    }
  } finally {
    server.kill('SIGTERM');
  }
});

test('Ctrl-C stops between steps and keeps the partial episode; a killed robot aborts the run cleanly', async () => {
  // A free-running robot at real time: an episode of reach lasts 4 s, long enough to interrupt.
  const server = await startSimServerProcess(['--port', '0', '--quiet']);
  try {
    const stoppedDir = join(dir, 'stopped');
    const common = ['--policy', policyDir, '--url', server.url, '--instruction', 'reach the red ball'];
    const interrupted = spawnRun([...common, '--episodes', '3', '--record', stoppedDir]);
    await interrupted.waitFor(/task reach/);
    await new Promise((r) => setTimeout(r, 1500));
    interrupted.child.kill('SIGINT');
    assert.equal(await interrupted.exited, 130, interrupted.output().stderr);
    const out = interrupted.output();
    assert.match(out.stderr, /interrupted: stopping after the current step; nothing more will be sent/);
    assert.match(
      out.stdout,
      /episode 1\/3 \(seed 0\): episode stopped after \d+ steps; nothing more was sent; the partial/,
    );
    let kept = await stored(stoppedDir);
    assert.equal(kept.length, 1, 'no further episode began');
    assert.equal(kept[0]!.status, 'aborted');
    assert.ok(kept[0]!.steps < 40, `${kept[0]!.steps} steps`);
    assert.equal((await (await EpisodeStore.open(stoppedDir)).summary()).episodes, 0, 'never served as complete');

    const abortedDir = join(dir, 'aborted');
    const faulted = spawnRun([...common, '--record', abortedDir, '--connect-timeout', '2']);
    await faulted.waitFor(/task reach/);
    await new Promise((r) => setTimeout(r, 1500));
    server.child.kill('SIGKILL');
    assert.equal(await faulted.exited, 1, faulted.output().stderr);
    const f = faulted.output();
    // Noticed mid-step or in the task-status call, depending on where the kill lands.
    assert.match(f.stdout, /episode 1\/1 \(seed 0\): episode aborted: lost the connection to (the robot|ws:\/\/)/);
    assert.match(f.stderr, /stopped after a fault \(connection-lost\); the partial episode \(\d+ steps\) is stored/);
    kept = await stored(abortedDir);
    assert.equal(kept.length, 1);
    assert.equal(kept[0]!.status, 'aborted');
    assert.ok(kept[0]!.steps >= 1 && kept[0]!.steps < 40, `${kept[0]!.steps} steps before the kill`);
  } finally {
    server.child.kill('SIGKILL');
  }
});

test('a missing or unknown policy and an unusable instruction are refused, naming them', async () => {
  const run = (...args: string[]) => runCommand.run(['--backend', 'cpu', ...args]);
  const instruction = ['--instruction', 'reach the red ball'];
  await assert.rejects(run(...instruction), /--policy DIR is required/);
  await assert.rejects(run('--policy', join(dir, 'nowhere'), ...instruction), /--policy .*nowhere: no such folder/);
  const empty = join(dir, 'empty');
  mkdirSync(empty, { recursive: true });
  await assert.rejects(run('--policy', empty, ...instruction), /empty holds no policy checkpoint \(no model\.json/);
  await assert.rejects(run('--policy', policyDir), /--instruction "…" is required/);
  await assert.rejects(
    run('--policy', policyDir, '--instruction', 'wave hello'),
    /"wave hello" is no phrasing of a task family with a scene .* add --task .* or run it on your robot \(--url\)/,
  );
  // On a robot any text is a task; words the policy never saw are read as <unk>, with a warning.
  const said = runTask('wave hello', undefined, 0, 'rosbridge');
  assert.deepEqual(
    { ...said, family: said.family.slice(0, 5) },
    {
      family: 'said-',
      template: 0,
      split: 'train',
      instruction: 'wave hello',
    },
  );
  const policy = await loadPolicy(policyDir);
  try {
    assert.deepEqual(instructionWarnings(policy, 'wave hello', runTask('touch the red ball', undefined, 0)), [
      'the policy knows none of the words of "wave hello", so it acts as if given no instruction; ' +
        'it was trained on: ball blue reach red the touch',
    ]);
    assert.match(instructionWarnings(policy, 'wave hello', said).join(), /never|knows none/);
  } finally {
    policy.dispose();
  }
  await assert.rejects(run('--policy', policyDir, ...instruction, '--task', 'fly'), /unknown task family 'fly'/);
  await assert.rejects(run('--policy', policyDir, ...instruction, '--speed', '2'), /give its --url/);
  await assert.rejects(run('--policy', policyDir, ...instruction, '--robot', 'nosuch'), /nosuch/);
});

test('--view serves the running episode live; without --url it runs in the simulator and says so', async () => {
  const viewed = join(dir, 'viewed');
  const run = spawnRun([
    ...['--policy', policyDir, '--instruction', 'touch the blue ball', '--max-steps', '4', '--view', '0'],
    ...['--record', viewed],
  ]);
  try {
    const [, viewer] = await run.waitFor(/live viewer: (http:\/\/127\.0\.0\.1:\d+\/)/);
    assert.match(run.output().stderr, /no --url: running in the embedded simulator \(robot vx300\), not on a robot/);
    await run.waitFor(/episodes done; the viewer stays up until Ctrl-C/);
    const port = new URL(viewer!).port;
    const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`, { origin: `http://127.0.0.1:${port}` });
    const unpackr = new Unpackr({ useRecords: false, moreTypes: true });
    const messages: ServerMessage[] = [];
    ws.on('message', (d) => messages.push(unpackr.unpack(d as Buffer) as ServerMessage));
    await new Promise((r) => ws.once('open', r));
    const until = async (pred: (m: ServerMessage) => boolean) => {
      const deadline = Date.now() + 20_000;
      while (Date.now() < deadline) {
        const m = messages.find(pred);
        if (m) return m;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`no such message; got ${messages.map((m) => m.type).join(', ')}`);
    };
    const hello = (await until((m) => m.type === 'hello')) as Extract<ServerMessage, { type: 'hello' }>;
    const live = hello.episodes.find((e) => e.origin === 'live');
    assert.ok(live, 'the live episode is listed');
    assert.equal(live.instruction, 'touch the blue ball');
    assert.equal(live.steps, 4);
    assert.equal(live.running, false);
    // Recorded too, under the same id: listed once, as live (test/viewer/runLive.test.ts shows it in a browser).
    assert.deepEqual(
      hello.episodes.map((e) => e.id),
      (await stored(viewed)).map((e) => e.id),
    );
    ws.send(new Packr({ useRecords: false }).pack({ type: 'open', request: 1, episode: live.id }));
    const view = (await until((m) => m.type === 'episode')) as Extract<ServerMessage, { type: 'episode' }>;
    assert.equal(view.episode.progress?.length, 5, 'the reset and four steps');
    assert.equal(view.episode.cameras[0]!.frames.length, 5 * 64 * 64 * 3);
    ws.close();
    run.child.kill('SIGINT');
    assert.equal(await run.exited, 0, run.output().stderr);
    assert.match(run.output().stdout, /1 episode run, \d success/);
  } finally {
    run.child.kill('SIGKILL');
  }
});
