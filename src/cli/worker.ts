/**
 * `wmrl worker`: a robot on another machine takes anchor episodes from a Redis (BullMQ) queue,
 * runs them with the policy the request names, and returns each episode with its ledger entry.
 * An aborted attempt (the robot dropped, a service failed, …) keeps its partial episode here,
 * marked aborted; the request goes back to the queue and the robot rests before the next one.
 */
import { join } from 'node:path';
import { DEFAULT_ROBOT } from '../core/robotDescription.ts';
import { loadRobotWithTasks } from '../tasks/robotTasks.ts';
import type { Episode } from '../core/types.ts';
import { encodeEpisode } from '../data/episodeCodec.ts';
import { EpisodeStore, storeRobot } from '../data/episodeStore.ts';
import { EpisodeAbortedError, type Env } from '../envs/env.ts';
import { POLICY_KERNELS } from '../policy/policyConfig.ts';
import { loadPolicy } from '../policy/policyFiles.ts';
import type { VlaPolicy } from '../policy/vlaPolicy.ts';
import { openRobotEnv } from '../scheduler/openRobot.ts';
import { runRequestedRollout } from '../scheduler/poolAnchorRunner.ts';
import { readPoolFile } from '../scheduler/poolFile.ts';
import { RedisQueue } from '../scheduler/redisQueue.ts';
import { robotConfigSchema } from '../scheduler/robotConfig.ts';
import { RobotSlot } from '../scheduler/robotPool.ts';
import { intFlag, numberFlag, parseFlags, UsageError } from './args.ts';
import { useBackend } from './common.ts';
import { episodeRobotSeconds } from '../data/robotTime.ts';

const HELP = `usage: wmrl worker --queue redis://host:port --robot-name NAME [options]

  --queue URL         the Redis queue the trainer fills
  --name Q            queue name (default wmrl-anchors)
  --robot-name NAME   this robot's name in the pool and the ledger (its config from --pool FILE,
                      else --url / sim)
  --pool FILE         pool file holding the robot's config (windows, reset time, back-off) and the
                      fleet's robots: an episode that failed here goes to another of them first
  --url URL           a rosbridge robot (without --pool); default: the in-process simulator
  --speed X           robot speed (default 1 = real time; 'max' = unpaced sim)
  --robot R           robot description: a name under robots/, a folder holding robot.yaml, or a .yaml
                      (default ${DEFAULT_ROBOT})
  --policy DIR        policy for requests that name none
  --max-attempts N    attempts per episode across the fleet before it is failed (default 3)
  --out DIR           dataset folder where aborted attempts keep their partial episodes (never
                      trained on; default runs/worker-<robot-name>)
  --max-episodes N    stop after N episodes (default: run until stopped)
  --idle-exit S       stop after S seconds with an empty queue (default: never)
  --backend B         tfjs backend for the policy (default auto)`;

