/**
 * x [K, N, I] · w [K, I, O] → [K, N, O]: one matrix product per ensemble member, with its gradient.
 *
 * Why not `tf.matMul` on the 3-D tensors: on the wasm backend a batched or transposed product runs
 * tfjs's own loop (≈2.7 GFLOP/s here), while a 2-D product without transposes runs XNNPACK
 * (≈13 GFLOP/s; also for 3-D operands with a batch of one). So every product, forward and in the
 * gradient, is made a plain one per member: the transposes the gradient needs are materialised
 * first (cheap copies). On the benchmark's world model (5 members, [128, 128], batch 64, k = 3)
 * a training step went from ≈122 to ≈50 ms and a refit from ≈59 to ≈23 s. Other backends keep
 * tf.matMul's one batched kernel: on cpu both forms cost the same, and native (above all GPU)
 * kernels batch well.
 */
import * as tf from '@tensorflow/tfjs';

/** The K member slices [1, …] of a [K, …] tensor: one SplitV (on wasm every kernel call costs
 * tens of µs whatever its size, so K Slice calls would cost more). */
const members = (t: tf.Tensor3D) => tf.split(t, t.shape[0], 0) as tf.Tensor3D[];

/**
 * Member-wise products a[m] · b[m], each 3-D with a batch of one
 * (XNNPACK's path, and no reshape copies), concatenated to [K, N, O].
 */
const products = (as: tf.Tensor3D[], bs: tf.Tensor3D[]) =>
  tf.concat(
    as.map((a, m) => tf.matMul(a, bs[m]!)),
    0,
  ) as tf.Tensor3D;

const product = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
  const [x, w, save] = args as [tf.Tensor3D, tf.Tensor3D, tf.GradSaveFunc];
  save([x, w]);
  return {
    value: products(members(x), members(w)),
    gradFunc: (dy, saved) => {
      const [sx, sw] = saved as [tf.Tensor3D, tf.Tensor3D];
      const dys = members(dy as tf.Tensor3D);
      // dx = dy · wᵀ, dw = xᵀ · dy, member by member, with the transposes materialised first.
      return [products(dys, members(tf.transpose(sw, [0, 2, 1]))), products(members(tf.transpose(sx, [0, 2, 1])), dys)];
    },
  };
});

/** The per-member product on any backend (ensembleMatMul picks it on wasm only). */
export function perMemberMatMul(x: tf.Tensor3D, w: tf.Tensor3D): tf.Tensor3D {
  if (x.shape[0] !== w.shape[0] || x.shape[2] !== w.shape[1])
    throw new Error(`ensembleMatMul: shapes ${JSON.stringify(x.shape)} · ${JSON.stringify(w.shape)} do not match`);
  return product(x, w) as tf.Tensor3D;
}

export function ensembleMatMul(x: tf.Tensor3D, w: tf.Tensor3D): tf.Tensor3D {
  return tf.getBackend() === 'wasm' ? perMemberMatMul(x, w) : tf.matMul(x, w);
}
