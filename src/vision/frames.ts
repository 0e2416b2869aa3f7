/**
 * Camera frames as network input: RGB bytes → float [0,1], box-downsampled to a square size
 * (64×64 → 32×32 keeps coloured blocks visible at a quarter of the cost).
 */

/** Downsample one H×W×3 byte frame by an integer factor into `out` at `offset` (floats in [0,1]). */
export function downsampleFrame(
  src: Uint8Array,
  width: number,
  height: number,
  size: number,
  out: Float32Array,
  offset: number,
): void {
  if (width % size !== 0 || height % size !== 0 || width / size !== height / size) {
    throw new Error(
      `cannot downsample a ${width}×${height} frame to ${size}×${size}: need the same integer factor on both axes`,
    );
  }
  const f = width / size;
  const norm = 1 / (255 * f * f);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      let r = 0;
      let g = 0;
      let b = 0;
      for (let dy = 0; dy < f; dy++) {
        let p = ((y * f + dy) * width + x * f) * 3;
        for (let dx = 0; dx < f; dx++, p += 3) {
          r += src[p]!;
          g += src[p + 1]!;
          b += src[p + 2]!;
        }
      }
      const o = offset + (y * size + x) * 3;
      out[o] = r * norm;
      out[o + 1] = g * norm;
      out[o + 2] = b * norm;
    }
  }
}

/** All frames of a camera's byte stream ((T+1)·H·W·3) as floats, size × size × 3 each. */
export function framesToFloat(frames: Uint8Array, width: number, height: number, size: number): Float32Array {
  const count = frames.length / (width * height * 3);
  const out = new Float32Array(count * size * size * 3);
  for (let i = 0; i < count; i++)
    downsampleFrame(
      frames.subarray(i * width * height * 3, (i + 1) * width * height * 3),
      width,
      height,
      size,
      out,
      i * size * size * 3,
    );
  return out;
}

/** Float frame(s) in [0,1] back to bytes, for viewing. */
export function floatToBytes(frames: ArrayLike<number>): Uint8Array {
  const out = new Uint8Array(frames.length);
  for (let i = 0; i < frames.length; i++) out[i] = Math.max(0, Math.min(255, Math.round(frames[i]! * 255)));
  return out;
}

/** One camera's frames from a batch of observations, downsampled into [N, size, size, 3] floats. */
export function observationFrames(
  observations: readonly { images: Record<string, { width: number; height: number; data: Uint8Array }> }[],
  camera: string,
  size: number,
  user: string,
): Float32Array {
  const pixels = new Float32Array(observations.length * size * size * 3);
  observations.forEach((o, i) => {
    const img = o.images[camera];
    if (!img) throw new Error(`observation has no '${camera}' camera frame, which ${user} sees`);
    downsampleFrame(img.data, img.width, img.height, size, pixels, i * size * size * 3);
  });
  return pixels;
}
