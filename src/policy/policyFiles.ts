/** Policy checkpoints: tfjs weights + manifest (size preset, config, tokenizer, normalisation). */
import * as tf from '@tensorflow/tfjs';
import { CheckpointError, expectShapes, loadCheckpoint, saveCheckpoint } from '../core/checkpoint.ts';
import { policyConfigSchema } from './policyConfig.ts';
import { VlaPolicy, type PolicyMeta } from './vlaPolicy.ts';

export const POLICY_FORMAT = 'wmrl-policy';
export const POLICY_FORMAT_VERSION = 1;

export async function savePolicy(policy: VlaPolicy, dir: string): Promise<void> {
  await saveCheckpoint(dir, { format: POLICY_FORMAT, formatVersion: POLICY_FORMAT_VERSION, kind: policy.config.size, config: policy.config, extra: policy.meta, tensors: policy.namedVariables() });
}

export async function loadPolicy(dir: string): Promise<VlaPolicy> {
  const { manifest, tensors } = await loadCheckpoint(dir, { format: POLICY_FORMAT, formatVersion: POLICY_FORMAT_VERSION });
  let policy: VlaPolicy | undefined;
  try {
    const config = policyConfigSchema.safeParse(manifest.config);
    if (!config.success) throw new CheckpointError(dir, `checkpoint ${dir}: its config is not a valid policy config: ${config.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    policy = new VlaPolicy(config.data, manifest.extra as PolicyMeta);
    const own = policy.namedVariables();
    expectShapes(tensors, Object.fromEntries(Object.entries(own).map(([n, v]) => [n, v.shape])), dir);
    for (const [n, v] of Object.entries(own)) v.assign(tensors[n]!);
    return policy;
  } catch (err) {
    policy?.dispose();
    if (err instanceof CheckpointError) throw err;
    throw new CheckpointError(dir, `checkpoint ${dir}: cannot rebuild the policy: ${(err as Error).message}`);
  } finally {
    tf.dispose(Object.values(tensors));
  }
}
