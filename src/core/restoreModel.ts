/**
 * Rebuild a model from a checkpoint: validate its config with the model's schema (after `migrate`, which
 * reads a config saved by an older version as today's), construct the model, check every tensor's name
 * and shape, copy the weights in. Any mismatch is a
 * CheckpointError naming the folder; the half-built model and the loaded tensors are freed.
 */
import * as tf from '@tensorflow/tfjs';
import type { z } from 'zod';
import {
  CheckpointError,
  expectShapes,
  loadCheckpoint,
  type CheckpointManifest,
  type LoadCheckpointExpectation,
} from './checkpoint.ts';

export interface Restorable {
  namedVariables(): Record<string, tf.Variable>;
  dispose(): void;
}

export async function restoreModel<S extends z.ZodType, M extends Restorable>(
  dir: string,
  expect: LoadCheckpointExpectation & { what: string },
  configSchema: S,
  build: (config: z.infer<S>, manifest: CheckpointManifest) => M,
  migrate: (config: unknown) => unknown = (config) => config,
): Promise<M> {
  const { manifest, tensors } = await loadCheckpoint(dir, expect);
  let model: M | undefined;
  try {
    const config = configSchema.safeParse(migrate(manifest.config));
    if (!config.success) {
      throw new CheckpointError(
        dir,
        `checkpoint ${dir}: its config is not a valid ${expect.what} ` +
          `config: ${config.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
      );
    }
    model = build(config.data, manifest);
    const own = model.namedVariables();
    expectShapes(tensors, Object.fromEntries(Object.entries(own).map(([name, v]) => [name, v.shape])), dir);
    for (const [name, v] of Object.entries(own)) v.assign(tensors[name]!);
    return model;
  } catch (err) {
    model?.dispose();
    if (err instanceof CheckpointError) throw err;
    throw new CheckpointError(dir, `checkpoint ${dir}: cannot rebuild the ${expect.what}: ${(err as Error).message}`);
  } finally {
    tf.dispose(Object.values(tensors));
  }
}
