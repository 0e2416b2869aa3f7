/**
 * What the success detector sees of an episode: one frame per camera, the joint positions at that
 * frame and the instruction. It reads nothing else — never the success flags, the progress or the
 * privileged simulator state — so an outcome it gives is learned from what a robot without a
 * task-status service records.
 */
import type { Episode } from '../core/types.ts';
import { downsampleFrame } from '../vision/frames.ts';
import type { Tokenizer } from '../policy/tokenizer.ts';

export interface DetectorBatch {
  /** Per camera (the config's order): N × size × size × 3 floats in [0, 1]. */
  frames: Float32Array[];
  /** N × qposDim joint positions. */
  qpos: Float32Array;
  /** N × maxTokens instruction token ids. */
  tokens: Int32Array;
  count: number;
}

/** One frame of one episode: `step` in 0..steps (the final frame is `steps`). */
export interface FrameRef {
  episode: Episode;
  step: number;
}

export function detectorBatch(
  refs: readonly FrameRef[],
  cameras: readonly string[],
  size: number,
  tokenizer: Tokenizer,
) {
  const first = refs[0]?.episode;
  const qposDim = first?.qposDim ?? 0;
  const batch: DetectorBatch = {
    frames: cameras.map(() => new Float32Array(refs.length * size * size * 3)),
    qpos: new Float32Array(refs.length * qposDim),
    tokens: new Int32Array(refs.length * tokenizer.maxTokens),
    count: refs.length,
  };
  refs.forEach(({ episode: e, step }, i) => {
    if (step < 0 || step > e.steps) throw new Error(`episode ${e.id} has no frame ${step} (steps 0..${e.steps})`);
    if (e.qposDim !== qposDim)
      throw new Error(`episode ${e.id} has ${e.qposDim} joint positions where the detector has ${qposDim}`);
    cameras.forEach((name, c) => {
      const cam = e.cameras[name];
      if (!cam)
        throw new Error(
          `episode ${e.id} has no '${name}' camera, which the detector looks at ` +
            `(it has: ${Object.keys(e.cameras).join(', ') || 'none'})`,
        );
      const bytes = cam.width * cam.height * 3;
      downsampleFrame(
        cam.frames.subarray(step * bytes, (step + 1) * bytes),
        cam.width,
        cam.height,
        size,
        batch.frames[c]!,
        i * size * size * 3,
      );
    });
    batch.qpos.set(e.qpos.subarray(step * qposDim, (step + 1) * qposDim), i * qposDim);
    batch.tokens.set(tokenizer.encode(e.task.instruction), i * tokenizer.maxTokens);
  });
  return batch;
}
