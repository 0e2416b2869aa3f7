/**
 * Faster replacements for four kernels of tfjs-backend-wasm 4.22, registered when the wasm
 * backend is activated (selectBackend.ts). The same values, and the first three bit for bit
 * (test/backend/wasmKernels.test.ts); what they save a training step is in docs/benchmarks.md.
 *
 * - **Slice, SplitV.** The backend's Slice reads its input with `readSync`, which copies the whole
 *   input out of the WebAssembly heap on every call however small the slice, and SplitV slices
 *   once per part: splitting a [5, 64, 128] ensemble tensor into its members cost ≈0.4–0.9 ms
 *   (one member's matrix product ≈0.15 ms), and a world-model optimiser step makes about 90 such
 *   splits. These read a view of the heap and copy only the slice.
 * - **Identity** (`tf.clone`, and every tensor the gradient tape saves: ≈500 per world-model
 *   optimiser step) shares the input's data, as the cpu backend's Identity and wasm's own
 *   Reshape do, instead of copying it. No wasm kernel writes into its inputs.
 * - **BatchMatMul with a transposed operand** runs the backend's own loop (≈10× slower here than
 *   the XNNPACK product it uses otherwise): a dense layer's gradient (dy·wᵀ, xᵀ·dy) made the PPO
 *   update 85% matrix products. With a batch of one the transpose is materialised first (a cheap
 *   copy); XNNPACK sums in another order, so results differ in the last bits.
 */
import * as tf from '@tensorflow/tfjs';

interface WasmBackend {
  incRef(dataId: tf.DataId): void;
  disposeData(dataId: tf.DataId): boolean;
  makeOutput(shape: number[], dtype: tf.DataType): tf.TensorInfo;
  /** A view of the tensor's data in the heap (detached when the heap grows). */
  typedArrayFromHeap(t: tf.TensorInfo): Float32Array | Int32Array | Uint8Array;
}

interface Args<I, A = Record<string, never>> {
  inputs: I;
  attrs: A;
  backend: WasmBackend;
}

const MARK = Symbol.for('wmrl.fasterWasmKernels');

/** Registers the replacements for the 'wasm' backend (once; a no-op where a kernel is missing). */
export function useFasterWasmKernels(): void {
  const slice = tf.getKernel('Slice', 'wasm');
  if (!slice || (slice as unknown as Record<symbol, boolean>)[MARK]) return;
  replace('Slice', (orig) => (args) => {
    const { inputs, attrs, backend } = args as unknown as Args<
      { x: tf.TensorInfo },
      { begin: number | number[]; size?: number | number[] }
    >;
    if (inputs.x.dtype === 'string') return orig(args);
    const [begin, size] = tf.slice_util.parseSliceParams(inputs.x as tf.Tensor, attrs.begin, attrs.size);
    return sliceFromHeap(inputs.x, begin!, size!, backend);
  });
  replace('SplitV', (orig) => (args) => {
    const { inputs, attrs, backend } = args as unknown as Args<
      { x: tf.TensorInfo },
      { numOrSizeSplits: number | number[]; axis: number | number[] }
    >;
    const x = inputs.x;
    if (x.dtype === 'string') return orig(args);
    const axis = tf.util.parseAxisParam(attrs.axis, x.shape)[0]!;
    const sizes = tf.backend_util.prepareSplitSize(x as tf.Tensor, attrs.numOrSizeSplits, axis);
    const begin = new Array<number>(x.shape.length).fill(0);
    return sizes.map((n) => {
      const size = [...x.shape];
      size[axis] = n;
      const part = sliceFromHeap(x, [...begin], size, backend);
      begin[axis]! += n;
      return part;
    });
  });
  replace('Identity', (orig) => (args) => {
    const { inputs, backend } = args as unknown as Args<{ x: tf.TensorInfo }>;
    const x = inputs.x;
    if (x.dtype === 'string') return orig(args);
    backend.incRef(x.dataId);
    return { dataId: x.dataId, shape: x.shape, dtype: x.dtype };
  });
  const transpose = tf.getKernel('Transpose', 'wasm');
  if (transpose)
    replace('BatchMatMul', (orig) => (args) => {
      const { inputs, attrs, backend } = args as unknown as Args<
        { a: tf.TensorInfo; b: tf.TensorInfo },
        { transposeA: boolean; transposeB: boolean }
      >;
      const single = (t: tf.TensorInfo) => tf.util.sizeFromShape(t.shape.slice(0, -2)) === 1;
      if (!(attrs.transposeA || attrs.transposeB) || !single(inputs.a) || !single(inputs.b)) return orig(args);
      const flip = (t: tf.TensorInfo) => {
        const perm = t.shape.map((_, i) => i);
        const r = perm.length;
        [perm[r - 2], perm[r - 1]] = [r - 1, r - 2];
        return transpose.kernelFunc({ inputs: { x: t }, attrs: { perm }, backend } as never) as tf.TensorInfo;
      };
      const a = attrs.transposeA ? flip(inputs.a) : inputs.a;
      const b = attrs.transposeB ? flip(inputs.b) : inputs.b;
      try {
        return orig({ ...args, inputs: { a, b }, attrs: { ...attrs, transposeA: false, transposeB: false } } as never);
      } finally {
        if (a !== inputs.a) backend.disposeData(a.dataId);
        if (b !== inputs.b) backend.disposeData(b.dataId);
      }
    });
}

function replace(name: string, make: (original: tf.KernelFunc) => tf.KernelFunc): void {
  const config = tf.getKernel(name, 'wasm');
  if (!config) return;
  tf.unregisterKernel(name, 'wasm');
  tf.registerKernel({ ...config, kernelFunc: make(config.kernelFunc), [MARK]: true } as tf.KernelConfig);
}

/** x[begin : begin + size] (numeric dtypes, any rank), copied row by row of the last axis from a heap view. */
function sliceFromHeap(x: tf.TensorInfo, begin: number[], size: number[], backend: WasmBackend): tf.TensorInfo {
  // Allocate first: an allocation may grow the heap, which detaches views taken before it.
  const out = backend.makeOutput(size, x.dtype);
  const n = tf.util.sizeFromShape(size);
  if (n === 0) return out;
  const src = backend.typedArrayFromHeap(x);
  const dst = backend.typedArrayFromHeap(out);
  const rank = x.shape.length;
  if (rank === 0) {
    dst.set(src);
    return out;
  }
  const strides = tf.util.computeStrides(x.shape);
  if (tf.slice_util.isSliceContinous(x.shape, begin, size)) {
    const offset = tf.slice_util.computeFlatOffset(begin, strides);
    dst.set(src.subarray(offset, offset + n));
    return out;
  }
  const row = size[rank - 1]!;
  const index = new Array<number>(rank - 1).fill(0);
  for (let r = 0; r < n / row; r++) {
    let offset = begin[rank - 1]!;
    for (let a = 0; a < rank - 1; a++) offset += (begin[a]! + index[a]!) * strides[a]!;
    // Short rows (a [K, B, 1] mask slice has rows of one value) copy faster element by element.
    if (row < 32) for (let j = 0; j < row; j++) dst[r * row + j] = src[offset + j]!;
    else dst.set(src.subarray(offset, offset + row), r * row);
    for (let a = rank - 2; a >= 0; a--) {
      if (++index[a]! < size[a]!) break;
      index[a] = 0;
    }
  }
  return out;
}
