/** World-model refits from the anchors, and the optional warm-up before the first step. */
import { Rng } from '../core/rng.ts';
import type { WorldModel } from '../worldmodel/worldModel.ts';
import { stepSeed } from './seeds.ts';
import type { Trainer } from './trainer.ts';
import { executeGroups } from './executeGroups.ts';
import { noiseSpec } from './wmrlConfig.ts';

/** Warm-started refit on the world model's data plus every anchor episode so far (each `anchorRepeat` times). */
export async function refitWorldModel(
  t: Trainer,
  model: WorldModel,
  seed: number,
  scoreHeadOnly = false,
): Promise<void> {
  const anchors = Array.from({ length: t.config.worldModel.anchorRepeat }, () => t.learning.anchorModelEpisodes).flat();
  await model.refit([...t.modelData, ...anchors], { epochs: t.config.worldModel.refitEpochs, seed, scoreHeadOnly });
}

/**
 * Before the first step (wmrl mode): episodes of the starting policy from distinct starts, one
 * each, run for real and charged as robot time, stored with the anchors (so every later refit
 * keeps them), and a refit of the world model with them. Returns how many ran.
 */
export async function worldModelWarmup(t: Trainer): Promise<number> {
  const { config, learning } = t;
  const n = t.method.warmupEpisodes;
  if (n === 0 || !learning.worldModel) return 0;
  t.onProgress?.(`warm-up: ${n} episodes of the starting policy for the world model`);
  const rng = new Rng(stepSeed(config.seed, 0, 'warmupOrder'));
  const order = rng.shuffle(Array.from({ length: t.pool.specs.length }, (_, i) => i));
  const groups = Array.from({ length: n }, (_, slot) => ({ slot, spec: t.pool.specs[order[slot % order.length]!]! }));
  const real = await executeGroups(t, 0, groups, 1, noiseSpec(config, stepSeed(config.seed, 0, 'warmupNoise')));
  t.onProgress?.('refitting the world model with the warm-up episodes');
  await refitWorldModel(t, learning.worldModel, stepSeed(config.seed, 0, 'refit'));
  return real.episodes.length;
}
