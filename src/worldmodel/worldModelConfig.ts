/** The world model's configuration: validated at load, composed from configs/ presets. */
import { z } from 'zod';
import { BACKEND_NAMES } from '../backend/selectBackend.ts';

export const worldModelConfigSchema = z
  .object({
    /** 'state': proprio + object state; 'video': image latent + proprio. */
    kind: z
      .enum(['state', 'video'])
      .default('state')
      .describe("'state' (proprio + object state) or 'video' (image latent + proprio)"),
    members: z.number().int().min(1).max(32).default(5).describe('ensemble size K'),
    hidden: z
      .array(z.number().int().positive())
      .min(1)
      .default([128, 128])
      .describe('hidden layer widths of each member'),
    scoreHead: z
      .enum(['joint', 'scene'])
      .default('joint')
      .describe(
        "'joint': success and progress are two more outputs of each dynamics network; " +
          "'scene': a separate network per member scores a state from its scene part only " +
          '(after the joint positions and velocities: perception latents and, with the ' +
          "trainer's worldModel.endEffector, the gripper position), trained on real states",
      ),
    minLogVar: z.number().default(-3).describe('soft lower bound of the predicted log-variance (normalised units)'),
    maxLogVar: z.number().default(2).describe('soft upper bound of the predicted log-variance'),
    video: z
      .object({
        camera: z
          .string()
          .optional()
          .describe("camera whose frames the video kind encodes (default: the robot's first; the model records it)"),
        imageSize: z.number().int().min(8).default(32).describe('frames are box-downsampled to this size'),
        patch: z.number().int().min(1).default(4).describe('patch side of the encoder'),
        patchDim: z.number().int().min(1).default(16).describe('per-patch embedding width'),
        latent: z.number().int().min(2).default(32).describe('size of the dense part of the latent'),
        keypoints: z
          .number()
          .int()
          .min(0)
          .default(0)
          .describe('spatial-softmax keypoints (x, y) added to the latent (0: dense latent only, as benchmarked)'),
        epochs: z.number().int().min(1).default(8).describe('autoencoder epochs'),
        batchSize: z.number().int().min(1).default(64),
        learningRate: z.number().positive().default(2e-3),
      })
      .strict()
      .prefault({}),
    train: z
      .object({
        epochs: z.number().int().min(1).default(12).describe('maximum dynamics epochs'),
        batchSize: z.number().int().min(1).default(64).describe('windows per member per step'),
        learningRate: z.number().positive().default(1e-3),
        k: z.number().int().min(1).max(20).default(3).describe('open-loop steps in the multi-step loss'),
        validationFraction: z
          .number()
          .min(0)
          .max(0.9)
          .default(0.2)
          .describe('episodes held out for validation and early stopping'),
        nllBeta: z
          .number()
          .min(0)
          .max(1)
          .default(0)
          .describe(
            "β-NLL (Seitzer et al., 2022): each state dim's NLL weighed by its predicted variance^β; 0, the plain " +
              'NLL, fits the mean least where the variance is large (rare, hard transitions such as fingers closing ' +
              "on nothing); 0.5 is the paper's choice",
          ),
        patience: z.number().int().min(1).default(4).describe('epochs without improvement before stopping'),
        maxStepsPerEpoch: z.number().int().min(0).default(0).describe('cap on steps per epoch (0 = a full pass)'),
      })
      .strict()
      .prefault({}),
    eval: z
      .object({
        horizon: z.number().int().min(1).default(10).describe('steps ahead for H-step error and success AUROC'),
      })
      .strict()
      .prefault({}),
    seed: z.number().int().default(0),
    backend: z
      .enum(BACKEND_NAMES as unknown as [string, ...string[]])
      .default('auto')
      .describe('auto | tensorflow-gpu | tensorflow | wasm | cpu'),
  })
  .strict();

export type WorldModelConfig = z.infer<typeof worldModelConfigSchema>;

/** Kernels the world models' training uses that are missing on some backends (auto skips those backends). */
export const WORLD_MODEL_KERNELS = ['BatchMatMul', 'Softplus', 'Sigmoid', 'Tanh', 'Transpose', 'Tile'];

/** The camera a trained video world model encodes (set from the robot's first camera when its config named none). */
export function videoCamera(config: WorldModelConfig): string {
  if (config.video.camera === undefined) throw new Error('this world-model config names no camera: training sets it');
  return config.video.camera;
}
