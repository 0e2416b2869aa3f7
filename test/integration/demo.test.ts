/**
 * `wmrl demo` end to end at a tiny size (the README's one command, shrunk): every stage runs, the
 * real-only arm in its second process, and the comparison, plot and metrics come out.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { selectBackend } from '../../src/backend/selectBackend.ts';
import { DEFAULT_ROBOT, loadRobot } from '../../src/core/robotDescription.ts';
import { readRunLog } from '../../src/core/runLog.ts';
import { makeSimEnv } from '../../src/envs/makeEnv.ts';
import { POLICY_KERNELS } from '../../src/policy/policyConfig.ts';
import { loadPolicy } from '../../src/policy/policyFiles.ts';
import { evaluateHeldOut } from '../../src/rl/estimates/heldOutEvaluation.ts';
import type { WmrlConfig } from '../../src/rl/config/wmrlConfig.ts';

const run = promisify(execFile);

test('wmrl demo (tiny): demos, BC, WMRL and real-only GRPO beside it, the comparison, plot and check', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'wmrl-demo-'));
  try {
    const out = join(dir, 'demo');
    const args = ['--episodes', '4', '--steps', '2', '--real-steps', '1', '--eval-episodes', '10', '--out', out];
    const { stdout } = await run(process.execPath, [resolve('bin/wmrl.js'), 'demo', ...args], {
      timeout: 300_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    for (const stage of ['1/5', '2/5', '3/5', '4/5', '5/5']) assert.match(stdout, new RegExp(`^${stage} `, 'm'));
    assert.match(stdout, /real-only GRPO runs beside it in a second process/);
    // The noisier demonstrations come from a second process, with the in-process plans; nothing is collected for
    // the world model alone.
    assert.match(stdout, /the noisier demonstrations in a second process/);
    assert.doesNotMatch(stdout, /noisy experts/);
    assert.match(readFileSync(join(out, 'collect-noise.log'), 'utf8'), /episodes/);
    assert.match(
      stdout,
      /^done in \d+ s \(collection \d+ s, behaviour cloning \d+ s, .*waiting for real-only GRPO \d+ s\)/m,
    );
    // The real-only run's steps and evaluations are reported from its own metrics.
    assert.match(stdout, /^ {2}step 1\/1: real rollouts \d+%, robot time \d+ s$/m);
    assert.ok(
      stdout.indexOf('step 1/1: real rollouts') > stdout.indexOf('\n4/5 '),
      'the real-only lines come under their own heading, after WMRL',
    );
    assert.equal(
      (stdout.match(/held-out evaluation after step/g) ?? []).length,
      3 + 2,
      'WMRL after steps 0, 1 and 2 (every half of its steps), real-only after 0 and 1',
    );
    assert.match(stdout, /WMRL: +\d+% after \d+ robot-s; gain over BC [+-]\d+ points \[/);
    assert.match(stdout, /at equal robot time: /);
    // Every robot second is counted: WMRL's includes its warm-up; its world model learns from nothing else.
    assert.match(stdout, /every robot second counted: WMRL's includes its 16 warm-up episodes/);
    assert.ok(existsSync(join(out, 'learning-curves.svg')));
    assert.ok(existsSync(join(out, 'real', 'policy', 'model.json')), 'the real-only run saved its policy');
    assert.ok(existsSync(join(out, 'real-only.log')));
    const summary = readRunLog(join(out, 'demo.metrics.jsonl')).find((r) => r.stage === 'summary');
    assert.ok(summary, 'the summary is logged');
    assert.deepEqual(Object.keys(summary.stageSeconds as object), [
      'collection',
      'behaviour cloning',
      'world model and WMRL',
      'waiting for real-only GRPO',
    ]);
    assert.ok((summary.robotSecondsReal as number) > (summary.robotSecondsWmrl as number), JSON.stringify(summary));
    // eval.keepPolicies: every evaluated policy after the start is kept, for the check below.
    for (const step of [1, 2]) assert.ok(existsSync(join(out, 'wmrl', 'evaluated', `step-${step}`, 'model.json')));
    assert.ok(existsSync(join(out, 'real', 'evaluated', 'step-1', 'model.json')));

    // WMRL's evaluations off its path: the start is real-only's (the same BC policy, the same
    // episodes), the middle one ran in a second process and gives what one in this process gives.
    // Logged as they arrive: the start when real-only ends, the middle one after that, in its turn.
    const evals = (run: string) =>
      (
        readRunLog(join(out, run, 'train.metrics.jsonl')).filter((r) => r.kind === 'eval') as {
          step: number;
          outcomes: number[];
        }[]
      ).sort((a, b) => a.step - b.step);
    const wmrl = evals('wmrl');
    assert.deepEqual(
      wmrl.map((e) => e.step),
      [0, 1, 2],
    );
    assert.deepEqual(wmrl[0]!.outcomes, evals('real')[0]!.outcomes);
    // Step 1 in the second process (`wmrl eval`); the last, step 2, 6 of its 10 episodes here and 4 there.
    const evaluated = (step: number) =>
      readdirSync(join(out, 'wmrl-evaluations', `step-${step}`, 'runs'))
        .filter((f) => f.endsWith('.metrics.jsonl'))
        .flatMap((f) => readRunLog(join(out, 'wmrl-evaluations', `step-${step}`, 'runs', f)))
        .filter((r) => typeof r.success === 'boolean').length;
    assert.equal(evaluated(1), 10);
    assert.equal(evaluated(2), 4);
    assert.ok(!existsSync(join(out, 'wmrl-evaluations', 'step-1', 'dataset.json')), '--outcomes-only: no episodes');
    await selectBackend('wasm', { requiredKernels: POLICY_KERNELS, log: () => {} });
    const { config } = JSON.parse(readFileSync(join(out, 'wmrl', 'train.config.json'), 'utf8')) as {
      config: WmrlConfig;
    };
    const env = await makeSimEnv(loadRobot(DEFAULT_ROBOT));
    const policies = [1, 2].map((step) => loadPolicy(join(out, 'wmrl', 'evaluated', `step-${step}`)));
    try {
      for (const [i, step] of [1, 2].entries()) {
        const here = await evaluateHeldOut(env, await policies[i]!, config, step);
        assert.deepEqual(here.outcomes, wmrl[step]!.outcomes, `step ${step}: the same episodes, played alike`);
      }
    } finally {
      for (const p of policies) (await p).dispose();
      await env.close();
    }

    // `npm run bench:demo-check`: the same policies on other episodes, each printed figure against the check's.
    const check = join(dir, 'check');
    const { stdout: checked } = await run(
      process.execPath,
      [
        '--import',
        'tsx',
        resolve('bench/demoCheck.ts'),
        '--run',
        out,
        '--episodes',
        '10',
        '--seed',
        '7000',
        '--out',
        check,
      ],
      { timeout: 300_000, maxBuffer: 64 * 1024 * 1024 },
    );
    const result = JSON.parse(readFileSync(`${check}.json`, 'utf8')) as {
      checkEpisodes: number;
      rows: {
        figure: string;
        demo: { difference: number };
        agreement: { low: number; high: number; agree: boolean };
      }[];
      agreeing: number;
    };
    assert.equal(result.checkEpisodes, 10);
    assert.equal(result.rows.length, 3, 'the two gains and the equal-time difference');
    assert.equal(result.rows[0]!.demo.difference, (summary.wmrlGain as { difference: number }).difference);
    for (const r of result.rows) assert.equal(r.agreement.agree, r.agreement.low <= 0 && r.agreement.high >= 0);
    assert.equal(result.agreeing, result.rows.filter((r) => r.agreement.agree).length);
    assert.match(checked, /of 3 agree; the check's point lies inside the printed interval for \d of 3/);
    assert.match(readFileSync(`${check}.md`, 'utf8'), /^\| WMRL's gain over BC \|/m);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
