/**
 * `wmrl demo`: the main job end to end on the embedded default (simulator, no robot, no GPU):
 *  1. demonstrations: scripted experts, some with a little noise, train-split instructions only;
 *  2. behaviour cloning of the tiny VLA policy;
 *  3. WMRL post-training from it (a world model over the policy's perception of the demonstrations, warm-up
 *     episodes, imagined groups scored against the demonstrations' keyframes, anchor episodes, debiasing,
 *     denoising, PPI), every robot second it learns from counted;
 *  4. GRPO on the simulator alone for comparison, evaluated after every step;
 *  5. held-out success against robot time (learning-curves.svg, and in the terminal), compared at
 *     equal robot time and at equal success, each difference with its paired 95% interval.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { resolveConfig } from '../core/config.ts';
import type { Episode } from '../core/types.ts';
import { CONFIGS_DIR, DEFAULT_ROBOT } from '../core/robotDescription.ts';
import { loadRobotWithTasks } from '../tasks/robotTasks.ts';
import { readRunLog, RunLog, runStamp } from '../core/runLog.ts';
import { EpisodeStore, storeRobot } from '../data/episodeStore.ts';
import { collectEpisodes } from '../data/collectEpisodes.ts';
import { makeController, makeSimEnv } from '../envs/makeEnv.ts';
import { POLICY_KERNELS, policyConfigSchema } from '../policy/policyConfig.ts';
import { pretrainPolicy } from '../policy/pretrain.ts';
import { savePolicy } from '../policy/policyFiles.ts';
import { envAnchorRunner } from '../rl/run/anchorRunner.ts';
import { runAnchorDir, runTraining } from '../rl/run/runTraining.ts';
import { wmrlConfigSchema, type WmrlConfig } from '../rl/config/wmrlConfig.ts';
import { WORLD_MODEL_KERNELS } from '../worldmodel/worldModelConfig.ts';
import { meanCurve } from '../eval/learningCurves.ts';
import { wilsonInterval } from '../eval/proportion.ts';
import { learningCurveSvg, learningCurveText } from '../eval/learningCurvePlot.ts';
import { compareAtRobotTime, type EvaluatedPoint, type RobotTimeComparison } from '../eval/robotTimeComparison.ts';
import { planEpisodes } from '../tasks/episodePlan.ts';
import { BUILT_IN } from '../tasks/families.ts';
import { intFlag, parseFlags } from './args.ts';
import { readEpisodes, useBackend } from './common.ts';
import { demoEvaluator } from './demoEvaluator.ts';
import { Progress } from './progress.ts';
import { runChild } from './wmrlChild.ts';

const POST_TRAIN_TASKS = 'reach';

/**
 * Behaviours that make the demo data (train split, every family: the held-out reach instructions use
 * words that only other families' train instructions teach): the demonstrations of the benchmark's reach
 * set-up (bench/benchFamilies.ts), per expert demonstration of a family. They teach the policy and the world
 * model alike; nothing is collected for the world model alone (its warm-up episodes are WMRL's robot time).
 */
const BEHAVIOURS = [
  { label: 'expert', noise: 0, share: 1, folder: 'demos', here: true },
  { label: 'expert, noise 0.1', noise: 0.1, share: 1 / 3, folder: 'demos-noise', here: false },
] as const;
/**
 * What behaviour cloning and the world model learn from: every behaviour's folder, in this order. `here`: collected
 * in this process; the others in a second one (a folder has one writer), on the other core, so that cloning starts
 * sooner.
 */
const DEMO_FOLDERS = BEHAVIOURS.map((b) => b.folder);
/**
 * The world model: configs/wm/perception.yaml, trained 6 epochs here (8 in the benchmark). It is on
 * the path the demo waits on (≈ 17 s an epoch on 2 cores); with 8 the demo took 355–379 s, with 6
 * about 330, and its printed figures still agree with 600 other episodes (docs/benchmarks.md, "The demo").
 */
