/**
 * The README's "On your own arm" recipe, end to end against `wmrl sim-server` (a real rosbridge peer): collect
 * demonstrations over rosbridge, behaviour-clone, then `train` over rosbridge with the world model learning from
 * the demonstrations and a warm-up of the clone's own episodes, at toy scale.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { Episode } from '../../src/core/types.ts';
import { EpisodeStore } from '../../src/data/episodeStore.ts';
import { startSimServerProcess } from '../../sim/rosbridge/simServerProcess.ts';

const run = promisify(execFile);
const BIN = resolve('bin/wmrl.js');

async function episodesOf(dir: string): Promise<Episode[]> {
  const episodes: Episode[] = [];
  for await (const e of (await EpisodeStore.open(dir)).episodes()) episodes.push(e);
  return episodes;
}

test("the README's own-arm recipe over rosbridge: collect, clone, train warmed up on the clone's own", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'wmrl-own-arm-'));
  const { child: server, url } = await startSimServerProcess(['--port', '0', '--lockstep', '--quiet']);
  const robot = ['--env', 'rosbridge', '--url', url, '--speed', 'max'];
  try {
    const data = join(dir, 'data');
    await run(process.execPath, [BIN, 'collect', ...robot, '--task', 'reach', '--episodes', '6', '--out', data], {
      timeout: 120_000,
    });
    const bc = join(dir, 'bc');
    const small = ['--features=16', '--trunk=[32]', '--encoder.epochs=1', '--bc.epochs=2'];
    await run(process.execPath, [BIN, 'pretrain', '--data', data, '--out', bc, '--backend', 'wasm', ...small], {
      timeout: 300_000,
    });
    writeFileSync(join(dir, 'wm.yaml'), 'kind: state\nmembers: 2\nhidden: [32]\ntrain: { epochs: 1, k: 2 }\n');
    const out = join(dir, 'wmrl');
    const { stderr } = await run(
      process.execPath,
      [
        ...[BIN, 'train', ...robot, '--policy', join(bc, 'policy'), '--data', data],
        ...['--config', 'configs/train/quickstart.yaml', '--worldModel.warmupEpisodes=2', '--out', out],
        ...['--wm-config', join(dir, 'wm.yaml'), '--backend', 'wasm', '--steps=1', '--groups=2'],
        ...['--rolloutsPerGroup=2', '--anchorFraction=0.5', '--anchorEvery=1', '--horizon=4'],
        ...['--eval.episodes=2', '--eval.every=5', '--isotonic.minPairs=2'],
      ],
      { timeout: 600_000 },
    );
    assert.match(stderr, /warm-up: 2 episodes of the starting policy/);
    const lines = readFileSync(join(out, 'train.metrics.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, any>);
    const [step] = lines.filter((l) => l.kind === 'step');
    assert.equal(step!.worldModelWarmupEpisodes, 2);
    // The warm-up and the anchor group ran on the robot, stored with the anchors and charged as robot time.
    const anchors = await episodesOf(join(out, 'anchors'));
    assert.equal(anchors.length, 4);
    assert.ok(anchors.every((e) => e.source === 'rosbridge' && e.status === 'complete'));
    const charged = anchors.reduce((s, e) => s + e.steps / e.controlHz, 0);
    assert.ok(Math.abs(step!.robotSeconds - charged) < 1e-6, `${step!.robotSeconds} against ${charged}`);
    const final = lines.filter((l) => l.kind === 'eval').at(-1)!;
    assert.equal(final.step, 1);
    assert.ok(Math.abs(final.trainingRobotSeconds - charged) < 1e-6);
  } finally {
    server.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
});
