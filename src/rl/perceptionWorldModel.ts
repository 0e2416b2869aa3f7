/**
 * The world model WMRL imagines in: ensemble dynamics over [joint positions, joint velocities,
 * the policy's perception latent]. The perception (patch encoder + language-grounded
 * attention) is frozen after behaviour cloning, so the latent of a camera frame under an
 * instruction is fixed, the policy acts on imagined latents directly and imagination never
 * renders pixels (DESIGN.md §2: the VLA's encoder is shared with the world model). It is the
 * `state` world-model kind trained on episodes whose state is that latent.
 */
import * as tf from '@tensorflow/tfjs';
import type { Episode } from '../core/types.ts';
import { framesToFloat } from '../vision/frames.ts';
import type { VlaPolicy } from '../policy/vlaPolicy.ts';
import { WorldModel, type TrainHooks } from '../worldmodel/worldModel.ts';
import type { WorldModelConfig } from '../worldmodel/worldModelConfig.ts';
import { stateVector } from '../worldmodel/transitionData.ts';

/** Episodes with their state replaced by the policy's perception latents ((T+1) × Z). */
export function perceptionEpisodes(policy: VlaPolicy, episodes: Episode[], chunk = 256): Episode[] {
  const camera = policy.config.encoder.camera;
  const S = policy.config.encoder.imageSize;
  return episodes.map((e) => {
    const cam = e.cameras[camera];
    if (!cam) throw new Error(`episode ${e.id} has no '${camera}' camera, which the policy sees`);
    const frames = framesToFloat(cam.frames.subarray(0, (e.steps + 1) * cam.width * cam.height * 3), cam.width, cam.height, S);
    const count = e.steps + 1;
    const Z = policy.latentDim;
    const latents = new Float32Array(count * Z);
    const ids = policy.tokenizer.encode(e.task.instruction);
    for (let i = 0; i < count; i += chunk) {
      const m = Math.min(chunk, count - i);
      const z = tf.tidy(() => {
        const tokens = tf.tensor2d(Int32Array.from({ length: m * ids.length }, (_, j) => ids[j % ids.length]!), [m, ids.length], 'int32');
        return policy.perceive(tf.tensor4d(frames.subarray(i * S * S * 3, (i + m) * S * S * 3), [m, S, S, 3]), tokens).dataSync() as Float32Array;
      });
      latents.set(z, i * Z);
    }
    return { ...e, state: latents, stateDim: Z };
  });
}

/** Train the dynamics on episodes already in the perception layout (see perceptionEpisodes). */
export async function trainPerceptionWorldModel(modelEpisodes: Episode[], config: WorldModelConfig, hooks: TrainHooks = {}): Promise<WorldModel> {
  if (config.kind !== 'state') throw new Error(`the perception world model uses the 'state' kind over perception latents; got kind '${config.kind}'`);
  const { model } = await WorldModel.train(modelEpisodes, config, hooks);
  return model;
}

/**
 * The world-model state [qpos, qvel, latent] of each episode's first observation, B × D; with
 * `appendFeatures` (the end-effector position, src/rl/endEffectorFeatures.ts) those follow.
 */
export function startStates(policy: VlaPolicy, episodes: Episode[], appendFeatures?: (episodes: Episode[]) => Episode[]): { states: Float32Array; stateDim: number } {
  const perceived = perceptionEpisodes(policy, episodes.map((e) => ({ ...e, steps: 0 })));
  const first = appendFeatures ? appendFeatures(perceived) : perceived;
  const D = 2 * first[0]!.qposDim + first[0]!.stateDim;
  const states = new Float32Array(first.length * D);
  first.forEach((e, i) => states.set(stateVector(e.qpos.subarray(0, e.qposDim), e.qvel.subarray(0, e.qposDim), e.state.subarray(0, e.stateDim)), i * D));
  return { states, stateDim: D };
}
