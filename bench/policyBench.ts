/**
 * `npm run bench:policy`: VLA policy inference latency (batch 1 and 64, from raw observations
 * including perception) and behaviour-cloning samples/s, per size preset, on the selected
 * backend. Writes bench/results/policy.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import * as tf from '@tensorflow/tfjs';
import { selectBackend } from '../src/backend/selectBackend.ts';
import { resolveConfig } from '../src/core/config.ts';
import { loadRobot } from '../src/core/robotDescription.ts';
import type { Episode, Observation } from '../src/core/types.ts';
import { SimEnv } from '../src/envs/simEnv.ts';
import { runEpisode } from '../src/envs/rollout.ts';
import { ScriptedExpert } from '../sim/experts/scriptedExpert.ts';
import { planEpisodes } from '../src/tasks/episodePlan.ts';
import { POLICY_KERNELS, policyConfigSchema } from '../src/policy/policyConfig.ts';
import { pretrainPolicy } from '../src/policy/pretrain.ts';
import { disposeInput, observationInput } from '../src/policy/policyInputs.ts';

const { values } = parseArgs({ options: { out: { type: 'string' }, backend: { type: 'string' } } });
const outFile = values.out ?? 'bench/results/policy.json';
const backend = (await selectBackend((values.backend as 'auto') ?? 'auto', { requiredKernels: POLICY_KERNELS }))
  .backend;
const robot = loadRobot('vx300');
const env = await SimEnv.create({ robot });
const expert = await ScriptedExpert.create({ robot, noise: 0.1 });
const demos: Episode[] = [];
const observations: Observation[] = [];
try {
  for (const p of planEpisodes([{ family: 'reach' }, { family: 'pick' }, { family: 'push' }], 'train', 24, 123)) {
    demos.push(await runEpisode(env, expert, p));
    observations.push(await env.reset(p));
  }
} finally {
  expert.close();
  await env.close();
}

function latency(run: () => void, repeats: number): number {
  run();
  const t0 = performance.now();
  for (let i = 0; i < repeats; i++) run();
  return (performance.now() - t0) / repeats;
}

const rows = [];
for (const size of ['tiny', 'small', 'base']) {
  const row: Record<string, unknown> = { size };
  const config = resolveConfig(policyConfigSchema, {
    files: [`configs/policy/${size}.yaml`],
    overrides: { 'bc.epochs': '1', 'bc.validationFraction': '0', 'bc.shiftAugment': 'false' },
  });
  const { policy, report } = await pretrainPolicy(demos, config);
  try {
    row.bcSamplesPerSecond = report.bc[0]!.samplesPerSecond;
    row.parameters = policy.parameterCount;
    row.encoderParameters = policy.encoderParameterCount;
    const batch = (n: number) => Array.from({ length: n }, (_, i) => observations[i % observations.length]!);
    for (const n of [1, 64]) {
      const obs = batch(n);
      row[`latencyMsBatch${n}`] = latency(
        () => {
          const input = observationInput(policy.tokenizer, 'scene', config.encoder.imageSize, obs);
          tf.tidy(() => policy.act(input, { seed: 1 }).action.dataSync());
          disposeInput(input);
        },
        n === 1 ? 200 : 20,
      );
    }
  } finally {
    policy.dispose();
  }
  rows.push(row);
  console.error(JSON.stringify(row));
}
const results = {
  date: new Date().toISOString(),
  machine: { cpu: cpus()[0]?.model, cores: cpus().length, node: process.version },
  backend,
  rows,
};
mkdirSync('bench/results', { recursive: true });
writeFileSync(outFile, JSON.stringify(results, null, 2) + '\n');
const f = (x: unknown, d = 1) => (typeof x === 'number' ? x.toFixed(d) : 'n/a');
console.log(
  `backend ${backend}\n\n| preset | parameters | act latency batch 1 | act latency ` +
    `batch 64 | BC samples/s (end to end, from pixels) |\n|---|---|---|---|---|`,
);
for (const r of rows)
  console.log(
    `| ${r.size} | ${(r.parameters as number).toLocaleString()}` +
      `${
        (r.encoderParameters as number) > 0
          ? ` (+ ${(r.encoderParameters as number).toLocaleString()} patch encoder)`
          : ''
      } ` +
      `| ${f(r.latencyMsBatch1, 2)} ms | ${f(r.latencyMsBatch64)} ms | ${f(r.bcSamplesPerSecond, 0)} |`,
  );
console.log(`\nwritten to ${outFile}`);
