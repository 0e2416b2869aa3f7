/**
 * `wmrl demo`: the main job end to end on the embedded default (simulator, no robot, no GPU):
 *  1. demonstrations: scripted experts (for behaviour cloning) and noisy experts (successes and
 *     failures, for the world model), train-split instructions only;
 *  2. behaviour cloning of the tiny VLA policy;
 *  3. WMRL post-training from it (a world model over the policy's perception, imagined groups,
 *     anchor episodes, debiasing, denoising, PPI), and GRPO on the simulator alone for comparison;
 *  4. held-out success before and after, and the robot time each used.
 */
import { join } from 'node:path';
import { resolveConfig } from '../core/config.ts';
import { CONFIGS_DIR, DEFAULT_ROBOT, loadRobot } from '../core/robotDescription.ts';
import { RunLog, runStamp } from '../core/runLog.ts';
import { EpisodeStore, storeRobot } from '../data/episodeStore.ts';
import { collectEpisodes } from '../data/collectEpisodes.ts';
import { makeController, makeSimEnv } from '../envs/makeEnv.ts';
import { POLICY_KERNELS, policyConfigSchema } from '../policy/policyConfig.ts';
import { pretrainPolicy } from '../policy/pretrain.ts';
import { savePolicy } from '../policy/policyFiles.ts';
import { envAnchorRunner } from '../rl/anchorRunner.ts';
import { runAnchorDir, runTraining, type RunReport } from '../rl/runTraining.ts';
import { wmrlConfigSchema } from '../rl/wmrlConfig.ts';
import { WORLD_MODEL_KERNELS } from '../worldmodel/worldModelConfig.ts';
import { planEpisodes } from '../tasks/episodePlan.ts';
import { TASK_FAMILIES } from '../tasks/families.ts';
import { intFlag, parseFlags } from './args.ts';
import { readEpisodes, useBackend } from './common.ts';
import { Progress } from './progress.ts';

const POST_TRAIN_TASKS = 'reach';

/**
 * Behaviours that make the demo data (train split). Experts teach
 * the policy; the noisy ones give the world model failures too.
 */
const BEHAVIOURS = [
  { label: 'expert', noise: 0, share: 1, folder: 'demos' },
  { label: 'expert, noise 0.1', noise: 0.1, share: 0.35, folder: 'demos' },
  { label: 'noisy expert (0.6)', noise: 0.6, share: 0.3, folder: 'mixed' },
  { label: 'noisy expert (1.5)', noise: 1.5, share: 0.3, folder: 'mixed' },
] as const;

