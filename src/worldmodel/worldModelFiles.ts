/**
 * World-model checkpoints: tfjs weights + a JSON manifest (kind, resolved config, normalisation,
 * validation episode ids, format version). A corrupt, truncated or mismatched checkpoint is
 * refused with a message naming the problem.
 */
import { CheckpointError, saveCheckpoint } from '../core/checkpoint.ts';
import { restoreModel } from '../core/restoreModel.ts';
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

export function loadWorldModel(dir: string): Promise<WorldModel> {
  const expect = {
    format: WORLD_MODEL_FORMAT,
    formatVersion: WORLD_MODEL_FORMAT_VERSION,
    kinds: ['state', 'video'],
    what: 'world model',
  };
  return restoreModel(dir, expect, worldModelConfigSchema, (config, manifest) => {
    if (config.kind !== manifest.kind)
      throw new CheckpointError(
        dir,
        `checkpoint ${dir}: manifest kind '${manifest.kind}' disagrees with its config kind '${config.kind}'`,
      );
    return new WorldModel(config, manifest.extra as WorldModelMeta);
  });
}
