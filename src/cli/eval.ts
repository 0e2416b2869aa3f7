/** `wmrl eval`: run a trained policy in the simulator; success per family and split with 95% intervals. */
import { join } from 'node:path';
import { existsSync, writeFileSync } from 'node:fs';
import { actionDim, DEFAULT_ROBOT } from '../core/robotDescription.ts';
import { loadRobotWithTasks } from '../tasks/robotTasks.ts';
import type { Controller } from '../core/controller.ts';
import { RandomController } from '../envs/randomController.ts';
import type { EpisodeAbortedError } from '../envs/env.ts';
import { RunLog, runStamp } from '../core/runLog.ts';
import { Rng } from '../core/rng.ts';
import type { Episode, Split, TaskSpec } from '../core/types.ts';
import { EpisodeStore, storeRobot } from '../data/episodeStore.ts';
import { collectEpisodes } from '../data/collectEpisodes.ts';
import { makeEnv } from '../envs/makeEnv.ts';
import { SuccessTable } from '../eval/successTable.ts';
import { loadPolicy } from '../policy/policyFiles.ts';
import { PolicyController } from '../policy/policyController.ts';
import { POLICY_KERNELS } from '../policy/policyConfig.ts';
import { planEpisodes, type PlannedEpisode } from '../tasks/episodePlan.ts';
import { sceneFamilies, taskFamily } from '../tasks/families.ts';
import { parseTaskSelectors } from '../tasks/selectors.ts';
import { sampleTask } from '../tasks/sampleTask.ts';
import { choiceFlag, intFlag, parseFlags, UsageError } from './args.ts';
import { useBackend } from './common.ts';
import { ENV_FLAGS, ENV_HELP, envChoice } from './envFlags.ts';
import { Progress } from './progress.ts';
import { imaginedPlan, PPI_FLAGS, PPI_HELP, ppiChoice, ppiPredictor, writePpiResults } from './evalPpi.ts';
import { evaluateWithPredictions, type PpiEvaluation } from '../eval/ppiEvaluation.ts';
import { formatPpiRows } from '../eval/ppiTable.ts';
import { evaluationEpisodeNoise } from '../rl/estimates/evaluationImagination.ts';
import { HELD_OUT_SEED } from '../rl/estimates/heldOutEvaluation.ts';

const HELP = `usage: wmrl eval --policy DIR [options]
       wmrl eval --policy DIR --world-model DIR [--real N] [--imagined M] [options]
       wmrl eval --policy DIR --start-head DATA [--real N] [--imagined M] [options]

  --policy DIR          a policy checkpoint (or a pretrain output folder), or 'random' (the baseline)
  --robot R             robot description: a name under robots/, a folder holding robot.yaml, or a .yaml
                        file (default ${DEFAULT_ROBOT})
  --episodes N          episodes per family and split (default 20)
  --task SEL            family[:colour[:object|zone]], comma-separated, or 'all' (default all)
  --split S             train | test | both (default both)
  --seed S              first episode seed (default ${HELD_OUT_SEED}: apart from collection seeds; a
                        training run's held-out evaluations play the same episodes)
  --stochastic          sample actions instead of taking the mean
  --swap-instructions   give each episode another task's instruction (does language matter?)
  --instructions-from DATA  evaluate on DATA's own tasks, in its own words (an imported dataset's
                        instructions, say): each distinct task of DATA in the split, --episodes each,
                        scenes from --seed (instead of --task)
  --out DIR             where the evaluation episodes are stored (default runs/eval-<time>)
  --outcomes-only       store no episodes, only each one's outcome (the metrics log in DIR/runs/)
                        and success.json: for repeated evaluations whose recordings no one watches
  --backend B           auto | tensorflow-gpu | tensorflow | wasm | cpu
${ENV_HELP}
${PPI_HELP}`;

/** Another task's instruction: the next family's (of those with a scene), about a different colour. */
export function swappedInstruction(task: TaskSpec): string {
  const families = sceneFamilies();
  const family = families[(families.indexOf(taskFamily(task.family)) + 1) % families.length]!;
  for (let seed = 0; ; seed++) {
    const other = sampleTask({ family }, 'train', new Rng(seed));
    if (other.color !== task.color) return other.instruction;
  }
}

