/**
 * Policy-gradient samples: one row per (rollout, step) the policy acted in, imagined or real,
 * with the perception latent it saw, the action it took, that action's log-probability under
 * the acting policy, and the row's weighted advantage.
 */
import * as tf from '@tensorflow/tfjs';
import type { PolicyInput, VlaPolicy } from '../../policy/vlaPolicy.ts';

export interface PolicySamples {
  count: number;
  latentDim: number;
  proprioDim: number;
  actionDim: number;
  maxTokens: number;
  latents: Float32Array;
  proprio: Float32Array;
  tokens: Int32Array;
  actions: Float32Array;
  /** log π_old(action | input), filled by `withOldLogProb`. */
  oldLogProb: Float32Array;
  /** Advantage × denoising weight. */
  advantage: Float32Array;
  /**
   * The row's share of one real row in the objective (1/K for each ensemble member's copy of an
   * imagined rollout). It weighs the KL penalty as well as the surrogate, so imagined and real
   * runs trade reward against staying near the reference at the same rate.
   */
  weight: Float32Array;
  /**
   * Which action dims each row trains, count × actionDim of 0 and 1 (its log-probability and ratio are
   * those dims' alone); absent: every dim of every row.
   */
  actionMask?: Float32Array;
}

export function emptySamples(
  dims: { latentDim: number; proprioDim: number; actionDim: number; maxTokens: number },
  count: number,
): PolicySamples {
  // Only the four widths: `dims` may be another PolicySamples, whose own count must not replace `count`.
  return {
    count,
    latentDim: dims.latentDim,
    proprioDim: dims.proprioDim,
    actionDim: dims.actionDim,
    maxTokens: dims.maxTokens,
    latents: new Float32Array(count * dims.latentDim),
    proprio: new Float32Array(count * dims.proprioDim),
    tokens: new Int32Array(count * dims.maxTokens),
    actions: new Float32Array(count * dims.actionDim),
    oldLogProb: new Float32Array(count),
    advantage: new Float32Array(count),
    weight: new Float32Array(count).fill(1),
  };
}

export function concatSamples(parts: PolicySamples[]): PolicySamples {
  const nonEmpty = parts.filter((p) => p.count > 0);
  if (nonEmpty.length === 0) throw new Error('no policy samples');
  const out = emptySamples(
    nonEmpty[0]!,
    nonEmpty.reduce((n, p) => n + p.count, 0),
  );
  let row = 0;
  for (const p of nonEmpty) {
    out.latents.set(p.latents, row * out.latentDim);
    out.proprio.set(p.proprio, row * out.proprioDim);
    out.tokens.set(p.tokens, row * out.maxTokens);
    out.actions.set(p.actions, row * out.actionDim);
    out.oldLogProb.set(p.oldLogProb, row);
    out.advantage.set(p.advantage, row);
    out.weight.set(p.weight, row);
    row += p.count;
  }
  if (nonEmpty.some((p) => p.actionMask)) {
    const mask = new Float32Array(out.count * out.actionDim).fill(1);
    row = 0;
    for (const p of nonEmpty) {
      if (p.actionMask) mask.set(p.actionMask, row * out.actionDim);
      row += p.count;
    }
    out.actionMask = mask;
  }
  return out;
}

/**
 * What stays fixed through a step's update, computed once for all rows instead of in every
 * minibatch of every epoch: each row's instruction features (language is not trained by RL, and
 * a step's thousands of rows share a few dozen instructions, so each is encoded once) and the
 * reference policy's action mean (the KL term's anchor, a constant to the gradient).
 */
export interface FixedFeatures {
  language: Float32Array;
  languageDim: number;
  referenceMean?: Float32Array;
}

/** Instruction features of every row, each distinct instruction encoded once. */
export function instructionFeatures(policy: VlaPolicy, s: PolicySamples): FixedFeatures {
  const T = s.maxTokens;
  const index = new Map<string, number>();
  const unique: number[] = [];
  const of = new Int32Array(s.count);
  for (let r = 0; r < s.count; r++) {
    const key = s.tokens.subarray(r * T, (r + 1) * T).join(',');
    let u = index.get(key);
    if (u === undefined) {
      u = unique.length;
      index.set(key, u);
      unique.push(r);
    }
    of[r] = u;
  }
  const tokens = new Int32Array(unique.length * T);
  unique.forEach((r, u) => tokens.set(s.tokens.subarray(r * T, (r + 1) * T), u * T));
  const features = tf.tidy(
    () => policy.encodeInstructions(tf.tensor2d(tokens, [unique.length, T], 'int32')).dataSync() as Float32Array,
  );
  const D = features.length / Math.max(1, unique.length);
  const language = new Float32Array(s.count * D);
  for (let r = 0; r < s.count; r++) language.set(features.subarray(of[r]! * D, (of[r]! + 1) * D), r * D);
  return { language, languageDim: D };
}

