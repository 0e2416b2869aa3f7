/** A plain dense layer on tf.Variables (seeded Glorot init), for models not built with tfjs-layers. */
import * as tf from '@tensorflow/tfjs';
import { newVariable } from '../core/variables.ts';

export class Dense {
  readonly w: tf.Variable;
  readonly b: tf.Variable;

  constructor(name: string, input: number, output: number, seed: number, options: { zeroInit?: boolean } = {}) {
    const limit = Math.sqrt(6 / (input + output));
    this.w = newVariable(
      options.zeroInit ? tf.zeros([input, output]) : tf.randomUniform([input, output], -limit, limit, 'float32', seed),
      `${name}/w`,
    );
    this.b = newVariable(tf.zeros([output]), `${name}/b`);
  }

  apply(x: tf.Tensor2D): tf.Tensor2D {
    return tf.tidy(() => tf.add(tf.matMul(x, this.w), this.b) as tf.Tensor2D);
  }

  get parameters(): number {
    return this.w.size + this.b.size;
  }

  variables(): tf.Variable[] {
    return [this.w, this.b];
  }
}

export function swish<T extends tf.Tensor>(x: T): T {
  return tf.tidy(() => tf.mul(x, tf.sigmoid(x)) as T);
}