export const command = {
  summary: "run anchor episodes from a Redis queue on this machine's robot",
  async run(argv: string[]): Promise<number> {
    const { values } = parseFlags(argv, {
      queue: { type: 'string' },
      name: { type: 'string' },
      'robot-name': { type: 'string' },
      robot: { type: 'string' },
      pool: { type: 'string' },
      url: { type: 'string' },
      speed: { type: 'string' },
      // The worker's old flag for the description: refused with a pointer to --robot, never ignored.
      arm: { type: 'string' },
      policy: { type: 'string' },
      'max-attempts': { type: 'string' },
      out: { type: 'string' },
      'max-episodes': { type: 'string' },
      'idle-exit': { type: 'string' },
      backend: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    });
    if (values.help) {
      console.log(HELP);
      return 0;
    }
    if (values.arm !== undefined)
      throw new UsageError(
        `--arm is gone: give the robot description with --robot ${values.arm}, as in every other command ` +
          '(the name of this robot in the pool is --robot-name)',
      );
    const name = values['robot-name'];
    if (!values.queue || !name) {
      const robotNow =
        values.robot !== undefined
          ? `\n--robot is the robot description (as in every other command); this robot's pool name is --robot-name`
          : '';
      throw new UsageError(`--queue and --robot-name are required${robotNow}\n\n${HELP}`);
    }
    const poolFile = values.pool ? readPoolFile(values.pool) : undefined;
    const config = poolFile
      ? poolFile.robots.find((r) => r.name === name)
      : robotConfigSchema.parse({
          name,
          kind: values.url ? 'rosbridge' : 'sim',
          ...(values.url ? { url: values.url } : {}),
          speed: values.speed === 'max' ? 'max' : numberFlag(values.speed, 'speed', 1, 1e-3, 1e6),
        });
    if (!config)
      throw new UsageError(
        `no robot '${name}' in ${values.pool}; its robots: ${poolFile!.robots.map((r) => r.name).join(', ') || 'none'}`,
      );
    const maxAttempts = intFlag(values['max-attempts'], 'max-attempts', 3, 1);
    const maxEpisodes = intFlag(values['max-episodes'], 'max-episodes', Number.MAX_SAFE_INTEGER, 1);
    const idleExitMs = numberFlag(values['idle-exit'], 'idle-exit', Infinity, 0) * 1000;
    await useBackend(values.backend ?? 'auto', POLICY_KERNELS);
    const robot = loadRobotWithTasks(values.robot ?? DEFAULT_ROBOT);
    const slot = new RobotSlot({ config, open: (): Promise<Env> => openRobotEnv(config, robot) });
    const abortedDir = values.out ?? join('runs', `worker-${config.name}`);
    const keepAborted = async (episode: Episode) => {
      const store = await EpisodeStore.openForAppend(abortedDir, storeRobot(robot));
      try {
        await store.append(episode);
      } finally {
        await store.close();
      }
    };
    const queue = await RedisQueue.open({ url: values.queue, ...(values.name ? { name: values.name } : {}) });
    const policies = new Map<string, VlaPolicy>();
    let stopping = false;
    const stop = () => (stopping = true);
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    let episodes = 0;
    let idleSince = Date.now();
    try {
      while (!stopping && episodes < maxEpisodes) {
        const wait = slot.readyAt(Date.now()) - Date.now();
        if (wait > 0) {
          await new Promise((r) => setTimeout(r, Math.min(wait, 1000)));
          continue;
        }
        // A request that failed here waits for another robot of the pool file's fleet; a lone
        // worker (no --pool, or a pool of one) runs it again itself, after its back-off.
        const rec = await queue.claim(config.name, { poolSize: poolFile?.robots.length ?? 1 });
        if (!rec) {
          if (Date.now() - idleSince > idleExitMs) break;
          await new Promise((r) => setTimeout(r, 250));
          continue;
        }
        const r = rec.request;
        const started = Date.now();
        try {
          const dir = r.policy ?? values.policy;
          if (!dir) throw new Error(`request ${r.id} names no policy and the worker was started without --policy`);
          if (!policies.has(dir)) {
            // The trainer moves on step by step: keep only the newest policy in memory.
            for (const p of policies.values()) p.dispose();
            policies.clear();
            policies.set(dir, await loadPolicy(dir));
          }
          const episode = await runRequestedRollout(await slot.env(), policies.get(dir)!, r);
          if (episode.status !== 'complete') throw new Error(`episode ended '${episode.status}'`);
          episode.id = r.id;
          const finished = Date.now();
          await queue.complete(r.id, config.name, {
            episodeId: r.id,
            success: episode.success,
            robotSeconds: episodeRobotSeconds(episode),
            startedAt: started,
            finishedAt: finished,
            payload: encodeEpisode(episode),
          });
          slot.succeeded(finished);
          await queue.setRobotHealth(config.name, slot.health);
          episodes++;
          console.error(`${r.id}: ${episode.success ? 'success' : 'failure'} (${episode.steps} steps)`);
        } catch (err) {
          if (err instanceof EpisodeAbortedError && err.episode) {
            await keepAborted(err.episode);
            console.error(`${r.id}: the partial episode is kept in ${abortedDir}, marked aborted`);
          }
          await slot.failed(err, Date.now());
          await queue.setRobotHealth(config.name, slot.health);
          const state = await queue.fail(r.id, config.name, `${config.name}: ${(err as Error).message}`, maxAttempts);
          console.error(
            `${r.id}: ${(err as Error).message} ` +
              `(${state === 'failed' ? 'failed for good' : 'back to the queue'}); ` +
              `resting until ${new Date(slot.health.retryAt).toISOString()}`,
          );
        }
        idleSince = Date.now();
      }
    } finally {
      for (const p of policies.values()) p.dispose();
      await slot.close();
      await queue.close();
    }
    console.log(`worker ${config.name}: ${episodes} episodes`);
    return 0;
  },
};