const DEMO_WORLD_MODEL = { files: [join(CONFIGS_DIR, 'wm', 'perception.yaml')], overrides: { 'train.epochs': '6' } };

export const command = {
  summary:
    'the main job end to end in the simulator: demos → behaviour cloning → WMRL vs real-only GRPO → held-out success',
  async run(argv: string[]): Promise<number> {
    const { values } = parseFlags(argv, {
      out: { type: 'string' },
      robot: { type: 'string' },
      episodes: { type: 'string' },
      steps: { type: 'string' },
      'real-steps': { type: 'string' },
      'eval-episodes': { type: 'string' },
      seed: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    });
    if (values.help) {
      console.log(
        `usage: wmrl demo [--out DIR] [--robot NAME|DIR|FILE.yaml (default ${DEFAULT_ROBOT})] [--episodes N expert ` +
          `demos per family (default 100; a third as many of each noisier kind)] [--steps N WMRL steps (default 12)] ` +
          '[--real-steps N real-only GRPO steps (default 4)] ' +
          '[--eval-episodes N held-out episodes per evaluation (default 200)] [--seed S]',
      );
      return 0;
    }
    const experts = intFlag(values.episodes, 'episodes', 100, 4);
    const steps = intFlag(values.steps, 'steps', 12, 1);
    const realSteps = intFlag(values['real-steps'], 'real-steps', 4, 1);
    // 200: a gain's paired 95% interval is about ±6 points (±8 at 100, where the demo's episodes put
    // real-only's gain 8 points above what 600 others measure; docs/benchmarks.md, the demo check).
    const evalEpisodes = intFlag(values['eval-episodes'], 'eval-episodes', 200, 10);
    const seed = intFlag(values.seed, 'seed', 0);
    const out = values.out ?? join('runs', `demo-${runStamp()}`);
    const robot = loadRobotWithTasks(values.robot ?? DEFAULT_ROBOT);
    const policyConfig = resolveConfig(policyConfigSchema, {
      files: [join(CONFIGS_DIR, 'policy', 'tiny.yaml')],
      overrides: { seed: String(seed), 'bc.epochs': '10', 'bc.batchSize': '64', 'bc.shiftAugment': 'false' },
    });
    // Post-training and evaluation on reach, as in `npm run bench`: there the BC start leaves room
    // and GRPO can learn; push and pick start near 0% on held-out instructions at demo scale.
    const shared = {
      seed: String(seed),
      tasks: POST_TRAIN_TASKS,
      'eval.tasks': POST_TRAIN_TASKS,
      'eval.episodes': String(evalEpisodes),
      // Every evaluated policy is kept: `npm run bench:demo-check` re-evaluates the ones compared.
      'eval.keepPolicies': 'true',
    };
    const trainConfig = resolveConfig(wmrlConfigSchema, {
      files: [join(CONFIGS_DIR, 'train', 'quickstart.yaml')],
      // At the start, half-way and the end: the one in the middle runs beside training (demoEvaluator).
      overrides: { ...shared, steps: String(steps), 'eval.every': String(Math.max(1, Math.ceil(steps / 2))) },
    });
    // The baseline's preset (8 groups a step, every rollout executed), evaluated after every step.
    const realConfig = resolveConfig(wmrlConfigSchema, {
      files: [join(CONFIGS_DIR, 'train', 'real-only.yaml')],
      overrides: { ...shared, steps: String(realSteps), 'eval.every': '1' },
    });
    const log = new RunLog(out, 'demo', {
      command: 'demo',
      robot: robot.name,
      experts,
      steps,
      realSteps,
      evalEpisodes,
      seed,
      out,
      policy: policyConfig,
      train: trainConfig,
      real: realConfig,
      worldModel: DEMO_WORLD_MODEL,
    });
    const started = performance.now();
    // Seconds of each stage, printed at the end: where a user's (or a benchmark's) minutes went.
    const stages: [string, number][] = [];
    let stageStart = started;
    const endStage = (name: string) => {
      const now = performance.now();
      stages.push([name, (now - stageStart) / 1000]);
      stageStart = now;
    };
    const backend = await useBackend('auto', [...POLICY_KERNELS, ...WORLD_MODEL_KERNELS]);

    console.log(`1/5 collecting demonstrations in the simulator (${backend} backend)`);
    // The noisier demonstrations are collected in a second process, on the other core, while the experts' are
    // collected here.
    const robotArg = values.robot ?? DEFAULT_ROBOT;
    const childCollection = startChildCollection(out, robotArg, experts, seed);
    console.log(`  (the noisier demonstrations in a second process; its log: ${childCollection.log})`);
    await collectDemos(robot, out, experts, seed, log);
    await childCollection.done;
    for (const b of BEHAVIOURS) if (!b.here) reportCollected(b.label, await readEpisodes([join(out, b.folder)]), log);
    const demos = await readEpisodes(DEMO_FOLDERS.map((f) => join(out, f)));
    endStage('collection');

    console.log('\n2/5 behaviour cloning of the tiny VLA policy');
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
    endStage('behaviour cloning');
    const best = bc.bc[bc.bestEpoch]!;
    console.log(
      `  ${bc.episodesUsed} demonstrations, ${bc.parameters.toLocaleString()} ` +
        `parameters, ${bc.seconds.toFixed(0)} s; validation action MSE ${best.validationMse.toFixed(4)}, ` +
        `instructed object found to ${best.validationImageRmsePx.toFixed(1)} px`,
    );

    // Real-only GRPO needs neither the world model nor WMRL's results: it runs in a second process
    // on the other core while this one trains the world model and WMRL.
    const realOnly = startRealOnly(out, policyDir, robotArg, realConfig);
    const curves: Record<string, EvaluatedPoint[]> = { wmrl: [], real: [] };
    const env = await makeSimEnv(robot);
    let episodeBar: Progress | undefined;
    try {
      console.log(
        `\n3/5 WMRL post-training, ${steps} steps: imagined groups in a world model over ` +
          `the policy perception, one anchor group ${anchorCadence(trainConfig.anchorEvery)} on the simulator\n` +
          `  (real-only GRPO runs beside it in a second process; its log: ${realOnly.log})`,
      );
      // Robot time spent by each step: an evaluation's result may come later, from the second process.
      const robotSecondsAt = new Map([[0, 0]]);
      await runTraining({
        config: trainConfig,
        policyDir,
        data: demos,
        runDir: join(out, 'wmrl'),
        env,
        anchors: envAnchorRunner(env, runAnchorDir(join(out, 'wmrl'))),
        resume: false,
        worldModelConfig: DEMO_WORLD_MODEL,
        worldModelDir: join(out, 'worldmodel'),
        evaluator: demoEvaluator({
          out,
          robot: robotArg,
          env,
          config: trainConfig,
          realOnly: realOnly.result,
          realConfig,
        }),
        onProgress: (what) => process.stderr.write(`  ${what}\n`),
        onEpisode: (done, total) => {
          if (done === 1) episodeBar = new Progress('  real episodes', total);
          episodeBar!.update(done);
          if (done === total) episodeBar!.stop();
        },
        onStep: (m) => {
          robotSecondsAt.set(m.step, m.robotSeconds);
          const imagined = m.successCalibrated ?? m.successImagined;
          console.log(
            `  step ${m.step}/${steps}: ` +
              `${imagined === null ? '' : `imagined success ${pct(imagined)}, `}` +
              `${m.successAnchors === null ? '' : `real rollouts ${pct(m.successAnchors)}, `}` +
              `${m.ppi ? `PPI ${pct(m.ppi.estimate)} [${pct(m.ppi.lower)}, ${pct(m.ppi.upper)}], ` : ''}robot ` +
              `time ${m.robotSeconds.toFixed(0)} s`,
          );
        },
        onEval: (e) => {
          const spent = robotSecondsAt.get(e.step)!;
          curves.wmrl!.push({ step: e.step, robotSeconds: spent, success: e.successRate, outcomes: e.outcomes });
          // Out of step order when an earlier evaluation's process finishes later.
          curves.wmrl!.sort((a, b) => a.step - b.step);
          console.log(
            `  held-out evaluation after step ${e.step}: ${e.successes}/${e.episodes} (${pct(e.successRate)})` +
              (e.step === 0 ? " (the BC start: real-only's evaluation of it)" : ''),
          );
        },
      });
    } finally {
      await env.close();
    }
    endStage('world model and WMRL');
    console.log(
      `\n4/5 for comparison: GRPO on the simulator alone, ${realSteps} steps (every rollout executed ` +
        'for real), evaluated after every step',
    );
    if (!realOnly.done()) console.log('  waiting for it to finish');
    curves.real = reportRealOnly(await realOnly.result, realSteps);
    endStage('waiting for real-only GRPO');
    console.log('\n5/5 WMRL against real-only GRPO on the same held-out episodes');
    const c = compareAtRobotTime(curves.wmrl!, curves.real!);
    // One seed: each evaluation's band is its 95% (Wilson) interval.
    const withIntervals = (curve: EvaluatedPoint[]) =>
      meanCurve([curve]).map((p, i) => {
        const w = wilsonInterval(
          curve[i]!.outcomes.reduce((n, o) => n + o, 0),
          curve[i]!.outcomes.length,
        );
        return { ...p, low: w.low, high: w.high };
      });
    const plot = {
      title: `held-out ${POST_TRAIN_TASKS} success against robot time (demo, seed ${seed})`,
      bandLabel: `95% interval, ${evalEpisodes} episodes`,
      arms: [
        { name: 'real-only GRPO', colour: '#d62728', points: withIntervals(curves.real!) },
        { name: 'WMRL', colour: '#1f77b4', points: withIntervals(curves.wmrl!) },
      ],
    };
    const plotFile = join(out, 'learning-curves.svg');
    writeFileSync(plotFile, learningCurveSvg(plot));
    console.log(learningCurveText(plot, ['R', 'W']));
    printComparison(c, evalEpisodes, trainConfig.worldModel.warmupEpisodes);
    log.log({
      stage: 'summary',
      before: curves.wmrl![0]!.success,
      afterWmrl: c.candidateFinal.success,
      robotSecondsWmrl: c.budgetSeconds,
      afterReal: curves.real!.at(-1)!.success,
      robotSecondsReal: curves.real!.at(-1)!.robotSeconds,
      realAtWmrlBudget: c.referenceAtBudget,
      equalTime: c.equalTime
        ? {
            realStep: c.equalTime.reference.step,
            realSuccess: c.equalTime.reference.success,
            ...c.equalTime.difference,
          }
        : null,
      realSecondsToWmrlFinal: c.referenceSecondsToCandidateFinal,
      wmrlGain: c.candidateGain,
      realGain: c.referenceGain,
      stageSeconds: Object.fromEntries(stages),
    });
    console.log(
      `\ndone in ${((performance.now() - started) / 1000).toFixed(0)} s ` +
        `(${stages.map(([name, sec]) => `${name} ${sec.toFixed(0)} s`).join(', ')}). ` +
        `Outputs in ${out}: learning-curves.svg, ` +
        'demos/ demos-noise/ (wmrl info), bc/policy, worldmodel/, wmrl/ and real/ (train.metrics.jsonl, ' +
        'policy/), wmrl-evaluations/, ' +
        'demo.metrics.jsonl',
    );
    return 0;
  },
};

