/**
 * `npm run bench:closed-loop`: how far closed-loop imagination drifts from the real rollouts it
 * is paired with. G groups of M rollouts from the set-up's train-split starts are imagined by the
 * policy in the world model and executed in the simulator with the same exploration noise (as a
 * WMRL step pairs its anchors), and replayed in the model with the real actions. Per control step:
 * the gripper's distance between the imagined (ensemble mean) and the real rollout, closed loop
 * and replayed, and the gap between imagined and executed actions; then each one's within-group
 * AUC against the real outcomes. Closed loop far off where replay tracks says the policy's inputs
 * in imagination, not the dynamics, are what part them (`wmrl wm rank` names which input).
 *
 *   npm run bench:closed-loop                                  # pick, the benchmark's clone and world model
 *   npm run bench:closed-loop -- --setup DIR --policy DIR --label NAME
 *
 * Writes bench/results/closed-loop-<family>[-<label>].{md,json}.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import * as tf from '@tensorflow/tfjs';
import { selectBackend } from '../src/backend/selectBackend.ts';
import { readEpisodes } from '../src/cli/common.ts';
import { DEFAULT_ROBOT, loadRobot } from '../src/core/robotDescription.ts';
import { Rng } from '../src/core/rng.ts';
import { makeEnv } from '../src/envs/makeEnv.ts';
import { groupRankAgreement } from '../src/eval/rankAgreement.ts';
import { POLICY_KERNELS, policyCamera } from '../src/policy/policyConfig.ts';
import { loadPolicy } from '../src/policy/policyFiles.ts';
import { imagineGroupRollouts, repeatStarts } from '../src/rl/step/imaginedGroups.ts';
import { runRealGroups } from '../src/rl/step/realGroups.ts';
import { groupStarts, startPool } from '../src/rl/step/startPool.ts';
import type { ImaginedRollouts } from '../src/worldmodel/imagine.ts';
import { worldModelEpisodes } from '../src/worldmodel/perceptionWorldModel.ts';
import { featuresOfModel } from '../src/rl/corrections/worldModelFeatures.ts';
import { replayPolicy } from '../src/worldmodel/replayPolicy.ts';
import { WORLD_MODEL_KERNELS } from '../src/worldmodel/worldModelConfig.ts';
import { loadWorldModel } from '../src/worldmodel/worldModelFiles.ts';

const { values } = parseArgs({
  options: {
    setup: { type: 'string' },
    policy: { type: 'string' },
    model: { type: 'string' },
    family: { type: 'string' },
    groups: { type: 'string' },
    horizon: { type: 'string' },
    std: { type: 'string' },
    label: { type: 'string' },
  },
});
const setup = values.setup ?? join('runs', 'bench-cache', 'pick-v1');
const policyDir = values.policy ?? join(setup, 'bc-tiny', 'policy');
const modelDir = values.model ?? join(setup, 'worldmodel');
const family = values.family ?? 'pick';
const G = Number(values.groups ?? 6);
const H = Number(values.horizon ?? 24);
const std = Number(values.std ?? 0.1);
const M = 8;
const started = performance.now();

await selectBackend('auto', { requiredKernels: [...POLICY_KERNELS, ...WORLD_MODEL_KERNELS] });
const policy = await loadPolicy(policyDir);
const logStd = tf.fill(policy.logStd.shape, Math.log(std));
policy.logStd.assign(logStd);
logStd.dispose();
const model = await loadWorldModel(modelDir);
const robot = loadRobot(DEFAULT_ROBOT);
const endEffector = await featuresOfModel(model, policy, robot);
if (!endEffector) throw new Error(`${modelDir}: the world model's state holds no gripper position to compare`);
const pool = startPool(policy, await readEpisodes([join(setup, 'demos')]), family, endEffector);
const rng = new Rng(77);
const picks = Array.from({ length: G }, () => rng.int(pool.specs.length));
const B = G * M;
const starts = groupStarts(pool, picks);
const repeated = repeatStarts(starts, M);
const noise = { seed: 12_345, correlation: 0 };
const K = model.members;
const closed = imagineGroupRollouts(policy, model, starts, M, H, noise, { rule: 'progress' }).imagined;
const env = await makeEnv(robot, { env: 'sim', cameras: [policyCamera(policy.config, robot.cameras[0]!.name)] });
const real = await runRealGroups(
  env,
  policy,
  picks.map((i) => pool.specs[i]!),
  M,
  noise,
);
const replayed = model.imagine(replayPolicy(real.episodes), repeated, H, { rule: 'progress' });
const realStates = worldModelEpisodes(policy, real.episodes, endEffector);
endEffector.close();
const D = repeated.stateDim;
const A = closed.actionDim;

/** Ensemble-mean gripper position (the state's last 3 values) of rollout b after step t. */
const gripper = (x: ImaginedRollouts, t: number, b: number) =>
  [0, 1, 2].map((j) => {
    let m = 0;
    for (let k = 0; k < K; k++) m += x.states[(((t + 1) * K + k) * B + b) * D + D - 3 + j]! / K;
    return m;
  });
