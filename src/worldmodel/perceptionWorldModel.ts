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
import { WorldModel, type TrainHooks } from './worldModel.ts';
import type { WorldModelConfig } from './worldModelConfig.ts';
import { statesAt } from './statesAt.ts';
import type { EndEffectorFeatures } from './endEffectorFeatures.ts';

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
 * Episodes in the world model's layout: the policy's perception latents as `state`, and with
 * `endEffector` the end-effector position after them (src/rl/endEffectorFeatures.ts). The policy
 * reads only [proprio, latent], the leading part, so it acts on imagined states of either layout alike.
 */
export function worldModelEpisodes(policy: VlaPolicy, episodes: Episode[], endEffector?: EndEffectorFeatures): Episode[] {
  const perceived = perceptionEpisodes(policy, episodes);
  return endEffector ? endEffector.append(perceived) : perceived;
}

/** The world-model state of each episode's first observation (see worldModelEpisodes), B × D. */
export function startStates(policy: VlaPolicy, episodes: Episode[], endEffector?: EndEffectorFeatures): { states: Float32Array; stateDim: number } {
  const first = worldModelEpisodes(policy, episodes.map((e) => ({ ...e, steps: 0 })), endEffector);
  const { states, stateDim } = statesAt(first, first.map(() => 0));
  return { states, stateDim };
}
