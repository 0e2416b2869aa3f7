/**
 * `wmrl collect`: run the expert or a random policy in the simulator (or on a rosbridge robot) and store the episodes.
 */
import { join } from 'node:path';
import { DEFAULT_ROBOT, robotRef } from '../core/robotDescription.ts';
import { loadRobotWithTasks } from '../tasks/robotTasks.ts';
import { RunLog, runStamp } from '../core/runLog.ts';
import { EpisodeStore, storeRobot } from '../data/episodeStore.ts';
import { collectEpisodes } from '../data/collectEpisodes.ts';
import { CONTROLLERS, ExpertNeedingState, makeController, makeEnv } from '../envs/makeEnv.ts';
import { planEpisodes } from '../tasks/episodePlan.ts';
import { familyDef, taskFamily } from '../tasks/families.ts';
import { parseTaskSelectors } from '../tasks/selectors.ts';
import { choiceFlag, intFlag, numberFlag, parseFlags, UsageError } from './args.ts';
import { ENV_FLAGS, ENV_HELP, envChoice } from './envFlags.ts';
import { Progress } from './progress.ts';
import { armFeasibility, infeasibleMessage } from '../../sim/armFeasibility.ts';

const HELP = `usage: wmrl collect --out DIR [options]

  --task SEL        family[:colour[:object|zone]], comma-separated, or 'all' (default all)
  --policy P        expert | random (default expert)
  --episodes N      number of episodes (default 30)
  --split S         train | test | both (default train)
  --seed S          first episode seed; episode i uses S+i (default 0)
  --noise X         Gaussian noise on the expert's normalised actions (default 0)
  --miss P          share of pick and place episodes whose grasp the expert aims off the block (6 cm
                    across, 8 cm above at most), seeded per episode: world-model data of fingers closing
                    on nothing, as a clone's failures do; never cloned (default 0)
  --robot R         robot description: a name under robots/, a folder holding robot.yaml, or a
                    .yaml file (default ${DEFAULT_ROBOT}); the dataset records where it came from
  --cameras A,B     cameras to record (default: the robot's first camera)
  --image-size N    render every camera at N×N (default: the robot description's size)
${ENV_HELP}
  --out DIR         dataset folder: created if absent or empty, appended to if it holds a
                    dataset of the same robot; any other content is refused untouched`;

