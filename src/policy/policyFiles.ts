/**
 * Policy checkpoints: tfjs weights + manifest (size preset, config, tokenizer, normalisation), and beside them in
 * tasks/ the file of every family its demonstrations came from that is not built in, so that `wmrl run` and
 * `wmrl eval` know the tasks a policy was made for without being told.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { saveCheckpoint } from '../core/checkpoint.ts';
import { writeFileAtomic } from '../core/durableFs.ts';
import { addTasksBeside, BUILT_IN, familyYaml, isTaskFamily } from '../tasks/families.ts';
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
  const own = (policy.meta.families ?? []).filter(
    (f) => !(BUILT_IN as readonly string[]).includes(f) && isTaskFamily(f),
  );
  if (own.length > 0) await mkdir(join(dir, 'tasks'), { recursive: true });
  for (const family of own) await writeFileAtomic(join(dir, 'tasks', `${family}.yaml`), familyYaml(family));
}

export function loadPolicy(dir: string): Promise<VlaPolicy> {
  addTasksBeside(dir);
  return restoreModel(
    dir,
    { format: POLICY_FORMAT, formatVersion: POLICY_FORMAT_VERSION, what: 'policy' },
    policyConfigSchema,
    (config, manifest) => new VlaPolicy(config, manifest.extra as PolicyMeta),
  );
}
