/** The success detector's config: its size, what it looks at, and how it is fitted. Validated at load. */
import { z } from 'zod';
import { BACKEND_NAMES } from '../backend/selectBackend.ts';

export const detectorConfigSchema = z
  .object({
    /** Cameras whose final frame the detector looks at; every labelled and scored episode must have them. */
    cameras: z
      .array(z.string().min(1))
      .min(1)
      .optional()
      .describe("cameras the detector looks at (default: the robot's first; the detector records them)"),
    /** Frames are box-downsampled to this square size (64×64 → 32×32 keeps the blocks at a quarter of the cost). */
    imageSize: z.number().int().min(4).default(32).describe('square frame size the detector sees'),
    /** Instruction-grounded attention heads per camera (each reports one image position and its features). */
    heads: z.number().int().min(1).default(4).describe('attention heads per camera'),
    /** Per-pixel feature width of the attention. */
    pixelDim: z.number().int().min(1).default(8).describe('per-pixel feature width'),
    /** Hidden width of the per-pixel MLP. */
    pixelHidden: z.number().int().min(1).default(16).describe('hidden width of the per-pixel MLP'),
    /** Width of the instruction's features. */
    languageDim: z.number().int().min(1).default(32).describe('instruction feature width'),
    /** Hidden width of the classifier over [attended features, joint state, instruction]. */
    hidden: z.number().int().min(1).default(64).describe('hidden width of the classifier'),
    /** Instruction tokens kept (padded/truncated). */
    maxTokens: z.number().int().min(2).default(12).describe('instruction tokens kept'),
    train: z
      .object({
        epochs: z.number().int().min(1).default(30).describe('passes over the labelled frames'),
        batchSize: z.number().int().min(1).default(64).describe('frames per optimiser step'),
        learningRate: z.number().positive().default(3e-3).describe('Adam learning rate'),
        /** Share of labelled episodes held out (by episode) for early stopping, the threshold and the figures. */
        validationFraction: z.number().min(0).max(0.9).default(0.2).describe('episodes held out, by episode'),
        /** Earlier frames of each failed episode added as negatives (no frame of a failure is a success). */
        failureFrames: z.number().int().min(0).default(2).describe('extra negative frames per failed episode'),
        /** Stop after this many epochs without a better validation loss (0: never). */
        patience: z.number().int().min(0).default(6).describe('epochs without improvement before stopping'),
      })
      .strict()
      .prefault({}),
    seed: z.number().int().default(0).describe('initialisation, split and batch order'),
    backend: z.enum(BACKEND_NAMES as unknown as [string, ...string[]]).default('auto'),
  })
  .strict();

export type DetectorConfig = z.infer<typeof detectorConfigSchema>;

/** The cameras a trained detector looks at (set from the robot's first camera when its config named none). */
export function detectorCameras(config: DetectorConfig): string[] {
  if (config.cameras === undefined) throw new Error('this detector config names no camera: training sets it');
  return config.cameras;
}
