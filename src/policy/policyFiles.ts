/** Policy checkpoints: tfjs weights + manifest (size preset, config, tokenizer, normalisation). */
import { saveCheckpoint } from '../core/checkpoint.ts';
import { restoreModel } from '../core/restoreModel.ts';
import { policyConfigSchema } from './policyConfig.ts';
import { VlaPolicy, type PolicyMeta } from './vlaPolicy.ts';

export const POLICY_FORMAT = 'wmrl-policy';
export const POLICY_FORMAT_VERSION = 1;

export async function savePolicy(policy: VlaPolicy, dir: string): Promise<void> {
  await saveCheckpoint(dir, {
    format: POLICY_FORMAT,
    formatVersion: POLICY_FORMAT_VERSION,
    kind: policy.config.size,
    config: policy.config,
    extra: policy.meta,
    tensors: policy.namedVariables(),
  });
}

export function loadPolicy(dir: string): Promise<VlaPolicy> {
  return restoreModel(
    dir,
    { format: POLICY_FORMAT, formatVersion: POLICY_FORMAT_VERSION, what: 'policy' },
    policyConfigSchema,
    (config, manifest) => new VlaPolicy(config, manifest.extra as PolicyMeta),
  );
}
