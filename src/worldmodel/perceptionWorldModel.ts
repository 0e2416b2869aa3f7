/**
 * The world model WMRL imagines in: ensemble dynamics over [joint positions, joint velocities,
 * the policy's perception latent]. The perception (patch encoder + language-grounded
 * attention) is frozen after behaviour cloning, so the latent of a camera frame under an
 * instruction is fixed, the policy acts on imagined latents directly and imagination never
 * renders pixels (docs/design.md: the VLA's encoder is shared with the world model). It is the
 * `state` world-model kind trained on episodes whose state is that latent, and it records that
 * layout (with or without the end-effector position) in its checkpoint.
 */
import * as tf from '@tensorflow/tfjs';
import type { Episode } from '../core/types.ts';
import { framesToFloat } from '../vision/frames.ts';
import { policyCamera } from '../policy/policyConfig.ts';
import type { VlaPolicy } from '../policy/vlaPolicy.ts';
import { WorldModel, type PerceptionLayout, type TrainHooks } from './worldModel.ts';
import type { WorldModelConfig } from './worldModelConfig.ts';
import { statesAt } from './statesAt.ts';
import { END_EFFECTOR_DIM, type EndEffectorFeatures, type EndEffectorOptions } from './endEffectorFeatures.ts';
import { KEYFRAME_DIM, KeyframeLocaliser } from './keyframes.ts';

/** Episodes with their state replaced by the policy's perception latents ((T+1) × Z). */
export function perceptionEpisodes(policy: VlaPolicy, episodes: Episode[], chunk = 256): Episode[] {
  const camera = policyCamera(policy.config, Object.keys(episodes[0]?.cameras ?? {})[0]);
  const S = policy.config.encoder.imageSize;
  return episodes.map((e) => {
    const cam = e.cameras[camera];
    if (!cam) throw new Error(`episode ${e.id} has no '${camera}' camera, which the policy sees`);
    const frames = framesToFloat(
      cam.frames.subarray(0, (e.steps + 1) * cam.width * cam.height * 3),
      cam.width,
      cam.height,
      S,
    );
    const count = e.steps + 1;
    const Z = policy.latentDim;
    const latents = new Float32Array(count * Z);
    const ids = policy.tokenizer.encode(e.task.instruction);
    for (let i = 0; i < count; i += chunk) {
      const m = Math.min(chunk, count - i);
      const z = tf.tidy(() => {
        const tokens = tf.tensor2d(
          Int32Array.from({ length: m * ids.length }, (_, j) => ids[j % ids.length]!),
          [m, ids.length],
          'int32',
        );
        return policy
          .perceive(tf.tensor4d(frames.subarray(i * S * S * 3, (i + m) * S * S * 3), [m, S, S, 3]), tokens)
          .dataSync() as Float32Array;
      });
      latents.set(z, i * Z);
    }
    return { ...e, state: latents, stateDim: Z };
  });
}

/**
 * Train the dynamics on episodes already in the world model's layout (see worldModelEpisodes), and record that layout.
 */
export async function trainPerceptionWorldModel(
  modelEpisodes: Episode[],
  config: WorldModelConfig,
  layout: PerceptionLayout,
  hooks: TrainHooks = {},
): Promise<WorldModel> {
  if (config.kind !== 'state')
    throw new Error(
      `the perception world model uses the 'state' kind over perception latents; got kind '${config.kind}'`,
    );
  const { model } = await WorldModel.train(modelEpisodes, config, hooks, layout);
  return model;
}

/**
 * The layout of a loaded perception world model, checked against the policy's perception width.
 * Checkpoints saved before the layout was recorded are migrated by their state width: the policy's
 * [proprio, latent], or that plus the end-effector position.
 */
export function perceptionLayout(model: WorldModel, policy: VlaPolicy): PerceptionLayout {
  const base = policy.meta.proprioDim + policy.latentDim;
  const width = model.meta.dims.state;
  const recorded = model.meta.perception;
  if (recorded) {
    for (const removed of ['goal', 'object'] as const)
      if (recorded[removed] !== undefined)
        throw new Error(
          `this world model was trained with worldModel.${removed}=${recorded[removed]}, which this version no ` +
            'longer reads (the keyframes replace it): train a new world model (wmrl train --worldModel.keyframes)',
        );
    const expected = base + layoutDim(recorded);
    if (width !== expected)
      throw new Error(
        `the world model's ${width}-dim state is not this policy's perception${layoutWords(recorded)} ` +
          `(${expected}): it was trained for another policy`,
      );
    return { ...recorded };
  }
  if (width === base) return { endEffector: false };
  if (width === base + END_EFFECTOR_DIM) return { endEffector: true };
  throw new Error(
    `the world model's ${width}-dim state is neither this policy's perception (${base}) nor that ` +
      `with the end-effector position (${base + END_EFFECTOR_DIM}): it was trained for another policy`,
  );
}

/** Features a layout adds after the policy's [proprio, latent]. */
const layoutDim = (l: PerceptionLayout): number =>
  (l.endEffector ? END_EFFECTOR_DIM : 0) + (l.keyframes ? KEYFRAME_DIM : 0);
const layoutWords = (l: PerceptionLayout): string =>
  !l.endEffector ? '' : ` with the end-effector position${l.keyframes ? ' and the keyframes' : ''}`;

/** The keyframe localiser a recorded layout holds (none: an empty object). */
export function featureSources(layout: PerceptionLayout): EndEffectorOptions {
  return layout.keyframes ? { keyframes: KeyframeLocaliser.fromJSON(layout.keyframes) } : {};
}

/** The layout a world model trained on episodes of these features records. */
export function layoutOf(endEffector: EndEffectorFeatures | undefined): PerceptionLayout {
  const keyframes = endEffector?.keyframes;
  return { endEffector: endEffector !== undefined, ...(keyframes ? { keyframes: keyframes.toJSON() } : {}) };
}

/**
 * Episodes in the world model's layout: the policy's perception latents as `state`, and with
 * `endEffector` the end-effector position after them (src/worldmodel/endEffectorFeatures.ts). The policy
 * reads only [proprio, latent], the leading part, so it acts on imagined states of either layout alike.
 */
export function worldModelEpisodes(
  policy: VlaPolicy,
  episodes: Episode[],
  endEffector?: EndEffectorFeatures,
): Episode[] {
  const perceived = perceptionEpisodes(policy, episodes);
  return endEffector ? endEffector.append(perceived) : perceived;
}

/** The world-model state of each episode's first observation (see worldModelEpisodes), B × D. */
export function startStates(
  policy: VlaPolicy,
  episodes: Episode[],
  endEffector?: EndEffectorFeatures,
): { states: Float32Array; stateDim: number } {
  const first = worldModelEpisodes(
    policy,
    episodes.map((e) => ({ ...e, steps: 0 })),
    endEffector,
  );
  const { states, stateDim } = statesAt(
    first,
    first.map(() => 0),
  );
  return { states, stateDim };
}