/** The policy's instruction features and the reference's action mean (with its own features) for every row. */
export function updateFeatures(policy: VlaPolicy, reference: VlaPolicy, s: PolicySamples, chunk = 2048): FixedFeatures {
  const fixed = instructionFeatures(reference, s);
  const referenceMean = new Float32Array(s.count * s.actionDim);
  for (let i = 0; i < s.count; i += chunk) {
    const rows = Array.from({ length: Math.min(chunk, s.count - i) }, (_, j) => i + j);
    const b = sampleBatch(s, rows, fixed);
    try {
      referenceMean.set(
        tf.tidy(() => reference.mean(b.input).dataSync()),
        i * s.actionDim,
      );
    } finally {
      disposeSampleBatch(b);
    }
  }
  return { ...instructionFeatures(policy, s), referenceMean };
}

export interface SampleBatch {
  input: PolicyInput;
  actions: tf.Tensor2D;
  oldLogProb: tf.Tensor1D;
  advantage: tf.Tensor1D;
  weight: tf.Tensor1D;
  /** The action dims each row trains, when the samples say (see PolicySamples.actionMask). */
  actionMask?: tf.Tensor2D;
  /** The reference's action mean of these rows, when the fixed features carry it. */
  referenceMean?: tf.Tensor2D;
}

/** Policy input and actions of the given rows (with their fixed features, when given). */
export function sampleBatch(s: PolicySamples, rows: ArrayLike<number>, fixed?: FixedFeatures): SampleBatch {
  const n = rows.length;
  const rowsOf = <T extends Float32Array | Int32Array>(src: T, width: number, make: (n: number) => T): T => {
    const out = make(n * width);
    for (let j = 0; j < n; j++) out.set(src.subarray(rows[j]! * width, (rows[j]! + 1) * width), j * width);
    return out;
  };
  const f32 = (k: number) => new Float32Array(k);
  return {
    input: {
      latent: tf.tensor2d(rowsOf(s.latents, s.latentDim, f32), [n, s.latentDim]),
      proprio: tf.tensor2d(rowsOf(s.proprio, s.proprioDim, f32), [n, s.proprioDim]),
      tokens: tf.tensor2d(
        rowsOf(s.tokens, s.maxTokens, (k) => new Int32Array(k)),
        [n, s.maxTokens],
        'int32',
      ),
      ...(fixed
        ? { language: tf.tensor2d(rowsOf(fixed.language, fixed.languageDim, f32), [n, fixed.languageDim]) }
        : {}),
    },
    actions: tf.tensor2d(rowsOf(s.actions, s.actionDim, f32), [n, s.actionDim]),
    oldLogProb: tf.tensor1d(rowsOf(s.oldLogProb, 1, f32)),
    advantage: tf.tensor1d(rowsOf(s.advantage, 1, f32)),
    weight: tf.tensor1d(rowsOf(s.weight, 1, f32)),
    ...(s.actionMask ? { actionMask: tf.tensor2d(rowsOf(s.actionMask, s.actionDim, f32), [n, s.actionDim]) } : {}),
    ...(fixed?.referenceMean
      ? { referenceMean: tf.tensor2d(rowsOf(fixed.referenceMean, s.actionDim, f32), [n, s.actionDim]) }
      : {}),
  };
}

export function disposeSampleBatch(b: SampleBatch): void {
  tf.dispose([b.input.latent!, b.input.proprio, b.input.tokens, b.actions, b.oldLogProb, b.advantage, b.weight]);
  if (b.input.language) b.input.language.dispose();
  if (b.referenceMean) b.referenceMean.dispose();
  if (b.actionMask) b.actionMask.dispose();
}

/** Fill oldLogProb with the policy's current log-probabilities (before an update), in chunks. */
export function withOldLogProb(policy: VlaPolicy, s: PolicySamples, chunk = 2048): PolicySamples {
  const fixed = instructionFeatures(policy, s);
  for (let i = 0; i < s.count; i += chunk) {
    const rows = Array.from({ length: Math.min(chunk, s.count - i) }, (_, j) => i + j);
    const b = sampleBatch(s, rows, fixed);
    try {
      s.oldLogProb.set(
        tf.tidy(() => policy.logProb(b.input, b.actions, b.actionMask).dataSync()),
        i,
      );
    } finally {
      disposeSampleBatch(b);
    }
  }
  return s;
}
