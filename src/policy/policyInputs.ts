/** Building batched policy inputs from live observations and from stored episodes. */
import * as tf from '@tensorflow/tfjs';
import type { Episode, Observation } from '../core/types.ts';
import { observationFrames } from '../vision/frames.ts';
import type { PatchEncoder } from '../vision/patchCodec.ts';
import type { PolicyInput } from './vlaPolicy.ts';
import type { Tokenizer } from './tokenizer.ts';

/** Encode [N, S, S, 3] float frames in chunks (bounded memory). */
export function encodeFrames(encoder: PatchEncoder, frames: Float32Array, chunk = 512): Float32Array {
  const S = encoder.config.imageSize;
  const frameSize = S * S * 3;
  const n = frames.length / frameSize;
  const Z = encoder.outputDim;
  const out = new Float32Array(n * Z);
  for (let i = 0; i < n; i += chunk) {
    const m = Math.min(chunk, n - i);
    const z = tf.tidy(() => encoder.encode(tf.tensor4d(frames.subarray(i * frameSize, (i + m) * frameSize), [m, S, S, 3])).dataSync());
    out.set(z, i * Z);
  }
  return out;
}

/** Policy input for a batch of live observations (one encoder pass). */
export function observationInput(encoder: PatchEncoder, tokenizer: Tokenizer, camera: string, observations: Observation[]): PolicyInput {
  const S = encoder.config.imageSize;
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
    latent: tf.tidy(() => encoder.encode(tf.tensor4d(pixels, [observations.length, S, S, 3]))),
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
