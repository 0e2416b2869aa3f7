/** The VLA policy's configuration: architecture size and behaviour-cloning settings. */
import { z } from 'zod';
import { BACKEND_NAMES } from '../backend/selectBackend.ts';

export const policyConfigSchema = z
  .object({
    size: z.string().default('tiny').describe('preset name (tiny | small | base), recorded with the model'),
    /** Width of each modality's features (vision, language, proprio). */
    features: z
      .number()
      .int()
      .min(4)
      .default(64)
      .describe('width of each modality feature (vision, language, proprio)'),
    tokenDim: z.number().int().min(2).default(16).describe('token embedding width'),
    maxTokens: z.number().int().min(2).default(12).describe('instruction tokens kept (padded/truncated)'),
    trunk: z.array(z.number().int().positive()).min(1).default([128, 128]).describe('fused trunk widths'),
    initLogStd: z.number().default(-1).describe('initial log standard deviation of the action distribution'),
    actionChunk: z
      .number()
      .int()
      .min(1)
      .max(16)
      .default(1)
      .describe(
        'actions predicted per observation: the controller executes a chunk open ' +
          'loop, then observes again (1: act every tick; post-training needs 1)',
      ),
    gripperVelocity: z
      .boolean()
      .default(true)
      .describe(
        "read the gripper's velocity (false: it reads as its mean; the arm's joint velocities stay). At the " +
          'control tick it is set by contact with the object, which a world model predicts poorly, so a policy ' +
          'reading it may act in imagination unlike on the robot (docs/worldmodel.md)',
      ),
    encoder: z
      .object({
        imageSize: z.number().int().min(8).default(32),
        patch: z.number().int().min(1).default(4),
        patchDim: z.number().int().min(1).default(16),
        latent: z
          .number()
          .int()
          .min(0)
          .default(0)
          .describe('size of the patch encoder latent added to the perception (0 with keypoints 0: no patch encoder)'),
        keypoints: z
          .number()
          .int()
          .min(0)
          .default(0)
          .describe(
            'spatial-softmax keypoints added to the latent (language-blind; ' +
              'the grounded attention finds what the instruction names)',
          ),
        camera: z
          .string()
          .optional()
          .describe("the camera the policy sees (default: the robot's first camera; the checkpoint records it)"),
        trainable: z
          .boolean()
          .default(true)
          .describe(
            'train the encoder end to end with behaviour cloning (the video world model then shares it frozen)',
          ),
        epochs: z.number().int().min(1).default(8).describe('autoencoder epochs when pretrain trains its own encoder'),
      })
      .strict()
      .prefault({})
      .describe(
        'the shared vision encoder (taken from a video world model with --encoder, else trained as an autoencoder)',
      ),
    grounding: z
      .object({
        heads: z
          .number()
          .int()
          .min(1)
          .default(2)
          .describe('attention heads, each locating one thing the instruction names'),
        dim: z.number().int().min(1).default(16).describe('per-pixel feature and query width'),
        hidden: z.number().int().min(1).default(32).describe('hidden width of the per-pixel MLP'),
        features: z
          .boolean()
          .default(false)
          .describe(
            "also pass each head's attended features (false: " +
              'positions only, a compact latent the world model predicts well)',
          ),
      })
      .strict()
      .prefault({})
      .describe('language-grounded spatial attention over the camera image'),
    bc: z
      .object({
        epochs: z.number().int().min(1).default(30),
        batchSize: z.number().int().min(1).default(128),
        learningRate: z.number().positive().default(1e-3),
        validationFraction: z.number().min(0).max(0.9).default(0.15),
        patience: z.number().int().min(1).default(6),
        successOnly: z.boolean().default(true).describe('clone only successful episodes'),
        maxNoise: z
          .number()
          .min(0)
          .default(0.2)
          .describe('skip expert episodes recorded with more action noise than this'),
        shiftAugment: z
          .boolean()
          .default(false)
          .describe(
            'add four 1-pixel shifted copies of every frame (5× the samples; ' +
              'the grounded attention is translation-equivariant and did as well without)',
          ),
        wordDropout: z
          .number()
          .min(0)
          .max(1)
          .default(0)
          .describe(
            'probability that an instruction word of a training sample reads as <unk>, so the policy ' +
              'learns to read an instruction around words it has never seen (held-out paraphrases)',
          ),
        auxWeight: z
          .number()
          .min(0)
          .default(1)
          .describe(
            'weight of the auxiliary loss: the instructed object and ' +
              'goal positions from the vision features (simulator demos)',
          ),
        imageWeight: z
          .number()
          .min(0)
          .default(100)
          .describe(
            'weight of the grounding loss: where the instructed object and the goal appear ' +
              'in the image (positions in half-frames; simulator demos with a fixed camera)',
          ),
      })
      .strict()
      .prefault({}),
    seed: z.number().int().default(0),
    backend: z.enum(BACKEND_NAMES as unknown as [string, ...string[]]).default('auto'),
  })
  .strict();

export type PolicyConfig = z.infer<typeof policyConfigSchema>;

/** Kernels policy training needs (all present on cpu and wasm). */
export const POLICY_KERNELS = ['OneHot', 'Sigmoid', 'Tanh', 'Transpose'];

/**
 * The camera a policy sees: the one its config names (pretraining records the robot's first when none was named),
 * else `robotFirst`, the first camera of the robot it runs on.
 */
export function policyCamera(config: PolicyConfig, robotFirst?: string): string {
  const camera = config.encoder.camera ?? robotFirst;
  if (camera === undefined) throw new Error("this policy's config names no camera, and no robot camera was given");
  return camera;
}
