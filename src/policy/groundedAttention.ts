/**
 * Language-grounded spatial attention: "where in the image is what the instruction names?".
 * Every pixel gets a small feature vector from a per-pixel MLP over its colour (a 1×1
 * convolution, i.e. one matmul: no convolution gradients needed on the pure-JS backends);
 * each head turns the instruction into a query, scores every pixel against it, and reports
 * the softmax-weighted image position and the attended features. Being the same at every
 * pixel, it cannot memorise the training layouts, and the position comes out to a fraction of
 * a pixel. Simulator demos supervise the first heads' positions directly (the instructed
 * object's and the goal's projections into the image): through the policy's action loss
 * alone, localisation stalled at about 4 cm; with it, about 1.5 cm.
 */
import * as tf from '@tensorflow/tfjs';
import { newVariable } from '../core/variables.ts';
import { Dense, swish } from '../nn/dense.ts';

export interface GroundingConfig {
  /** Attention heads, each reporting one position. */
  heads: number;
  /** Per-pixel feature (and query) width. */
  dim: number;
  /** Hidden width of the per-pixel MLP. */
  hidden: number;
  /** Also report each head's attended features (else positions only: a compact latent a world model predicts well). */
  features: boolean;
}

export class GroundedAttention {
  readonly config: GroundingConfig;
  readonly imageSize: number;
  readonly pixel0: Dense;
  readonly pixel1: Dense;
  readonly query: Dense;
  /** Log of the softmax gain: a target is a few pixels of ~1000, so attention starts sharp. */
  readonly logGain: tf.Variable;
  readonly #coords: tf.Tensor2D;

  constructor(name: string, config: GroundingConfig, imageSize: number, languageDim: number, seed: number) {
    this.config = config;
    this.imageSize = imageSize;
    this.pixel0 = new Dense(`${name}/pixel0`, 3, config.hidden, seed + 1);
    this.pixel1 = new Dense(`${name}/pixel1`, config.hidden, config.dim, seed + 2);
    this.query = new Dense(`${name}/query`, languageDim, config.heads * config.dim, seed + 3);
    this.logGain = newVariable(tf.scalar(Math.log(4)), `${name}/log_gain`);
    // Pixel-centre coordinates in [-1, 1], row-major like the image.
    const S = imageSize;
    const xy = new Float32Array(S * S * 2);
    for (let y = 0; y < S; y++)
      for (let x = 0; x < S; x++) xy.set([((x + 0.5) / S) * 2 - 1, ((y + 0.5) / S) * 2 - 1], (y * S + x) * 2);
    this.#coords = tf.keep(tf.tensor2d(xy, [S * S, 2]));
  }

  /** Output width: per head, x/y then (with `features`) the attended features. */
  get outputDim(): number {
    return this.config.heads * (2 + (this.config.features ? this.config.dim : 0));
  }

  /** images [N, S, S, 3] in [0,1], language features [N, L] → [N, outputDim]. */
  apply(images: tf.Tensor4D, language: tf.Tensor2D): tf.Tensor2D {
    return tf.tidy(() => this.attend(images, language).output);
  }

  /** The output and, separately, each head's attended image position [N, H, 2] (x right, y down, in [-1, 1]). */
  attend(images: tf.Tensor4D, language: tf.Tensor2D): { output: tf.Tensor2D; positions: tf.Tensor3D } {
    return tf.tidy(() => {
      const [n, S] = images.shape;
      const { heads: H, dim: K } = this.config;
      const pixels = tf.sub(images, 0.5).reshape([n * S * S, 3]) as tf.Tensor2D;
      const features = this.pixel1.apply(swish(this.pixel0.apply(pixels))).reshape([n, S * S, K]) as tf.Tensor3D;
      const queries = this.query.apply(language).reshape([n, H, K]) as tf.Tensor3D;
      // [N, H, K] × [N, P, K]ᵀ → [N, H, P]: each head's score for every pixel.
      const scores = tf.mul(
        tf.matMul(queries, features, false, true),
        tf.div(tf.exp(this.logGain), Math.sqrt(K)),
      ) as tf.Tensor3D;
      const attention = tf.softmax(scores) as tf.Tensor3D;
      const positions = tf.matMul(attention.reshape([n * H, S * S]), this.#coords).reshape([n, H, 2]);
      const output = this.config.features ? tf.concat([positions, tf.matMul(attention, features)], 2) : positions;
      return { output: output.reshape([n, this.outputDim]) as tf.Tensor2D, positions: positions as tf.Tensor3D };
    });
  }

  variables(): tf.Variable[] {
    return [...this.pixel0.variables(), ...this.pixel1.variables(), ...this.query.variables(), this.logGain];
  }

  dispose(): void {
    tf.dispose(this.variables());
    this.#coords.dispose();
  }
}