const rows: { step: number; rollouts: number; closedCm: number; replayCm: number; actionGap: number }[] = [];
for (let t = 0; t < H; t++) {
  let closedSq = 0;
  let replaySq = 0;
  let actionSq = 0;
  let n = 0;
  for (let b = 0; b < B; b++) {
    const e = realStates[b]!;
    if (t >= e.steps) continue;
    n++;
    const truth = [0, 1, 2].map((j) => e.state[(t + 1) * e.stateDim + e.stateDim - 3 + j]!);
    closedSq += gripper(closed, t, b).reduce((s, v, j) => s + (v - truth[j]!) ** 2, 0);
    replaySq += gripper(replayed, t, b).reduce((s, v, j) => s + (v - truth[j]!) ** 2, 0);
    for (let j = 0; j < A; j++) {
      let m = 0;
      for (let k = 0; k < K; k++) m += closed.actions[((t * K + k) * B + b) * A + j]! / K;
      actionSq += (m - e.actions[t * A + j]!) ** 2;
    }
  }
  if (n === 0) break;
  rows.push({
    step: t + 1,
    rollouts: n,
    closedCm: 100 * Math.sqrt(closedSq / n),
    replayCm: 100 * Math.sqrt(replaySq / n),
    actionGap: Math.sqrt(actionSq / (n * A)),
  });
}
const result = {
  setup,
  policy: policyDir,
  worldModel: modelDir,
  family,
  groups: G,
  rolloutsPerGroup: M,
  horizon: H,
  std,
  realSuccess: real.outcomes.reduce((s, v) => s + v, 0) / B,
  auc: {
    closedLoop: groupRankAgreement(closed.score, real.outcomes, M),
    replay: groupRankAgreement(replayed.score, real.outcomes, M),
  },
  steps: rows,
  seconds: (performance.now() - started) / 1000,
};
const f = (v: number | null, d = 3) => (v === null ? 'n/a' : v.toFixed(d));
const md = [
  `Closed-loop imagination against the real rollouts (${family}, ${G} groups × ${M}, same starts and`,
  `exploration noise, std ${std}; ${policyDir}, ${modelDir}); real success ${f(100 * result.realSuccess, 1)}%.`,
  `Within-group AUC of the progress score after ${H} steps against the real outcomes: closed loop`,
  `${f(result.auc.closedLoop.auc)}, replay ${f(result.auc.replay.auc)} (${result.auc.replay.pairs} pairs).`,
  '',
  '| step | rollouts | gripper off, closed loop (cm) | gripper off, replay (cm) | action gap, closed loop |',
  '|---|---|---|---|---|',
  ...rows.map((r) => `| ${r.step} | ${r.rollouts} | ${f(r.closedCm, 2)} | ${f(r.replayCm, 2)} | ${f(r.actionGap)} |`),
  '',
].join('\n');
const name = `closed-loop-${family}${values.label ? `-${values.label}` : ''}`;
writeFileSync(join('bench', 'results', `${name}.json`), `${JSON.stringify(result, null, 2)}\n`);
writeFileSync(join('bench', 'results', `${name}.md`), md);
console.log(md);
console.log(`written: bench/results/${name}.{md,json} (${result.seconds.toFixed(0)} s)`);
process.exit(0);
