/**
 * `wmrl run`: a trained policy on a robot (rosbridge) or in the embedded simulator, for a given
 * instruction. Every command goes through the env's safety filter; a fault or Ctrl-C ends the run
 * with nothing more sent, and the partial episode is kept (marked aborted) when recording.
 */
import { join } from 'node:path';
import { DEFAULT_ROBOT, robotRef } from '../core/robotDescription.ts';
import { loadRobotWithTasks } from '../tasks/robotTasks.ts';
import { addTasksBeside } from '../tasks/families.ts';
import { RunLog, runStamp } from '../core/runLog.ts';
import type { Episode } from '../core/types.ts';
import { EpisodeStore, storeRobot } from '../data/episodeStore.ts';
import { EpisodeAbortedError } from '../envs/env.ts';
import { EpisodeStoppedError } from '../envs/episodeStopped.ts';
import { makeEnv } from '../envs/makeEnv.ts';
import { runEpisode } from '../envs/rollout.ts';
import { POLICY_KERNELS, policyCamera } from '../policy/policyConfig.ts';
import { PolicyController } from '../policy/policyController.ts';
import { loadPolicy } from '../policy/policyFiles.ts';
import { requireBundle } from '../viewer/bundle.ts';
import { LiveEpisode } from '../viewer/liveEpisode.ts';
import { ViewerData } from '../viewer/viewerData.ts';
import { ViewerServer } from '../viewer/viewerServer.ts';
import { intFlag, parseFlags, UsageError } from './args.ts';
import { useBackend } from './common.ts';
import { envChoice } from './envFlags.ts';
import { checkPolicyFitsRobot, instructionWarnings, policyFolder, runTask, withOptionalValue } from './runInputs.ts';
import { untilStopped } from './untilStopped.ts';

const HELP = `usage: wmrl run --policy DIR --instruction "…" [--url ws://host:9090] [options]

  --policy DIR          a policy checkpoint, or a wmrl pretrain / train output folder
  --instruction TEXT    what the policy is told; words it never saw are warned about, an
                        instruction it knows no word of is refused
  --task SEL            the scene the robot is reset to and scored on, family[:colour[:object|zone]]
                        (default: the task the instruction names, when it is a family's phrasing)
  --robot R             a name under robots/, a folder holding robot.yaml, or a .yaml (default ${DEFAULT_ROBOT})
  --url URL             the robot's rosbridge server, ws://host:9090 (or \`wmrl sim-server\`);
                        without it the policy runs in the embedded simulator
  --speed X             with --url: the robot runs X times real time ('max' for a --lockstep sim-server)
  --connect-timeout S   with --url: seconds to wait for the robot's rosbridge server (default 30)
  --episodes N          episodes to run (default 1); episode i's scene seed is --seed + i
  --max-steps N         end each episode after N steps (default: the task's horizon)
  --seed S              first scene seed, and the exploration noise's with --noise (default 0)
  --noise               sample actions from the policy's Gaussian (explore) instead of taking its mean
  --record DIR          store the episodes as a dataset (created, or appended to); an episode cut
                        short by a fault or Ctrl-C is stored marked aborted, never served for training
  --view [PORT]         the live viewer of the running episode on 127.0.0.1 (default port 8090;
                        0 picks a free one); it stays up after the last episode until Ctrl-C
  --backend B           auto | tensorflow-gpu | tensorflow | wasm | cpu

Every command passes the safety filter (joint limits, maximum step, workspace box). Ctrl-C stops
the episode between two steps: nothing more is sent, so the arm stops at its last target, within
one step of where it is, and the robot's command watchdog holds it there; a second Ctrl-C exits at
once. Exit status: 0 done, 1 a fault aborted an episode, 130 stopped by Ctrl-C.`;

