/**
 * Where a training run's real episodes come from. The trainer knows anchor execution only through
 * this interface; the caller builds the runner: in-process on an env (`envAnchorRunner`, below),
 * or on a robot pool or remote workers through the calibration scheduler
 * (src/scheduler/poolAnchorRunner.ts, built by `wmrl train`).
 */
import type { Episode, TaskSpec } from '../../core/types.ts';
import type { EpisodeAbortedError, Env } from '../../envs/env.ts';
import { runWithReruns } from '../../envs/rerunAborted.ts';
import { EpisodeStore, storeRobot } from '../../data/episodeStore.ts';
import { runPolicyRollout } from '../../policy/policyRollout.ts';
import { rolloutNoiseSeed, type NoiseSpec } from '../../policy/rolloutNoise.ts';
import type { VlaPolicy } from '../../policy/vlaPolicy.ts';

/** A group's start: a task and scene seed (a recorded episode's first observation reproduces it). */
export interface GroupSpec {
  task: TaskSpec;
  seed: number;
}

export interface AnchorRequest {
  /** The training step (0: the warm-up before step 1). */
  step: number;
  /** The groups, each with its slot among the step's G groups (part of a stable request id). */
  groups: { slot: number; spec: GroupSpec }[];
  /** M: rollouts per group. */
  rollouts: number;
  /** Rollout k·M + m of the request explores with rolloutNoiseSeed(noise.seed, k·M + m). */
  noise: NoiseSpec;
  /** The policy to run (the one being trained). */
  policy: VlaPolicy;
  /** Each rollout ends after this many control steps unless the task ended it sooner (absent: at its horizon). */
  maxSteps?: number;
  onEpisode?: (done: number, total: number) => void;
}

export interface AnchorRunner {
  /**
   * Runs every rollout of the request and stores each episode exactly once in the run's anchor
   * store; returns them group-major. Only complete episodes come back: an abort throws, and
   * nothing of the request is used.
   */
  run(request: AnchorRequest): Promise<Episode[]>;
}

/**
 * Anchors run one after another on `env`, appended to the store in `storeDir` as one closed chunk
 * per request. An aborted rollout's partial episode is stored at once, marked aborted (never
 * served), and the rollout runs again with the same noise once the robot answers.
 */
export function envAnchorRunner(env: Env, storeDir: string): AnchorRunner {
  const append = async (episodes: Episode[]) => {
    const store = await EpisodeStore.openForAppend(storeDir, storeRobot(env.robot));
    try {
      for (const e of episodes) await store.append(e);
    } finally {
      await store.close();
    }
  };
  return {
    async run({ groups, rollouts, noise, policy, maxSteps, onEpisode }) {
      const episodes = await runGroupRollouts(
        env,
        policy,
        groups.map((g) => g.spec),
        rollouts,
        noise,
        {
          ...(onEpisode ? { onEpisode } : {}),
          onAbort: async (err) => {
            if (err.episode) await append([err.episode]);
          },
          ...(maxSteps !== undefined ? { maxSteps } : {}),
        },
      );
      await append(episodes);
      return episodes;
    },
  };
}

/**
 * M rollouts of each group on `env`, one after another, group-major. An aborted rollout goes to
 * `onAbort` and runs again (same noise) once the robot answers, up to 3 attempts in a row.
 */
export async function runGroupRollouts(
  env: Env,
  policy: VlaPolicy,
  groups: GroupSpec[],
  rollouts: number,
  noise: NoiseSpec,
  options: {
    onEpisode?: (done: number, total: number) => void;
    onAbort?: (error: EpisodeAbortedError) => Promise<void> | void;
    /** As AnchorRequest's. */
    maxSteps?: number;
  } = {},
): Promise<Episode[]> {
  const { onEpisode, onAbort, maxSteps } = options;
  const episodes: Episode[] = [];
  for (const [g, group] of groups.entries()) {
    for (let m = 0; m < rollouts; m++) {
      const seed = rolloutNoiseSeed(noise.seed, g * rollouts + m);
      const episode = await runWithReruns(
        env,
        () => runPolicyRollout(env, policy, group, seed, noise.correlation, maxSteps),
        {
          what: `rollout ${m} of group ${g} (seed ${group.seed})`,
          ...(onAbort ? { onAbort } : {}),
        },
      );
      if (episode.status !== 'complete')
        throw new Error(`episode ${episode.id} ended '${episode.status}'; aborted episodes never enter training`);
      episodes.push(episode);
      onEpisode?.(episodes.length, groups.length * rollouts);
    }
  }
  return episodes;
}