/**
 * The comparison in words: gains, equal robot time, equal success, each difference with its interval; and what WMRL's
 * robot time holds (`warmupEpisodes`, its world model's warm-up).
 */
function printComparison(c: RobotTimeComparison, episodes: number, warmupEpisodes: number): void {
  const points = (d: { difference: number; low: number; high: number }) =>
    `${signed(d.difference)} [${signed(d.low, false)}, ${signed(d.high, false)}]`;
  const stands = (d: { low: number; high: number }) =>
    d.low > 0 ? 'above its interval' : d.high < 0 ? 'below its interval' : 'within its interval: not separated';
  console.log(
    `  ${episodes} held-out episodes, the same in every evaluation (95% intervals of paired differences; ` +
      'evaluation episodes are never charged as robot time)',
  );
  console.log(
    `  WMRL:           ${pct(c.candidateFinal.success)} after ${c.budgetSeconds.toFixed(0)} robot-s; ` +
      `gain over BC ${points(c.candidateGain)}`,
  );
  const last = c.equalTime?.reference;
  console.log(
    `  real-only GRPO: gain over BC ${points(c.referenceGain)} at its end` +
      `${last ? '' : ' (it never spent as much robot time as WMRL)'}`,
  );
  if (c.equalTime) {
    const r = c.equalTime.reference;
    console.log(
      `  at equal robot time: real-only after step ${r.step} (${r.robotSeconds.toFixed(0)} robot-s, at least ` +
        `WMRL's) ${pct(r.success)}; WMRL − real-only ${points(c.equalTime.difference)}, ` +
        `${stands(c.equalTime.difference)}`,
    );
  }
  const t = c.referenceSecondsToCandidateFinal;
  console.log(
    c.candidateGain.difference <= 0
      ? '  at equal success: WMRL ended no higher than BC, so there is no success to reach'
      : t === null
        ? `  at equal success: real-only never reached WMRL's ${pct(c.candidateFinal.success)} in its run`
        : `  at equal success: real-only needed ${t.toFixed(0)} robot-s to reach WMRL's ` +
          `${pct(c.candidateFinal.success)} (linear between its evaluations): ` +
          `${(t / Math.max(1e-9, c.budgetSeconds)).toFixed(1)}× WMRL's ${c.budgetSeconds.toFixed(0)} s`,
  );
  console.log(
    `  every robot second counted: WMRL's includes its ${warmupEpisodes} warm-up episodes; its world model learned ` +
      'from the demonstrations the clone learned from and from those episodes and its anchors, nothing else',
  );
  console.log('  One seed: npm run bench measures the same comparison over 5 seeds (docs/benchmarks.md).');
}

