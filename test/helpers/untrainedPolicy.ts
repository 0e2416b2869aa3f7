/**
 * A tiny untrained policy checkpoint for the vx300, for tests where what the policy does does not
 * matter, only that a real checkpoint drives the robot: built from configs/policy/tiny.yaml and
 * saved without training (milliseconds, against seconds for trainToyPolicy).
 */
import { resolveConfig } from '../../src/core/config.ts';
import type { RobotDescription } from '../../src/core/robotDescription.ts';
import { policyConfigSchema } from '../../src/policy/policyConfig.ts';
import { savePolicy } from '../../src/policy/policyFiles.ts';
import { Tokenizer } from '../../src/policy/tokenizer.ts';
import { VlaPolicy } from '../../src/policy/vlaPolicy.ts';

/** Saves to `dir` a policy for `robot` whose vocabulary is the words of `instructions`. */
export async function saveUntrainedPolicy(robot: RobotDescription, instructions: string[], dir: string): Promise<void> {
  const config = resolveConfig(policyConfigSchema, { files: ['configs/policy/tiny.yaml'], overrides: { seed: '1' } });
  const P = 2 * (robot.arm.joints.length + 1);
  const policy = new VlaPolicy(config, {
    actionDim: robot.arm.joints.length + 1,
    proprioDim: P,
    tokenizer: Tokenizer.fromTexts(instructions, config.maxTokens).toJSON(),
    proprio: { mean: new Array(P).fill(0), std: new Array(P).fill(1) },
  });
  try {
    await savePolicy(policy, dir);
  } finally {
    policy.dispose();
  }
}