export const command = {
  summary:
    'the main job end to end in the simulator: demos → behaviour cloning → WMRL (vs real-only GRPO) → held-out success',
  async run(argv: string[]): Promise<number> {
    const { values } = parseFlags(argv, {
      out: { type: 'string' },
      robot: { type: 'string' },
      episodes: { type: 'string' },
      steps: { type: 'string' },
      seed: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    });
    if (values.help) {
      console.log(
        `usage: wmrl demo [--out DIR] [--robot NAME|DIR|FILE.yaml (default ${DEFAULT_ROBOT})] [--episodes N expert ` +
          `demos per family (default 100)] [--steps N post-training steps (default 6)] [--seed S]`,
      );
      return 0;
    }
    const perFamily = intFlag(values.episodes, 'episodes', 100, 4);
    const steps = intFlag(values.steps, 'steps', 6, 1);
    const seed = intFlag(values.seed, 'seed', 0);
    const out = values.out ?? join('runs', `demo-${runStamp()}`);
    const robot = loadRobot(values.robot ?? DEFAULT_ROBOT);
    const policyConfig = resolveConfig(policyConfigSchema, {
      files: [join(CONFIGS_DIR, 'policy', 'tiny.yaml')],
      overrides: { seed: String(seed), 'bc.epochs': '10', 'bc.batchSize': '64', 'bc.shiftAugment': 'false' },
    });
    // Post-training and evaluation on reach, as in `npm run bench`: there the BC start leaves room
    // and GRPO can learn; push and pick start near 0% on held-out instructions at demo scale.
    const trainConfig = resolveConfig(wmrlConfigSchema, {
      files: [join(CONFIGS_DIR, 'train', 'quickstart.yaml')],
      overrides: {
        seed: String(seed),
        steps: String(steps),
        tasks: POST_TRAIN_TASKS,
        'eval.tasks': POST_TRAIN_TASKS,
        'eval.episodes': '40',
        'eval.every': String(Math.max(1, Math.ceil(steps / 2))),
      },
    });
    const log = new RunLog(out, 'demo', {
      command: 'demo',
      robot: robot.name,
      perFamily,
      steps,
      seed,
      out,
      policy: policyConfig,
      train: trainConfig,
    });
    const started = performance.now();
    const backend = await useBackend('auto', [...POLICY_KERNELS, ...WORLD_MODEL_KERNELS]);

    console.log(`1/4 collecting demonstrations in the simulator (${backend} backend)`);
    await collectDemos(robot, out, perFamily, seed, log);
    const demos = await readEpisodes([join(out, 'demos')]);
    const mixed = await readEpisodes([join(out, 'mixed')]);

    console.log('\n2/4 behaviour cloning of the tiny VLA policy');
    let progress: Progress | undefined;
    const { policy, report: bc } = await pretrainPolicy(demos, policyConfig, {
      hooks: {
        onStep: (step, total, epoch) => {
          if (step === 1) progress = new Progress(`  bc epoch ${epoch + 1}/${policyConfig.bc.epochs}`, total);
          progress!.update(step);
        },
        onEpoch: (stage, m) => {
          progress?.stop();
          log.log({ stage, ...m });
        },
      },
    });
    const policyDir = join(out, 'bc', 'policy');
    try {
      await savePolicy(policy, policyDir);
    } finally {
      policy.dispose();
    }
    const best = bc.bc[bc.bestEpoch]!;
    console.log(
      `  ${bc.episodesUsed} demonstrations, ${bc.parameters.toLocaleString()} ` +
        `parameters, ${bc.seconds.toFixed(0)} s; validation action MSE ${best.validationMse.toFixed(4)}, ` +
        `instructed object found to ${best.validationImageRmsePx.toFixed(1)} px`,
    );

    const env = await makeSimEnv(robot);
    const reports: Record<string, RunReport> = {};
    let episodeBar: Progress | undefined;
    try {
      for (const mode of ['wmrl', 'real'] as const) {
        console.log(
          mode === 'wmrl'
            ? '\n3/4 WMRL post-training: imagined groups in a world model over ' +
                'the policy perception, a few anchor episodes on the simulator'
            : '\n4/4 for comparison: GRPO on the simulator alone (every rollout executed for real)',
        );
        reports[mode] = await runTraining({
          config: { ...trainConfig, mode },
          policyDir,
          data: [...demos, ...mixed],
          runDir: join(out, mode),
          env,
          anchors: envAnchorRunner(env, runAnchorDir(join(out, mode))),
          resume: false,
          worldModelConfig: { files: [join(CONFIGS_DIR, 'wm', 'perception.yaml')], overrides: { 'train.epochs': '5' } },
          worldModelDir: join(out, 'worldmodel'),
          onProgress: (what) => process.stderr.write(`  ${what}\n`),
          onEpisode: (done, total) => {
            if (done === 1) episodeBar = new Progress('  real episodes', total);
            episodeBar!.update(done);
            if (done === total) episodeBar!.stop();
          },
          onStep: (m) =>
            console.log(
              `  step ${m.step}/${steps}: ` +
                `${
                  m.successImagined === null
                    ? ''
                    : `imagined success ${pct(m.successCalibrated ?? m.successImagined)}, `
                }` +
                `${m.successAnchors === null ? '' : `real rollouts ${pct(m.successAnchors)}, `}` +
                `${m.ppi ? `PPI ${pct(m.ppi.estimate)} [${pct(m.ppi.lower)}, ${pct(m.ppi.upper)}], ` : ''}robot ` +
                `time ${m.robotSeconds.toFixed(0)} s`,
            ),
          onEval: (e) =>
            console.log(
              `  held-out evaluation after step ${e.step}: ${e.successes}/${e.episodes} (${pct(e.successRate)})`,
            ),
        });
      }
    } finally {
      await env.close();
    }
    const w = reports.wmrl!;
    const r = reports.real!;
    const before = w.evaluations[0]!.successRate;
    const after = (rep: RunReport) => rep.evaluations.at(-1)!.successRate;
    console.log(
      `\nheld-out ${POST_TRAIN_TASKS} instructions ` +
        `(${trainConfig.eval.episodes} evaluation episodes, never charged as robot time):`,
    );
    console.log(`  behaviour cloning         ${pct(before)}`);
    console.log(
      `  after WMRL                ${pct(after(w))}   robot ` +
        `time ${w.robotSeconds.toFixed(0)} s (${w.realEpisodes} real episodes)`,
    );
    console.log(
      `  after real-only GRPO      ${pct(after(r))}   robot ` +
        `time ${r.robotSeconds.toFixed(0)} s (${r.realEpisodes} real episodes)`,
    );
    // Less robot time is a saving only at an equal gain: print the gains and leave the ratio out.
    console.log(`  gains: WMRL ${signed(after(w) - before)}, real-only ${signed(after(r) - before)}.`);
    // One seed cannot back a claim: say how coarse the measurement is and where the real comparison is.
    const n = trainConfig.eval.episodes;
    console.log(
      `  One seed and ${n} evaluation episodes (one episode ` +
        `= ${(100 / n).toFixed(1)} points) cannot separate these gains;`,
    );
    console.log(`  npm run bench measures them over seeds (bench/results/wmrl.md; docs/benchmarks.md).`);
    log.log({
      stage: 'summary',
      before,
      afterWmrl: after(w),
      afterReal: after(r),
      robotSecondsWmrl: w.robotSeconds,
      robotSecondsReal: r.robotSeconds,
    });
    console.log(
      `\ndone in ${((performance.now() - started) / 1000).toFixed(0)} s. Outputs in ${out}: demos/ mixed/ ` +
        `(wmrl info), bc/policy, worldmodel/, wmrl/ and real/ (train.metrics.jsonl, policy/), demo.metrics.jsonl`,
    );
    return 0;
  },
};

