/**
 * K independent MLPs evaluated in one batched computation: weights are stacked as
 * [K, in, out] and inputs as [K, N, in], so every layer is one batched matMul for the whole
 * ensemble (no per-member loop of tensor ops).
 */
import * as tf from '@tensorflow/tfjs';
import { namedVariables, newVariable } from '../core/variables.ts';
import { ensembleMatMul } from './ensembleMatMul.ts';

export interface EnsembleMlpSpec {
  name: string;
  members: number;
  input: number;
  hidden: number[];
  output: number;
  seed: number;
}

export class EnsembleMlp {
  readonly spec: EnsembleMlpSpec;
  readonly weights: tf.Variable[] = [];
  readonly biases: tf.Variable[] = [];

  constructor(spec: EnsembleMlpSpec) {
    this.spec = spec;
    const sizes = [spec.input, ...spec.hidden, spec.output];
    for (let l = 0; l + 1 < sizes.length; l++) {
      const fanIn = sizes[l]!;
      const fanOut = sizes[l + 1]!;
      // Glorot-uniform, seeded per layer so each member starts differently but reproducibly.
      const limit = Math.sqrt(6 / (fanIn + fanOut));
      this.weights.push(
        newVariable(
          tf.randomUniform([spec.members, fanIn, fanOut], -limit, limit, 'float32', spec.seed * 1000 + l),
          `${spec.name}/w${l}`,
        ),
      );
      this.biases.push(newVariable(tf.zeros([spec.members, 1, fanOut]), `${spec.name}/b${l}`));
    }
  }

  /** x: [K, N, input] → [K, N, output]; swish between layers, linear output. */
  apply(x: tf.Tensor3D): tf.Tensor3D {
    return tf.tidy(() => {
      let h: tf.Tensor3D = x;
      for (let l = 0; l < this.weights.length; l++) {
        h = tf.add(ensembleMatMul(h, this.weights[l] as tf.Tensor as tf.Tensor3D), this.biases[l]!);
        if (l + 1 < this.weights.length) h = tf.mul(h, tf.sigmoid(h));
      }
      return h;
    });
  }

  variables(): tf.Variable[] {
    return [...this.weights, ...this.biases];
  }

  /** Variables by stable name (for checkpoints). */
  namedVariables(): Record<string, tf.Variable> {
    return namedVariables(this.variables());
  }

  dispose(): void {
    for (const v of this.variables()) v.dispose();
  }
}
