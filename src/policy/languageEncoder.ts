/**
 * Instruction encoder: token embeddings (one-hot × matrix: no gather gradient needed on wasm),
 * adjacent-word pairs through a dense layer, max-pooled over positions. Pairs keep what order
 * matters for ("red block" vs "green zone") while the pooling makes the phrase's position in
 * the sentence irrelevant, so new paraphrases of known words still work.
 */
import * as tf from '@tensorflow/tfjs';
import { newVariable } from '../core/variables.ts';
import { Dense, swish } from '../nn/dense.ts';

export class LanguageEncoder {
  readonly vocabSize: number;
  readonly tokenDim: number;
  readonly embedding: tf.Variable;
  readonly pairs: Dense;

  constructor(name: string, vocabSize: number, tokenDim: number, outputDim: number, seed: number) {
    this.vocabSize = vocabSize;
    this.tokenDim = tokenDim;
    this.embedding = newVariable(
      tf.randomNormal([vocabSize, tokenDim], 0, 0.3, 'float32', seed + 1),
      `${name}/embedding`,
    );
    this.pairs = new Dense(`${name}/pairs`, 2 * tokenDim, outputDim, seed + 2);
  }

  /** tokens [N, T] int32 → features [N, outputDim]. */
  apply(tokens: tf.Tensor2D): tf.Tensor2D {
    return tf.tidy(() => {
      const [n, T] = tokens.shape;
      const D = this.tokenDim;
      const words = tf
        .matMul(tf.oneHot(tokens.reshape([-1]) as tf.Tensor1D, this.vocabSize), this.embedding)
        .reshape([n, T, D]);
      const pairs = tf
        .concat([words.slice([0, 0, 0], [n, T - 1, D]), words.slice([0, 1, 0], [n, T - 1, D])], 2)
        .reshape([n * (T - 1), 2 * D]) as tf.Tensor2D;
      return tf.max(swish(this.pairs.apply(pairs)).reshape([n, T - 1, -1]), 1) as tf.Tensor2D;
    });
  }

  variables(): tf.Variable[] {
    return [this.embedding, ...this.pairs.variables()];
  }
}
