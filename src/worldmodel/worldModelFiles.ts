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
  return restoreModel(
    dir,
    expect,
    worldModelConfigSchema,
    (config, manifest) => {
      if (config.kind !== manifest.kind)
        throw new CheckpointError(
          dir,
          `checkpoint ${dir}: manifest kind '${manifest.kind}' disagrees with its config kind '${config.kind}'`,
        );
      return new WorldModel(config, manifest.extra as WorldModelMeta);
    },
    (config) => withoutRemovedKeys(dir, config),
  );
}

/**
 * Keys removed from the world-model config with the experiments they served (docs/lab/README.md), and the value a
 * model saved with them behaves as today: such a model loads; one saved with another value is refused.
 */
const REMOVED_KEYS: Record<string, unknown> = { gripperHead: false, progressLabel: 'task' };

/** A saved config read as today's: the removed keys dropped where they held what today's code does. */
function withoutRemovedKeys(dir: string, config: unknown): unknown {
  if (config === null || typeof config !== 'object' || Array.isArray(config)) return config;
  const out: Record<string, unknown> = { ...config };
  for (const [key, today] of Object.entries(REMOVED_KEYS)) {
    if (!(key in out)) continue;
    if (JSON.stringify(out[key]) !== JSON.stringify(today))
      throw new CheckpointError(
        dir,
        `checkpoint ${dir}: this world model was trained with ${key}: ${JSON.stringify(out[key])}, which this ` +
          'version no longer has: train a new world model (wmrl wm train, or wmrl train with a new --world-model)',
      );
    delete out[key];
  }
  return out;
}
