/**
 * Behaviour-cloning samples (latent, proprio, tokens, action) cut from episodes. Latents are
 * computed once with the frozen encoder; with `shiftAugment`, four 1-pixel-shifted copies of
 * every training frame are encoded too (small camera-pose changes the policy must tolerate).
 */
import type { Episode } from '../core/types.ts';
import { framesToFloat } from '../vision/frames.ts';
import type { PatchEncoder } from '../vision/patchCodec.ts';
import { encodeFrames, episodeProprio } from './policyInputs.ts';
import type { Tokenizer } from './tokenizer.ts';
import { AUX_DIM } from './vlaPolicy.ts';

export interface BcSamples {
  count: number;
  /** Encoded latents (frozen encoder), or the frames themselves (encoder trained end to end). */
  latentDim: number;
  imageSize: number;
  frames?: Float32Array;
  proprioDim: number;
  actionDim: number;
  maxTokens: number;
  latents?: Float32Array;
  proprio: Float32Array;
  tokens: Int32Array;
  actions: Float32Array;
  /** Auxiliary targets (target object xyz, goal xyz, ×10) where episodes carry privileged state. */
  aux?: Float32Array;
}

const SHIFTS: [number, number][] = [
  [1, 0],
  [-1, 0],
  [0, 1],
  [0, -1],
];

export function buildBcSamples(encoder: PatchEncoder, tokenizer: Tokenizer, episodes: Episode[], options: { camera: string; shiftAugment: boolean; keepFrames: boolean }): BcSamples {
  const S = encoder.config.imageSize;
  const frameSize = S * S * 3;
  const copies = options.shiftAugment ? 1 + SHIFTS.length : 1;
  const steps = episodes.reduce((n, e) => n + e.steps, 0);
  if (steps === 0) throw new Error('no steps to clone');
  const first = episodes[0]!;
  const P = 2 * first.qposDim;
  const A = first.actionDim;
  const L = tokenizer.maxTokens;
  const count = steps * copies;
  const frames = new Float32Array(count * frameSize);
  const proprio = new Float32Array(count * P);
  const tokens = new Int32Array(count * L);
  const actions = new Float32Array(count * A);
  const withState = episodes.every((e) => e.stateDim >= 6);
  const aux = withState ? new Float32Array(count * AUX_DIM) : undefined;
  let row = 0;
  for (const e of episodes) {
    const cam = e.cameras[options.camera];
    if (!cam) throw new Error(`episode ${e.id} has no '${options.camera}' camera`);
    const all = framesToFloat(cam.frames.subarray(0, e.steps * cam.width * cam.height * 3), cam.width, cam.height, S);
    const prop = episodeProprio(e);
    const ids = tokenizer.encode(e.task.instruction);
    for (let c = 0; c < copies; c++) {
      for (let t = 0; t < e.steps; t++, row++) {
        const frame = all.subarray(t * frameSize, (t + 1) * frameSize);
        if (c === 0) frames.set(frame, row * frameSize);
        else shiftFrame(frame, S, SHIFTS[c - 1]!, frames.subarray(row * frameSize, (row + 1) * frameSize));
        proprio.set(prop.subarray(t * P, (t + 1) * P), row * P);
        tokens.set(ids, row * L);
        actions.set(e.actions.subarray(t * A, (t + 1) * A), row * A);
        if (aux) auxTargets(e, t, aux.subarray(row * AUX_DIM, (row + 1) * AUX_DIM));
      }
    }
  }
  const pixels = options.keepFrames ? { frames } : { latents: encodeFrames(encoder, frames) };
  return { count, latentDim: encoder.outputDim, imageSize: S, ...pixels, proprioDim: P, actionDim: A, maxTokens: L, proprio, tokens, actions, ...(aux ? { aux } : {}) };
}

/** Target object position (first object of the state) and goal (last three numbers), ×10. */
function auxTargets(e: Episode, t: number, out: Float32Array): void {
  const s = e.state.subarray(t * e.stateDim, (t + 1) * e.stateDim);
  out.set([s[0]!, s[1]!, s[2]!, s[e.stateDim - 3]!, s[e.stateDim - 2]!, s[e.stateDim - 1]!].map((v) => 10 * v));
}

/** Shift an S×S×3 frame by (dx, dy) pixels, repeating the edge. */
function shiftFrame(src: Float32Array, S: number, [dx, dy]: [number, number], out: Float32Array): void {
  for (let y = 0; y < S; y++) {
    const sy = Math.min(S - 1, Math.max(0, y - dy));
    for (let x = 0; x < S; x++) {
      const sx = Math.min(S - 1, Math.max(0, x - dx));
      const o = (y * S + x) * 3;
      const i = (sy * S + sx) * 3;
      out[o] = src[i]!;
      out[o + 1] = src[i + 1]!;
      out[o + 2] = src[i + 2]!;
    }
  }
}
