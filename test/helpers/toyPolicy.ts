/**
 * The toy behaviour-cloned policy the training tests start from: 16 features, one 32-unit layer,
 * one epoch, no shift augmentation. It learns nothing useful; it makes a real checkpoint fast.
 */
import type { Episode } from '../../src/core/types.ts';
import { resolveConfig } from '../../src/core/config.ts';
import { policyConfigSchema } from '../../src/policy/policyConfig.ts';
import { savePolicy } from '../../src/policy/policyFiles.ts';
import { pretrainPolicy } from '../../src/policy/pretrain.ts';
import type { VlaPolicy } from '../../src/policy/vlaPolicy.ts';

/** Clones the toy policy on `episodes` and saves it to `dir`; the caller disposes what it returns. */
export async function trainToyPolicy(episodes: Episode[], dir: string): Promise<VlaPolicy> {
  const config = resolveConfig(policyConfigSchema, {
    overrides: { features: '16', trunk: '[32]', 'encoder.epochs': '1', 'bc.epochs': '1', 'bc.shiftAugment': 'false' },
  });
  const { policy } = await pretrainPolicy(episodes, config);
  await savePolicy(policy, dir);
  return policy;
}
