/**
 * Imagined rollouts for the viewer: the world model replays a real episode's recorded actions
 * open loop from that episode's first state, with every ensemble member. Replay (rather than
 * imagining with the policy) puts imagination and reality side by side under the same actions,
 * so where they part is the model's error, not the policy's sampling. Two sources:
 *  - a training run's perception world model (checkpoint/worldmodel over checkpoint/policy's
 *    perception latents): members predict joints and a latent, so ghosts show the arm only;
 *  - a standalone `wmrl wm train` model: the `state` kind also predicts object poses (ghost
 *    objects), the `video` kind decodes frames.
 */
import type { Episode, Observation } from '../core/types.ts';
import type { VlaPolicy } from '../policy/vlaPolicy.ts';
import type { EndEffectorFeatures } from '../worldmodel/endEffectorFeatures.ts';
import { startStates } from '../worldmodel/perceptionWorldModel.ts';
import type { ImaginationStarts, ImaginedRollouts } from '../worldmodel/imagine.ts';
import { replayPolicy } from '../worldmodel/replayPolicy.ts';
import { CONTEXT_DIM, familyOneHot } from '../tasks/familyContext.ts';
import type { WorldModel } from '../worldmodel/worldModel.ts';

/** Per member and step, what the model imagined, in the episode's own units. */
export interface ImaginedEpisode {
  kind: 'state' | 'video';
  members: number;
  horizon: number;
  qposDim: number;
  /** (H+1) × K × qposDim: joints, then gripper opening. */
  qpos: Float32Array;
  /** (H+1) × K × 7·objects: object poses (state kind standalone models only). */
  objects: Float32Array | null;
  objectCount: number;
  /** H × K */
  successProb: Float32Array;
  progress: Float32Array;
  /** (H+1) × K frames of size² × 3 bytes (video kind). */
  frames: { size: number; data: Uint8Array } | null;
}

export interface Imagination {
  /** In words, for the page: which model, which kind. */
  readonly description: string;
  imagine(episode: Episode): ImaginedEpisode;
  dispose(): void;
}

/** A training run's perception world model, started from the policy's perception of frame 0. */
export class RunImagination implements Imagination {
  readonly description: string;
  constructor(
    readonly policy: VlaPolicy,
    readonly model: WorldModel,
    step: number | null,
    /** The world model's end-effector features, when its state has them (src/worldmodel/endEffectorFeatures.ts). */
    readonly endEffector?: EndEffectorFeatures,
  ) {
    this.description =
      `the run's perception world model (${model.members} members` +
      `${step === null ? '' : `, checkpoint at step ${step}`}), replaying each episode's actions`;
  }

  imagine(episode: Episode): ImaginedEpisode {
    const { states, stateDim } = startStates(this.policy, [episode], this.endEffector);
    if (stateDim !== this.model.meta.dims.state)
      throw new Error(
        `the policy's perception gives ${stateDim}-dim states; the world model expects ${this.model.meta.dims.state}`,
      );
    const starts: ImaginationStarts = {
      states,
      stateDim,
      context: familyOneHot(episode.task.family),
      instructions: [episode.task.instruction],
    };
    return fromRollouts(replay(this.model, starts, episode), episode, 0, null);
  }

  dispose(): void {
    this.policy.dispose();
    this.model.dispose();
    this.endEffector?.close();
  }
}

/** A standalone world model (`wmrl wm train`), started from the episode's first observation. */
export class ModelImagination implements Imagination {
  readonly description: string;
  constructor(
    readonly model: WorldModel,
    dir: string,
  ) {
    this.description =
      `the ${model.kind} world model ${dir} (${model.members} members), ` + `replaying each episode's actions`;
  }

  imagine(episode: Episode): ImaginedEpisode {
    const starts = this.model.startsFrom([firstObservation(episode)], [episode.task.family]);
    const rollouts = replay(this.model, starts, episode);
    // State kind: [qpos, qvel, object poses…, goal]; the object poses are the simulator's privileged state.
    const objectCount = this.model.kind === 'state' ? Math.floor((rollouts.stateDim - 2 * episode.qposDim - 3) / 7) : 0;
    const frames = this.model.kind === 'video' ? this.model.decodeRollout(rollouts, 0) : null;
    return fromRollouts(rollouts, episode, objectCount, frames ? { size: frames.size, data: frames.frames } : null);
  }

  dispose(): void {
    this.model.dispose();
  }
}

/** The episode's recorded actions through every member, from `starts` (one rollout). */
function replay(model: WorldModel, starts: ImaginationStarts, episode: Episode): ImaginedRollouts {
  if (episode.actionDim !== model.meta.dims.action)
    throw new Error(
      `episode ${episode.id} has ${episode.actionDim}-dim actions; the world model takes ${model.meta.dims.action}`,
    );
  if (starts.context.length !== CONTEXT_DIM) throw new Error(`expected one start with a ${CONTEXT_DIM}-value context`);
  return model.imagine(replayPolicy([episode]), starts, episode.steps);
}

function fromRollouts(
  r: ImaginedRollouts,
  episode: Episode,
  objectCount: number,
  frames: ImaginedEpisode['frames'],
): ImaginedEpisode {
  const { horizon: H, members: K, stateDim: D } = r;
  const Q = episode.qposDim;
  const qpos = new Float32Array((H + 1) * K * Q);
  const objects = objectCount > 0 ? new Float32Array((H + 1) * K * 7 * objectCount) : null;
  // r.states is (H+1) × K × B × D with B = 1.
  for (let i = 0; i < (H + 1) * K; i++) {
    qpos.set(r.states.subarray(i * D, i * D + Q), i * Q);
    objects?.set(r.states.subarray(i * D + 2 * Q, i * D + 2 * Q + 7 * objectCount), i * 7 * objectCount);
  }
  return {
    kind: frames ? 'video' : 'state',
    members: K,
    horizon: H,
    qposDim: Q,
    qpos,
    objects,
    objectCount,
    successProb: r.successProb,
    progress: r.progress,
    frames,
  };
}

function firstObservation(episode: Episode): Observation {
  const Q = episode.qposDim;
  const images: Observation['images'] = {};
  for (const [name, cam] of Object.entries(episode.cameras))
    images[name] = { width: cam.width, height: cam.height, data: cam.frames.subarray(0, cam.width * cam.height * 3) };
  return {
    images,
    qpos: episode.qpos.subarray(0, Q),
    qvel: episode.qvel.subarray(0, Q),
    ...(episode.stateDim > 0 ? { state: episode.state.subarray(0, episode.stateDim) } : {}),
    instruction: episode.task.instruction,
  };
}