export const command = {
  summary: 'collect expert or random episodes (simulator or rosbridge robot) into a dataset folder',
  async run(argv: string[]): Promise<number> {
    const { values } = parseFlags(argv, {
      task: { type: 'string' },
      policy: { type: 'string' },
      episodes: { type: 'string' },
      split: { type: 'string' },
      seed: { type: 'string' },
      noise: { type: 'string' },
      miss: { type: 'string' },
      robot: { type: 'string' },
      cameras: { type: 'string' },
      'image-size': { type: 'string' },
      out: { type: 'string' },
      ...ENV_FLAGS,
      help: { type: 'boolean', short: 'h' },
    });
    if (values.help) {
      console.log(HELP);
      return 0;
    }
    if (!values.out) throw new UsageError(`--out DIR is required\n\n${HELP}`);
    const config = {
      command: 'collect',
      task: values.task ?? 'all',
      policy: choiceFlag(values.policy, 'policy', CONTROLLERS, 'expert'),
      episodes: intFlag(values.episodes, 'episodes', 30, 1),
      split: choiceFlag(values.split, 'split', ['train', 'test', 'both'] as const, 'train'),
      seed: intFlag(values.seed, 'seed', 0),
      noise: numberFlag(values.noise, 'noise', 0, 0, 2),
      miss: numberFlag(values.miss, 'miss', 0, 0, 1),
      robot: values.robot ?? DEFAULT_ROBOT,
      cameras: values.cameras?.split(',').filter(Boolean),
      imageSize: values['image-size'] === undefined ? undefined : intFlag(values['image-size'], 'image-size', 64, 8),
      out: values.out,
      ...envChoice(values),
    };
    if (config.miss > 0 && config.policy !== 'expert')
      throw new UsageError(`--miss aims the scripted expert's grasps off the block; --policy is '${config.policy}'`);
    // Validate everything before touching the output folder.
    const robot = loadRobotWithTasks(config.robot);
    const plan = planEpisodes(parseTaskSelectors(config.task), config.split, config.episodes, config.seed);
    const controller = await makeController(config.policy, robot, { noise: config.noise, miss: config.miss });
    const expert = controller instanceof ExpertNeedingState ? controller.expert : undefined;
    if (expert) {
      // A family the arm cannot do is refused before anything runs (`wmrl robot check` shows the same reasons).
      const families = [...new Set(plan.map((e) => taskFamily(e.task.family)))];
      const without = families.filter((f) => familyDef(f).scene?.expert === undefined);
      if (without.length > 0) {
        controller.close?.();
        throw new UsageError(
          `no scripted expert demonstrates ${without.join(', ')} (its file names no scene.expert): ` +
            'collect it with --policy random, or record demonstrations on a robot',
        );
      }
      const infeasible = armFeasibility(expert.kinematics, robot, families).families.filter((f) => !f.feasible);
      if (infeasible.length > 0) {
        controller.close?.();
        throw new UsageError(
          `${infeasible.map((f) => infeasibleMessage(robot, f)).join('\n')}\n` +
            `(wmrl robot check ${config.robot} shows the arm; --task picks the families)`,
        );
      }
    }
    const env = await makeEnv(robot, {
      env: config.env,
      url: config.url,
      speed: config.speed,
      connectTimeoutMs: config.connectTimeoutMs,
      cameras: config.cameras,
      imageSize: config.imageSize,
    }).catch((err: unknown) => {
      controller.close?.();
      throw err;
    });
    const store = await EpisodeStore.openForAppend(config.out, storeRobot(robot)).catch(async (err: unknown) => {
      controller.close?.();
      await env.close();
      throw err;
    });
    const log = new RunLog(join(config.out, 'runs'), `collect-${runStamp()}`, {
      ...config,
      robot: robotRef(robot),
      speed: config.speed === Infinity ? 'max' : config.speed,
      cameras: env.cameras,
    });
    const progress = new Progress('collect', plan.length);
    const stop = new AbortController();
    const onSigint = () => {
      process.stderr.write('\ninterrupted: finishing the current episode, then closing the dataset\n');
      stop.abort();
    };
    process.once('SIGINT', onSigint);
    const started = performance.now();
    try {
      const result = await collectEpisodes({
        env,
        controller,
        store,
        plan,
        signal: stop.signal,
        initialStatus: () => env.status(),
        onEpisode: (episode, i) => {
          log.log({
            episode: i,
            seed: episode.seed,
            family: episode.task.family,
            split: episode.task.split,
            instruction: episode.task.instruction,
            success: episode.success,
            steps: episode.steps,
          });
          progress.update(i + 1, `${episode.task.family} ${episode.success ? 'ok' : 'fail'}`);
        },
        onAbort: (err, i) => {
          log.log({ episode: i, aborted: err.message, fault: err.fault });
          process.stderr.write(`\n${err.message}; waiting for the robot, then running episode ${i} again\n`);
        },
      });
      progress.stop();
      const seconds = (performance.now() - started) / 1000;
      console.log(
        `collected ${result.episodes} episodes into ${config.out}: ${result.successes} successes ` +
          `(${((100 * result.successes) / Math.max(1, result.episodes)).toFixed(1)}%), ${seconds.toFixed(1)} s` +
          `${result.aborted ? `; ${result.aborted} aborted (stored marked aborted, never served for training)` : ''}`,
      );
      console.log(`config: ${log.configFile}\nmetrics: ${log.metricsFile}`);
      return stop.signal.aborted ? 130 : 0;
    } finally {
      process.off('SIGINT', onSigint);
      await store.close();
      controller.close?.();
      await env.close();
    }
  },
};
