/**
 * World-model checkpoints: tfjs weights + a JSON manifest (kind, resolved config, normalisation,
 * validation episode ids, format version). A corrupt, truncated or mismatched checkpoint is
 * refused with a message naming the problem.
 */
import * as tf from '@tensorflow/tfjs';
import { CheckpointError, expectShapes, loadCheckpoint, saveCheckpoint } from '../core/checkpoint.ts';
import { WorldModel, type WorldModelMeta } from './worldModel.ts';
import { worldModelConfigSchema } from './worldModelConfig.ts';

export const WORLD_MODEL_FORMAT = 'wmrl-worldmodel';
export const WORLD_MODEL_FORMAT_VERSION = 1;

export async function saveWorldModel(model: WorldModel, dir: string): Promise<void> {
  await saveCheckpoint(dir, {
    format: WORLD_MODEL_FORMAT,
    formatVersion: WORLD_MODEL_FORMAT_VERSION,
    kind: model.kind,
    config: model.config,
    extra: model.meta,
    tensors: model.namedVariables(),
  });
}

export async function loadWorldModel(dir: string): Promise<WorldModel> {
  const { manifest, tensors } = await loadCheckpoint(dir, { format: WORLD_MODEL_FORMAT, formatVersion: WORLD_MODEL_FORMAT_VERSION, kinds: ['state', 'video'] });
  let model: WorldModel | undefined;
  try {
    const config = worldModelConfigSchema.safeParse(manifest.config);
    if (!config.success) throw new CheckpointError(dir, `checkpoint ${dir}: its config is not a valid world-model config: ${config.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    if (config.data.kind !== manifest.kind) throw new CheckpointError(dir, `checkpoint ${dir}: manifest kind '${manifest.kind}' disagrees with its config kind '${config.data.kind}'`);
    model = new WorldModel(config.data, manifest.extra as WorldModelMeta);
    const own = model.namedVariables();
    expectShapes(tensors, Object.fromEntries(Object.entries(own).map(([name, v]) => [name, v.shape])), dir);
    for (const [name, v] of Object.entries(own)) v.assign(tensors[name]!);
    return model;
  } catch (err) {
    model?.dispose();
    if (err instanceof CheckpointError) throw err;
    throw new CheckpointError(dir, `checkpoint ${dir}: cannot rebuild the world model: ${(err as Error).message}`);
  } finally {
    tf.dispose(Object.values(tensors));
  }
}
