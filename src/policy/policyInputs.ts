/** Building batched policy inputs from live observations and from stored episodes. */
import * as tf from '@tensorflow/tfjs';
import type { Episode, Observation } from '../core/types.ts';
import { observationFrames } from '../vision/frames.ts';
import type { PolicyInput } from './vlaPolicy.ts';
import type { Tokenizer } from './tokenizer.ts';

/** Policy input (camera frames, proprio, tokens) for a batch of live observations. */
export function observationInput(
  tokenizer: Tokenizer,
  camera: string,
  imageSize: number,
  observations: Observation[],
): PolicyInput {
  const S = imageSize;
  const pixels = observationFrames(observations, camera, S, 'this policy');
  const P = observations[0]!.qpos.length * 2;
  const proprio = new Float32Array(observations.length * P);
  const tokens = new Int32Array(observations.length * tokenizer.maxTokens);
  observations.forEach((o, i) => {
    proprio.set(o.qpos, i * P);
    proprio.set(o.qvel, i * P + o.qpos.length);
    tokens.set(tokenizer.encode(o.instruction), i * tokenizer.maxTokens);
  });
  return {
    images: tf.tensor4d(pixels, [observations.length, S, S, 3]),
    proprio: tf.tensor2d(proprio, [observations.length, P]),
    tokens: tf.tensor2d(tokens, [observations.length, tokenizer.maxTokens], 'int32'),
  };
}

export function disposeInput(input: PolicyInput): void {
  tf.dispose([input.latent, input.images, input.proprio, input.tokens].filter((t) => t !== undefined));
}

/** Per-step proprio (qpos then qvel) of an episode's first `steps` observations. */
export function episodeProprio(e: Episode, steps = e.steps): Float32Array {
  const P = 2 * e.qposDim;
  const out = new Float32Array(steps * P);
  for (let t = 0; t < steps; t++) {
    out.set(e.qpos.subarray(t * e.qposDim, (t + 1) * e.qposDim), t * P);
    out.set(e.qvel.subarray(t * e.qposDim, (t + 1) * e.qposDim), t * P + e.qposDim);
  }
  return out;
}

/** Action-noise level recorded in a controller name such as `expert:noise=0.5` (0 when none). */
export function recordedNoise(policy: string): number {
  const m = /noise=([0-9.]+)/.exec(policy);
  return m ? Number(m[1]) : 0;
}

/** Share of deliberately missed grasps recorded in a controller name such as `expert:noise=0.6,miss=1` (0: none). */
export function recordedMiss(policy: string): number {
  const m = /miss=([0-9.]+)/.exec(policy);
  return m ? Number(m[1]) : 0;
}
