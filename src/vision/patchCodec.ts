/**
 * A small patch-based image encoder and decoder that train on the pure-JS tfjs backends (no
 * convolution gradients): the image is cut into p×p patches, each patch is embedded by one
 * shared linear map, and a dense layer mixes all patches into a compact latent. The decoder
 * mirrors it. The encoder is shared by the video world model and the policy, so imagination
 * hands policies latents and never renders pixels. A keypoint branch (per-pixel features,
 * spatial softmax, expected x/y; Finn et al. 2016, deep spatial autoencoders) adds precise
 * positions of what the features respond to (e.g. a colour).
 */
import * as tf from '@tensorflow/tfjs';
import { newVariable } from '../core/variables.ts';
import { swish } from '../nn/dense.ts';

export interface PatchCodecConfig {
  /** Input image side (square), e.g. 32. */
  imageSize: number;
  /** Patch side, dividing imageSize. */
  patch: number;
  /** Per-patch embedding width. */
  patchDim: number;
  /** Size of the dense (appearance) part of the latent. */
  latent: number;
  /** Spatial-softmax keypoints (x, y each) appended to the latent: per-pixel features whose
   * expected image position the network reports — precise object positions from pixels. */
  keypoints: number;
  seed: number;
}

function glorot(shape: [number, number], seed: number, name: string): tf.Variable {
  const limit = Math.sqrt(6 / (shape[0] + shape[1]));
  return newVariable(tf.randomUniform(shape, -limit, limit, 'float32', seed), name);
}

/** [N, S, S, 3] → [N·P, p·p·3] patches, P = (S/p)², row-major over the patch grid. */
export function toPatches(images: tf.Tensor4D, patch: number): tf.Tensor2D {
  return tf.tidy(() => {
    const [n, s] = images.shape;
    const g = s / patch;
    return images
      .reshape([n, g, patch, g, patch, 3])
      .transpose([0, 1, 3, 2, 4, 5])
      .reshape([n * g * g, patch * patch * 3]) as tf.Tensor2D;
  });
}

/** Inverse of toPatches. */
export function fromPatches(patches: tf.Tensor2D, n: number, size: number, patch: number): tf.Tensor4D {
  return tf.tidy(() => {
    const g = size / patch;
    return patches
      .reshape([n, g, g, patch, patch, 3])
      .transpose([0, 1, 3, 2, 4, 5])
      .reshape([n, size, size, 3]) as tf.Tensor4D;
  });
}

/** Output size of the codec's latent: dense part + 2 per keypoint. */
export function codecOutputDim(config: PatchCodecConfig): number {
  return config.latent + 2 * config.keypoints;
}

const KEYPOINT_HIDDEN = 16;

export class PatchEncoder {
  readonly config: PatchCodecConfig;
  readonly patchW: tf.Variable;
  readonly patchB: tf.Variable;
  readonly mixW: tf.Variable;
  readonly mixB: tf.Variable;
  readonly pixelW: tf.Variable[] = [];
  readonly pixelB: tf.Variable[] = [];
  /** Log of the spatial-softmax gain: objects are a few pixels of ~1000, so the softmax must
   * start sharp (gain 10) to place mass on them at all. */
  readonly keypointLogGain: tf.Variable | undefined;
  #coords: tf.Tensor2D | undefined;