function pct(x: number): string {
  return `${(100 * x).toFixed(0)}%`;
}

function signed(x: number): string {
  return `${x >= 0 ? '+' : ''}${(100 * x).toFixed(0)} points`;
}

async function collectDemos(
  robot: ReturnType<typeof loadRobot>,
  out: string,
  perFamily: number,
  seed: number,
  log: RunLog,
): Promise<void> {
  const env = await makeSimEnv(robot);
  try {
    for (const [bi, b] of BEHAVIOURS.entries()) {
      const controller = await makeController('expert', robot, { noise: b.noise });
      const store = await EpisodeStore.openForAppend(join(out, b.folder), storeRobot(robot));
      try {
        const n = Math.max(1, Math.round(perFamily * b.share)) * TASK_FAMILIES.length;
        const plan = planEpisodes(
          TASK_FAMILIES.map((family) => ({ family })),
          'train',
          n,
          seed + 100_000 * (bi + 1),
        );
        const progress = new Progress(`  ${b.label}`, plan.length);
        const r = await collectEpisodes({
          env,
          controller,
          store,
          plan,
          initialStatus: () => env.status(),
          onEpisode: (_e, i) => progress.update(i + 1),
        });
        progress.stop();
        console.log(
          `  ${b.label.padEnd(20)} ${r.episodes} episodes, ` +
            `${((100 * r.successes) / r.episodes).toFixed(0)}% successful`,
        );
        log.log({ stage: 'collect', behaviour: b.label, successes: r.successes, episodes: r.episodes });
      } finally {
        await store.close();
        controller.close?.();
      }
    }
  } finally {
    await env.close();
  }
}