export const command = {
  summary: 'run a trained policy on a robot (rosbridge) or in the simulator, with live viewer and recording',
  async run(argv: string[]): Promise<number> {
    const { values } = parseFlags(withOptionalValue(argv, '--view', '8090'), {
      policy: { type: 'string' },
      instruction: { type: 'string' },
      task: { type: 'string' },
      robot: { type: 'string' },
      url: { type: 'string' },
      speed: { type: 'string' },
      'connect-timeout': { type: 'string' },
      episodes: { type: 'string' },
      'max-steps': { type: 'string' },
      seed: { type: 'string' },
      noise: { type: 'boolean' },
      record: { type: 'string' },
      view: { type: 'string' },
      backend: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    });
    if (values.help) {
      console.log(HELP);
      return 0;
    }
    if (!values.policy) throw new UsageError(`--policy DIR is required\n\n${HELP}`);
    if (values.instruction === undefined) throw new UsageError(`--instruction "…" is required\n\n${HELP}`);
    if (!values.url && (values.speed !== undefined || values['connect-timeout'] !== undefined))
      throw new UsageError('--speed and --connect-timeout are for a robot: give its --url');
    const instruction = values.instruction.trim();
    const episodes = intFlag(values.episodes, 'episodes', 1, 1);
    const maxSteps = values['max-steps'] === undefined ? undefined : intFlag(values['max-steps'], 'max-steps', 1, 1);
    const seed = intFlag(values.seed, 'seed', 0);
    const viewPort = values.view === undefined ? undefined : intFlag(values.view, 'view', 8090);
    const choice = values.url
      ? envChoice({ ...values, env: 'rosbridge' })
      : ({ env: 'sim' } as ReturnType<typeof envChoice>);
    const dir = policyFolder(values.policy);
    // The families the policy was made for (its tasks/) phrase its instructions.
    addTasksBeside(dir);
    const robot = loadRobotWithTasks(values.robot ?? DEFAULT_ROBOT);
    const task = runTask(instruction, values.task, seed, choice.env);
    const bundleDir = viewPort === undefined ? undefined : requireBundle();
    await useBackend(values.backend ?? 'auto', POLICY_KERNELS);
    const policy = await loadPolicy(dir);
    const closers: (() => Promise<void> | void)[] = [() => policy.dispose()];
    const closeAll = async () => {
      for (const close of closers.reverse()) await close();
    };
    try {
      checkPolicyFitsRobot(policy, dir, robot);
      for (const w of instructionWarnings(policy, instruction, task)) console.error(`warning: ${w}`);
      console.error(
        choice.env === 'sim'
          ? `no --url: running in the embedded simulator (robot ${robot.name}), not on a robot`
          : `robot ${robot.name} at ${choice.url} over rosbridge; every command through the safety filter`,
      );
      const env = await makeEnv(robot, { ...choice, cameras: [policyCamera(policy.config, robot.cameras[0]!.name)] });
      closers.push(() => env.close());
      const store = values.record ? await EpisodeStore.openForAppend(values.record, storeRobot(robot)) : undefined;
      if (store) closers.push(() => store.close());
      const settings = {
        command: 'run',
        policy: dir,
        instruction,
        task,
        robot: robotRef(robot),
        env: choice.env,
        url: choice.url,
        episodes,
        maxSteps: maxSteps ?? null,
        seed,
        deterministic: !values.noise,
      };
      const log = values.record ? new RunLog(join(values.record, 'runs'), `run-${runStamp()}`, settings) : undefined;
      const live = viewPort === undefined ? undefined : new LiveEpisode();
      if (live) {
        const data = new ViewerData({ dataDirs: values.record ? [values.record] : [], live, robots: [robot] });
        closers.push(() => data.close());
        const server = await ViewerServer.start({ data, bundleDir: bundleDir!, port: viewPort, pollMs: 200 });
        closers.push(() => server.close());
        console.error(`live viewer: ${server.url}`);
      }
      const controller = new PolicyController(policy, { deterministic: !values.noise, name: `vla:${dir}` });
      console.error(
        `policy ${dir} (${values.noise ? 'sampled' : 'mean'} actions), task ${task.family}: "${instruction}"`,
      );

      const stop = new AbortController();
      const onSigint = () => {
        if (stop.signal.aborted) {
          process.stderr.write('\nsecond interrupt: exiting now (what was stored so far is kept)\n');
          process.exit(130);
        }
        process.stderr.write('\ninterrupted: stopping after the current step; nothing more will be sent\n');
        stop.abort();
      };
      process.on('SIGINT', onSigint);
      closers.push(() => void process.off('SIGINT', onSigint));

      let successes = 0;
      let done = 0;
      const keep = async (e: Episode, i: number, extra: Record<string, unknown>) => {
        await store?.append(e);
        log?.log({ episode: i, seed: e.seed, success: e.success, steps: e.steps, status: e.status, ...extra });
        live?.end();
      };
      const kept = (e: Episode) =>
        store ? `; the partial episode (${e.steps} steps) is stored in ${values.record}, marked aborted` : '';
      for (let i = 0; i < episodes; i++) {
        if (stop.signal.aborted) break;
        const episodeSeed = seed + i;
        try {
          const episode = await runEpisode(env, controller, {
            task,
            seed: episodeSeed,
            initialStatus: () => env.status(),
            ...(maxSteps !== undefined ? { maxSteps } : {}),
            signal: stop.signal,
            ...(live ? { onStep: (r) => live.update(r) } : {}),
          });
          await keep(episode, i, {});
          done++;
          if (episode.success) successes++;
          const progress = episode.progress[episode.progress.length - 1] ?? 0;
          console.log(
            `episode ${i + 1}/${episodes} (seed ${episodeSeed}): ` +
              `${episode.success ? `success in ${episode.steps} steps` : `no success in ${episode.steps} steps`}` +
              ` (progress ${progress.toFixed(2)})`,
          );
        } catch (err) {
          if (err instanceof EpisodeStoppedError) {
            await keep(err.episode, i, { stopped: true });
            console.log(`episode ${i + 1}/${episodes} (seed ${episodeSeed}): ${err.message}${kept(err.episode)}`);
            break;
          }
          if (!(err instanceof EpisodeAbortedError)) throw err;
          if (err.episode) await keep(err.episode, i, { aborted: err.message, fault: err.fault });
          console.log(`episode ${i + 1}/${episodes} (seed ${episodeSeed}): ${err.message}`);
          console.error(`wmrl run: stopped after a fault (${err.fault})${err.episode ? kept(err.episode) : ''}`);
          return 1;
        }
      }
      console.log(
        `${done} episode${done === 1 ? '' : 's'} run, ${successes} success${successes === 1 ? '' : 'es'}` +
          (values.record ? `; recorded in ${values.record} (wmrl info ${values.record})` : ''),
      );
      if (stop.signal.aborted) return 130;
      if (live) {
        process.off('SIGINT', onSigint);
        console.error('episodes done; the viewer stays up until Ctrl-C');
        await untilStopped();
      }
      return 0;
    } finally {
      await closeAll();
    }
  },
};