  constructor(config: PatchCodecConfig, prefix = 'encoder') {
    if (config.imageSize % config.patch !== 0)
      throw new Error(`patch ${config.patch} does not divide image size ${config.imageSize}`);
    this.config = config;
    const patches = (config.imageSize / config.patch) ** 2;
    this.patchW = glorot([config.patch * config.patch * 3, config.patchDim], config.seed * 31 + 1, `${prefix}/patch_w`);
    this.patchB = newVariable(tf.zeros([config.patchDim]), `${prefix}/patch_b`);
    this.mixW = glorot([patches * config.patchDim, config.latent], config.seed * 31 + 2, `${prefix}/mix_w`);
    this.mixB = newVariable(tf.zeros([config.latent]), `${prefix}/mix_b`);
    if (config.keypoints > 0) {
      const sizes = [3, KEYPOINT_HIDDEN, config.keypoints];
      for (let l = 0; l < 2; l++) {
        this.pixelW.push(glorot([sizes[l]!, sizes[l + 1]!], config.seed * 31 + 10 + l, `${prefix}/pixel_w${l}`));
        this.pixelB.push(newVariable(tf.zeros([sizes[l + 1]!]), `${prefix}/pixel_b${l}`));
      }
      this.keypointLogGain = newVariable(tf.scalar(Math.log(10)), `${prefix}/keypoint_log_gain`);
      // Pixel-centre coordinates in [-1, 1], row-major like the image.
      const S = config.imageSize;
      const xy = new Float32Array(S * S * 2);
      for (let y = 0; y < S; y++)
        for (let x = 0; x < S; x++) xy.set([((x + 0.5) / S) * 2 - 1, ((y + 0.5) / S) * 2 - 1], (y * S + x) * 2);
      this.#coords = tf.keep(tf.tensor2d(xy, [S * S, 2]));
    }
  }

  get outputDim(): number {
    return codecOutputDim(this.config);
  }

  /**
   * images [N, S, S, 3] in [0,1] → latents [N, outputDim]: dense part in (-1, 1), then keypoint x/y pairs in [-1, 1].
   */
  encode(images: tf.Tensor4D): tf.Tensor2D {
    return tf.tidy(() => {
      const n = images.shape[0];
      const centred = tf.sub(images, 0.5) as tf.Tensor4D;
      const h = swish(tf.add(tf.matMul(toPatches(centred, this.config.patch), this.patchW), this.patchB));
      const dense = tf.tanh(tf.add(tf.matMul(h.reshape([n, -1]), this.mixW), this.mixB)) as tf.Tensor2D;
      if (this.config.keypoints === 0) return dense;
      const S = this.config.imageSize;
      const C = this.config.keypoints;
      let f = centred.reshape([n * S * S, 3]) as tf.Tensor2D;
      f = swish(tf.add(tf.matMul(f, this.pixelW[0]!), this.pixelB[0]!) as tf.Tensor2D);
      f = tf.add(tf.matMul(f, this.pixelW[1]!), this.pixelB[1]!) as tf.Tensor2D;
      // Spatial softmax: a distribution over pixels per feature channel, then its expected position.
      const logits = tf.mul(
        f
          .reshape([n, S * S, C])
          .transpose([0, 2, 1])
          .reshape([n * C, S * S]),
        tf.exp(this.keypointLogGain!),
      ) as tf.Tensor2D;
      const attention = tf.softmax(logits);
      const points = tf.matMul(attention, this.#coords!).reshape([n, 2 * C]);
      return tf.concat([dense, points], 1) as tf.Tensor2D;
    });
  }

  variables(): tf.Variable[] {
    return [
      this.patchW,
      this.patchB,
      this.mixW,
      this.mixB,
      ...this.pixelW,
      ...this.pixelB,
      ...(this.keypointLogGain ? [this.keypointLogGain] : []),
    ];
  }

  dispose(): void {
    tf.dispose(this.variables());
    this.#coords?.dispose();
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
    this.expandW = glorot(
      [codecOutputDim(config), patches * config.patchDim],
      config.seed * 31 + 3,
      `${prefix}/expand_w`,
    );
    this.expandB = newVariable(tf.zeros([patches * config.patchDim]), `${prefix}/expand_b`);
    this.pixelW = glorot([config.patchDim, config.patch * config.patch * 3], config.seed * 31 + 4, `${prefix}/pixel_w`);
    this.pixelB = newVariable(tf.zeros([config.patch * config.patch * 3]), `${prefix}/pixel_b`);
  }

  /** latents [N, outputDim] → images [N, S, S, 3] in [0,1]. */
  decode(latents: tf.Tensor2D): tf.Tensor4D {
    return tf.tidy(() => {
      const n = latents.shape[0];
      const h = swish(tf.add(tf.matMul(latents, this.expandW), this.expandB)).reshape([
        -1,
        this.config.patchDim,
      ]) as tf.Tensor2D;
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
