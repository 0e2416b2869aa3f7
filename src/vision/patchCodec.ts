/**
 * A small patch-based image encoder and decoder that train on the pure-JS tfjs backends (no
 * convolution gradients): the image is cut into p×p patches, each patch is embedded by one
 * shared linear map, and a dense layer mixes all patches into a compact latent. The decoder
 * mirrors it. The encoder is shared by the video world model and the policy, so imagination
 * hands policies latents and never renders pixels.
 */
import * as tf from '@tensorflow/tfjs';
import { newVariable } from '../core/variables.ts';

export interface PatchCodecConfig {
  /** Input image side (square), e.g. 32. */
  imageSize: number;
  /** Patch side, dividing imageSize. */
  patch: number;
  /** Per-patch embedding width. */
  patchDim: number;
  /** Latent size. */
  latent: number;
  seed: number;
}

function glorot(shape: [number, number], seed: number, name: string): tf.Variable {
  const limit = Math.sqrt(6 / (shape[0] + shape[1]));
  return newVariable(tf.randomUniform(shape, -limit, limit, 'float32', seed), name);
}

function swish(x: tf.Tensor): tf.Tensor {
  return tf.mul(x, tf.sigmoid(x));
}

/** [N, S, S, 3] → [N·P, p·p·3] patches, P = (S/p)², row-major over the patch grid. */
export function toPatches(images: tf.Tensor4D, patch: number): tf.Tensor2D {
  return tf.tidy(() => {
    const [n, s] = images.shape;
    const g = s / patch;
    return images.reshape([n, g, patch, g, patch, 3]).transpose([0, 1, 3, 2, 4, 5]).reshape([n * g * g, patch * patch * 3]) as tf.Tensor2D;
  });
}

/** Inverse of toPatches. */
export function fromPatches(patches: tf.Tensor2D, n: number, size: number, patch: number): tf.Tensor4D {
  return tf.tidy(() => {
    const g = size / patch;
    return patches.reshape([n, g, g, patch, patch, 3]).transpose([0, 1, 3, 2, 4, 5]).reshape([n, size, size, 3]) as tf.Tensor4D;
  });
}

export class PatchEncoder {
  readonly config: PatchCodecConfig;
  readonly patchW: tf.Variable;
  readonly patchB: tf.Variable;
  readonly mixW: tf.Variable;
  readonly mixB: tf.Variable;

  constructor(config: PatchCodecConfig, prefix = 'encoder') {
    if (config.imageSize % config.patch !== 0) throw new Error(`patch ${config.patch} does not divide image size ${config.imageSize}`);
    this.config = config;
    const patches = (config.imageSize / config.patch) ** 2;
    this.patchW = glorot([config.patch * config.patch * 3, config.patchDim], config.seed * 31 + 1, `${prefix}/patch_w`);
    this.patchB = newVariable(tf.zeros([config.patchDim]), `${prefix}/patch_b`);
    this.mixW = glorot([patches * config.patchDim, config.latent], config.seed * 31 + 2, `${prefix}/mix_w`);
    this.mixB = newVariable(tf.zeros([config.latent]), `${prefix}/mix_b`);
  }

  /** images [N, S, S, 3] in [0,1] → latents [N, latent] in (-1, 1). */
  encode(images: tf.Tensor4D): tf.Tensor2D {
    return tf.tidy(() => {
      const n = images.shape[0];
      const h = swish(tf.add(tf.matMul(toPatches(tf.sub(images, 0.5) as tf.Tensor4D, this.config.patch), this.patchW), this.patchB));
      return tf.tanh(tf.add(tf.matMul(h.reshape([n, -1]), this.mixW), this.mixB)) as tf.Tensor2D;
    });
  }

  variables(): tf.Variable[] {
    return [this.patchW, this.patchB, this.mixW, this.mixB];
  }

  dispose(): void {
    tf.dispose(this.variables());
  }
}

export class PatchDecoder {
  readonly config: PatchCodecConfig;
  readonly expandW: tf.Variable;
  readonly expandB: tf.Variable;
  readonly pixelW: tf.Variable;
  readonly pixelB: tf.Variable;

  constructor(config: PatchCodecConfig, prefix = 'decoder') {
    this.config = config;
    const patches = (config.imageSize / config.patch) ** 2;
    this.expandW = glorot([config.latent, patches * config.patchDim], config.seed * 31 + 3, `${prefix}/expand_w`);
    this.expandB = newVariable(tf.zeros([patches * config.patchDim]), `${prefix}/expand_b`);
    this.pixelW = glorot([config.patchDim, config.patch * config.patch * 3], config.seed * 31 + 4, `${prefix}/pixel_w`);
    this.pixelB = newVariable(tf.zeros([config.patch * config.patch * 3]), `${prefix}/pixel_b`);
  }

  /** latents [N, latent] → images [N, S, S, 3] in [0,1]. */
  decode(latents: tf.Tensor2D): tf.Tensor4D {
    return tf.tidy(() => {
      const n = latents.shape[0];
      const h = swish(tf.add(tf.matMul(latents, this.expandW), this.expandB)).reshape([-1, this.config.patchDim]) as tf.Tensor2D;
      const pixels = tf.sigmoid(tf.add(tf.matMul(h, this.pixelW), this.pixelB)) as tf.Tensor2D;
      return fromPatches(pixels, n, this.config.imageSize, this.config.patch);
    });
  }

  variables(): tf.Variable[] {
    return [this.expandW, this.expandB, this.pixelW, this.pixelB];
  }

  dispose(): void {
    tf.dispose(this.variables());
  }
}
