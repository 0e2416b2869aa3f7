/**
 * The trainer's anchor groups on a robot pool (or remote workers): each rollout becomes a request
 * with a stable id (run, step, group slot, rollout) and the same action-noise seed it would get on
 * a single env, the calibration scheduler runs them in parallel across the robots and stores them
 * exactly once, and the episodes come back group-major. It has the shape of the trainer's
 * AnchorRunner (src/rl/run/anchorRunner.ts) without depending on the trainer: `wmrl train` builds it.
 */
import { resolve } from 'node:path';
import type { RobotDescription } from '../core/robotDescription.ts';
import type { Episode, TaskSpec } from '../core/types.ts';
import type { Env } from '../envs/env.ts';
import { storeRobot } from '../data/episodeStore.ts';
import { savePolicy } from '../policy/policyFiles.ts';
import { runPolicyRollout } from '../policy/policyRollout.ts';
import { rolloutNoiseSeed, type NoiseSpec } from '../policy/rolloutNoise.ts';
import type { VlaPolicy } from '../policy/vlaPolicy.ts';
import { familyDef } from '../tasks/families.ts';
import type { AnchorQueue } from './anchorQueue.ts';
import type { Budget } from './budget.ts';
import { CalibrationScheduler, type SchedulerEvent } from './calibrationScheduler.ts';
import { requestId, type EpisodeRequest } from './episodeRequest.ts';
import type { RobotPool } from './robotPool.ts';

export interface PoolAnchorOptions {
  /** Stable id of the training run (part of every request id). */
  runId: string;
  queue: AnchorQueue;
  /** Robots driven from this process; absent: remote `wmrl worker`s run the episodes. */
  pool?: RobotPool;
  /**
   * Remote workers: each step's policy is saved under this folder, which they must be able to read (shared storage).
   */
  policySnapshots?: string;
  /** The run's anchors/ episode store. */
  storeDir: string;
  robot: RobotDescription;
  budget?: Budget;
  maxAttempts?: number;
  onEvent?: (event: SchedulerEvent) => void;
}

/** What one call asks for: M rollouts of each group with `policy` (see src/rl/run/anchorRunner.ts). */
export interface PoolAnchorRequest {
  step: number;
  groups: { slot: number; spec: { task: TaskSpec; seed: number } }[];
  rollouts: number;
  noise: NoiseSpec;
  policy: VlaPolicy;
  maxSteps?: number;
  onEpisode?: (done: number, total: number) => void;
}

/** The rollout a request asks for, with `policy`: the same on an in-process pool robot and a remote worker. */
export function runRequestedRollout(env: Env, policy: VlaPolicy, r: EpisodeRequest): Promise<Episode> {
  return runPolicyRollout(
    env,
    policy,
    { task: r.task, seed: r.seed },
    r.noiseSeed,
    r.noiseCorrelation ?? 0,
    r.maxSteps,
  );
}

export function poolAnchorRunner(o: PoolAnchorOptions): { run(request: PoolAnchorRequest): Promise<Episode[]> } {
  if (!o.pool && !o.policySnapshots)
    throw new Error('anchors on remote workers need a folder for the policy snapshots they run');
  // The request in flight: in-process robots run its policy and report its progress.
  let current: PoolAnchorRequest | undefined;
  const scheduler = new CalibrationScheduler({
    queue: o.queue,
    ...(o.pool ? { pool: o.pool } : {}),
    storeDir: o.storeDir,
    ...storeRobot(o.robot),
    runEpisode: (env, r) => runRequestedRollout(env, current!.policy, r),
    ...(o.budget ? { budget: o.budget } : {}),
    ...(o.maxAttempts ? { maxAttempts: o.maxAttempts } : {}),
    ...(o.onEvent ? { onEvent: o.onEvent } : {}),
    onEpisode: (done, total) => current?.onEpisode?.(done, total),
  });
  return {
    async run(request) {
      const { step, groups, rollouts, noise, maxSteps } = request;
      current = request;
      let policyDir: string | undefined;
      if (!o.pool) {
        policyDir = resolve(o.policySnapshots!, `step-${step}`);
        await savePolicy(request.policy, policyDir);
      }
      const requests: EpisodeRequest[] = [];
      groups.forEach(({ slot, spec }, k) => {
        for (let m = 0; m < rollouts; m++) {
          requests.push({
            id: requestId(o.runId, step, slot, m),
            run: o.runId,
            step,
            group: slot,
            rollout: m,
            task: spec.task,
            seed: spec.seed,
            noiseSeed: rolloutNoiseSeed(noise.seed, k * rollouts + m),
            noiseCorrelation: noise.correlation,
            ...(maxSteps !== undefined ? { maxSteps } : {}),
            maxRobotSeconds: Math.min(familyDef(spec.task.family).seconds, (maxSteps ?? Infinity) / o.robot.controlHz),
            ...(policyDir ? { policy: policyDir } : {}),
          });
        }
      });
      const result = await scheduler.request(requests);
      if (result.failed.length > 0) {
        const f = result.failed[0]!;
        throw new Error(
          `${result.failed.length} anchor episode(s) failed on every attempt ` +
            `(e.g. ${f.request.id} after ${f.attempts} attempts: ${f.error}); ` +
            `nothing of step ${step} was used. Fix the robots and continue with --resume`,
        );
      }
      if (result.refused.length > 0)
        throw new Error(
          `the real-robot budget does not allow step ${step}'s ${requests.length} anchor ` +
            `episodes (${result.refused.length} refused); raise the ` +
            `budget in the pool file or continue tomorrow with --resume`,
        );
      return requests.map((r) => result.episodes.get(r.id)!);
    },
  };
}