/**
 * Episodes of a dataset's own tasks: each distinct task (family, target, words) of `dir` in `splits`, `perTask`
 * times, seeds counting up from `seed`.
 */
async function ownTaskPlan(
  dir: string,
  splits: readonly Split[],
  perTask: number,
  seed: number,
): Promise<PlannedEpisode[]> {
  const store = await EpisodeStore.open(dir);
  const tasks = new Map<string, TaskSpec>();
  for await (const e of store.episodes()) if (splits.includes(e.task.split)) tasks.set(JSON.stringify(e.task), e.task);
  if (tasks.size === 0)
    throw new UsageError(
      `--instructions-from ${dir}: no episode of the ${splits.join(' or ')} split to take tasks from`,
    );
  return [...tasks.values()].flatMap((task, i) =>
    Array.from({ length: perTask }, (_, k) => ({ task, seed: seed + 1000 * i + k })),
  );
}

export const command = {
  summary:
    'evaluate a policy (simulator or rosbridge robot): success per family and split with 95% intervals; ' +
    'with --world-model or --start-head, real plus predicted episodes (PPI)',
  async run(argv: string[]): Promise<number> {
    const { values } = parseFlags(argv, {
      policy: { type: 'string' },
      robot: { type: 'string' },
      episodes: { type: 'string' },
      task: { type: 'string' },
      split: { type: 'string' },
      seed: { type: 'string' },
      stochastic: { type: 'boolean' },
      'swap-instructions': { type: 'boolean' },
      'instructions-from': { type: 'string' },
      out: { type: 'string' },
      backend: { type: 'string' },
      json: { type: 'boolean' },
      'outcomes-only': { type: 'boolean' },
      ...PPI_FLAGS,
      ...ENV_FLAGS,
      help: { type: 'boolean', short: 'h' },
    });
    if (values.help) {
      console.log(HELP);
      return 0;
    }
    if (!values.policy) throw new UsageError(`--policy is required\n\n${HELP}`);
    const ppi = ppiChoice(values);
    const perCell = ppi?.real ?? intFlag(values.episodes, 'episodes', 20, 1);
    const split = choiceFlag(values.split, 'split', ['train', 'test', 'both'] as const, 'both');
    const selectors = parseTaskSelectors(values.task ?? 'all');
    const seed = intFlag(values.seed, 'seed', HELD_OUT_SEED);
    const out = values.out ?? join('runs', `eval-${runStamp()}`);
    const envFlags = envChoice(values);
    await useBackend(values.backend ?? 'auto', POLICY_KERNELS);
    const random = values.policy === 'random';
    const dir = random
      ? 'random'
      : existsSync(join(values.policy, 'policy', 'model.json'))
        ? join(values.policy, 'policy')
        : values.policy;
    const flag = ppi?.predictor === 'start-head' ? '--start-head' : '--world-model';
    if (ppi && random)
      throw new UsageError(`${flag} predicts from the policy's perception: it needs a trained policy, not random`);
    if (ppi && values['swap-instructions'])
      throw new UsageError(`${flag} and --swap-instructions do not go together (the prediction reads the instruction)`);
    const policy = random ? undefined : await loadPolicy(dir);
    const robot = loadRobotWithTasks(values.robot ?? DEFAULT_ROBOT);
    // Imagination under the seed's noise pairs with real episodes sampled under it (evaluationEpisodeNoise).
    const noise = values.stochastic ? { seed, correlation: 0 } : null;
    const splits = split === 'both' ? (['train', 'test'] as const) : [split];
    const own = values['instructions-from'];
    if (own && values.task)
      throw new UsageError('--instructions-from DATA takes its tasks from DATA: leave out --task');
    const plan = own
      ? await ownTaskPlan(own, splits, perCell, seed)
      : splits.flatMap((s, si) =>
          selectors.flatMap((sel, fi) => planEpisodes([sel], s, perCell, seed + 10_000 * si + 1000 * fi)),
        );
    const predictor =
      ppi && policy
        ? await ppiPredictor(ppi, policy, robot, noise, plan).catch((err: unknown) => {
            policy.dispose();
            throw err;
          })
        : undefined;
    const env = await makeEnv(robot, {
      ...envFlags,
      cameras: [policy?.config.encoder.camera ?? robot.cameras[0]!.name],
    }).catch((err: unknown) => {
      predictor?.dispose();
      policy?.dispose();
      throw err;
    });
    const swap = values['swap-instructions'] ?? false;
    const controller: Controller = policy
      ? new PolicyController(policy, {
          deterministic: !values.stochastic,
          instructionOverride: swap ? swappedInstruction : undefined,
          ...(predictor && noise ? { episodeNoise: evaluationEpisodeNoise(noise, policy) } : {}),
          name: `vla:${dir}${swap ? ':swapped-instructions' : ''}`,
        })
      : new RandomController(actionDim(robot));
    const further = ppi ? imaginedPlan(splits, selectors, ppi.imagined, seed) : [];
    const store = values['outcomes-only'] ? undefined : await EpisodeStore.openForAppend(out, storeRobot(robot));
    const settings = {
      command: 'eval',
      policy: dir,
      episodesPerCell: perCell,
      split,
      task: own ? `the tasks of ${own}` : (values.task ?? 'all'),
      seed,
      deterministic: !values.stochastic,
      swapInstructions: swap,
      env: envFlags.env,
      url: envFlags.url,
      ...(ppi ? { ppi: { ...ppi, noise } } : {}),
    };
    const log = new RunLog(join(out, 'runs'), `eval-${runStamp()}`, settings);
    let table = new SuccessTable();
    let ppiResult: PpiEvaluation | undefined;
    let progress = new Progress('eval', plan.length);
    const onEpisode = (e: Episode, i: number) => {
      log.log({
        episode: i,
        family: e.task.family,
        split: e.task.split,
        instruction: e.task.instruction,
        success: e.success,
        steps: e.steps,
      });
      progress.update(i + 1, `${e.task.family} ${e.success ? 'ok' : 'fail'}`);
    };
    // An aborted episode is stored marked aborted, not counted, and run again once the robot answers.
    const onAbort = (err: EpisodeAbortedError, i: number) => {
      log.log({ episode: i, aborted: err.message, fault: err.fault });
      process.stderr.write(`\n${err.message}; waiting for the robot, then running episode ${i} again\n`);
    };
    try {
      if (predictor) {
        ppiResult = await evaluateWithPredictions({
          env,
          controller,
          ...(store ? { store } : {}),
          realPlan: plan,
          imaginedPlan: further,
          initialStatus: () => env.status(),
          predict: (starts) => {
            progress.stop();
            console.error(`predicting ${starts.length} starts with ${predictor.source}`);
            return predictor.predict(starts);
          },
          onEpisode,
          onAbort,
          onStart: (done, total) => {
            if (done === 1) {
              progress.stop();
              progress = new Progress('further starts', total);
            }
            progress.update(done);
          },
        });
        table = ppiResult.evaluation.table;
      } else {
        await collectEpisodes({
          env,
          controller,
          ...(store ? { store } : {}),
          plan,
          initialStatus: () => env.status(),
          onEpisode: (e, i) => {
            table.add(e);
            onEpisode(e, i);
          },
          onAbort,
        });
      }
    } finally {
      progress.stop();
      await store?.close();
      await env.close();
      predictor?.dispose();
      policy?.dispose();
    }
    writeFileSync(join(out, 'success.json'), JSON.stringify(table.rows(), null, 2) + '\n');
    if (ppiResult) {
      for (const u of ppiResult.units) log.log({ kind: 'prediction', ...u, paired: u.outcome !== null });
      writePpiResults(out, settings, ppiResult.rows, ppiResult.units);
    }
    if (values.json)
      console.log(JSON.stringify(ppiResult ? { success: table.rows(), ppi: ppiResult.rows } : table.rows(), null, 2));
    else {
      console.log(
        `policy ${dir}${swap ? " (instructions swapped for another task's)" : ''}, ` +
          `${random ? 'uniformly random' : values.stochastic ? 'sampled' : 'mean'} actions:`,
      );
      console.log(table.format());
      if (ppiResult) {
        console.log(`\nwith ${predictor!.source} (${ppi!.imagined} predicted further starts per row):`);
        console.log(formatPpiRows(ppiResult.rows));
      }
      console.log(
        `${store ? `episodes stored in ${out} (wmrl info ${out})` : `outcomes in ${join(out, 'runs')}`}` +
          `${ppiResult ? `; estimates in ${join(out, 'ppi.json')}` : ''}`,
      );
    }
    return 0;
  },
};