function pct(x: number): string {
  return `${(100 * x).toFixed(0)}%`;
}

function signed(x: number, unit = true): string {
  return `${x >= 0 ? '+' : ''}${(100 * x).toFixed(0)}${unit ? ' points' : ''}`;
}

async function collectDemos(
  robot: ReturnType<typeof loadRobotWithTasks>,
  out: string,
  experts: number,
  seed: number,
  log: RunLog,
): Promise<void> {
  const env = await makeSimEnv(robot);
  try {
    for (const [bi, b] of BEHAVIOURS.entries()) {
      if (!b.here) continue;
      const controller = await makeController('expert', robot, { noise: b.noise });
      const store = await EpisodeStore.openForAppend(join(out, b.folder), storeRobot(robot));
      try {
        const plan = planEpisodes(
          BUILT_IN.map((family) => ({ family })),
          'train',
          behaviourEpisodes(b, experts),
          behaviourSeed(bi, seed),
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

/** Episodes of a behaviour: its share of the experts per family, for every family. */
function behaviourEpisodes(b: (typeof BEHAVIOURS)[number], experts: number): number {
  return Math.max(1, Math.round(experts * b.share)) * BUILT_IN.length;
}

/** The first episode seed of behaviour `index`: the behaviours' episodes never share a seed. */
function behaviourSeed(index: number, seed: number): number {
  return seed + 100_000 * (index + 1);
}

/** A behaviour's episodes, as the in-process collection prints and logs them. */
function reportCollected(label: string, episodes: Episode[], log: RunLog): void {
  const successes = episodes.filter((e) => e.success).length;
  const rate = ((100 * successes) / episodes.length).toFixed(0);
  console.log(`  ${label.padEnd(20)} ${episodes.length} episodes, ${rate}% successful`);
  log.log({ stage: 'collect', behaviour: label, successes, episodes: episodes.length });
}

/**
 * The behaviours not collected here, one `wmrl collect` after the other in child processes (their
 * output to `collect-noise.log`): the same plans, controllers and simulator as in-process collection, so the
 * episodes are the same. `done` resolves when they are in.
 */
function startChildCollection(
  out: string,
  robot: string,
  experts: number,
  seed: number,
): { log: string; done: Promise<void> } {
  const log = join(out, 'collect-noise.log');
  writeFileSync(log, '');
  let chain = Promise.resolve();
  for (const [bi, b] of BEHAVIOURS.entries()) {
    if (b.here) continue;
    const args = ['collect', '--out', join(out, b.folder), '--task', 'all', '--split', 'train'];
    args.push('--episodes', String(behaviourEpisodes(b, experts)), '--seed', String(behaviourSeed(bi, seed)));
    args.push('--noise', String(b.noise), '--robot', robot);
    chain = chain.then(() => runChild(args, log, `collecting ${b.label}`));
  }
  // Awaited later: until then a failure must not end the process.
  chain.catch(() => {});
  return { log, done: chain };
}

/**
 * `wmrl train` in real mode with the demo's resolved config, as a child process (stdout and stderr
 * to `real-only.log`). Resolves to its metrics records; rejects with the log's tail if the run
 * fails. The child is killed if the demo exits first.
 */
function startRealOnly(
  out: string,
  policyDir: string,
  robot: string,
  config: WmrlConfig,
): { log: string; result: Promise<Record<string, unknown>[]>; done: () => boolean } {
  const runDir = join(out, 'real');
  const configFile = join(out, 'real-only.config.json');
  const log = join(out, 'real-only.log');
  writeFileSync(configFile, `${JSON.stringify(config, null, 2)}\n`);
  const args = ['train', '--policy', policyDir];
  for (const folder of DEMO_FOLDERS) args.push('--data', join(out, folder));
  args.push('--robot', robot, '--config', configFile, '--out', runDir);
  writeFileSync(log, '');
  let finished = false;
  const result = runChild(args, log, 'real-only GRPO')
    .finally(() => {
      finished = true;
    })
    .then(() => readRunLog(join(runDir, 'train.metrics.jsonl')));
  // Reported where the demo awaits it, after WMRL; until then a failure must not end the process.
  result.catch(() => {});
  return { log, result, done: () => finished };
}

/** Prints the real-only run's steps and evaluations; returns its evaluations at the robot time spent before each. */
function reportRealOnly(records: Record<string, unknown>[], steps: number): EvaluatedPoint[] {
  for (const r of records) {
    if (r.kind === 'step')
      console.log(
        `  step ${String(r.step)}/${steps}: real rollouts ${pct(r.successAnchors as number)}, ` +
          `robot time ${(r.robotSeconds as number).toFixed(0)} s`,
      );
    if (r.kind === 'eval')
      console.log(
        `  held-out evaluation after step ${String(r.step)}: ${String(r.successes)}/${String(r.episodes)} ` +
          `(${pct(r.successRate as number)})`,
      );
  }
  return records
    .filter((r) => r.kind === 'eval')
    .map((r) => ({
      step: r.step as number,
      robotSeconds: (r.trainingRobotSeconds as number | undefined) ?? 0,
      success: r.successRate as number,
      outcomes: r.outcomes as number[],
    }));
}

/** How often the anchor groups run, in words: "per step", "every other step", "every 3 steps". */
function anchorCadence(every: number): string {
  if (every === 1) return 'per step';
  return every === 2 ? 'every other step' : `every ${every} steps`;
}
