/** World-model refits from the anchors, and the optional warm-up before the first step. */
import { Rng } from '../../core/rng.ts';
import type { Episode } from '../../core/types.ts';
import type { FitReport } from '../../worldmodel/fitEnsemble.ts';
import type { WorldModel } from '../../worldmodel/worldModel.ts';
import { hashSeed, stepSeed } from '../config/seeds.ts';
import type { Trainer } from '../step/trainer.ts';
import { commitExecuted, executeGroups } from '../step/executeGroups.ts';
import { noiseSpec, type WmrlConfig } from '../config/wmrlConfig.ts';

/**
 * Warm-started refit on the world model's data (all of it, or a fresh replay sample of
 * `replayEpisodes`) plus every anchor episode so far, for `refitEpochs` epochs of at most
 * `refitSteps` optimiser steps.
 */
export async function refitWorldModel(
  model: WorldModel,
  settings: Pick<WmrlConfig['worldModel'], 'refitEpochs' | 'refitSteps' | 'replayEpisodes'>,
  modelData: Episode[],
  anchors: Episode[],
  seed: number,
): Promise<FitReport> {
  const { refitEpochs, refitSteps, replayEpisodes } = settings;
  const data = replaySample(modelData, replayEpisodes, seed);
  return model.refit([...data, ...anchors], {
    epochs: refitEpochs,
    seed,
    ...(refitSteps > 0 ? { maxSteps: refitSteps } : {}),
  });
}

/** `n` of the episodes drawn without replacement (all of them when n is 0 or at least their number). */
export function replaySample<T>(episodes: T[], n: number, seed: number): T[] {
  if (n === 0 || n >= episodes.length) return episodes;
  // a stream of its own: the refit's validation split draws from Rng(seed)
  return new Rng(hashSeed(seed, 1)).shuffle(episodes.slice()).slice(0, n);
}

/** What the warm-up did: episodes that count (with operator outcomes, those labelled), their robot time. */
export interface Warmup {
  episodes: number;
  /** Robot time of every warm-up episode executed, kept or not (charged as training robot time). */
  robotSeconds: number;
}

export const NO_WARMUP: Warmup = { episodes: 0, robotSeconds: 0 };

/**
 * Before the first step (wmrl mode): episodes of the starting policy from distinct starts, one
 * each, run for real and charged as robot time, stored with the anchors (so every later refit
 * keeps them), and a refit of the world model with them.
 */
export async function worldModelWarmup(t: Trainer): Promise<Warmup> {
  const { config, learning } = t;
  const n = t.method.warmupEpisodes;
  if (n === 0 || !learning.worldModel) return NO_WARMUP;
  t.onProgress?.(`warm-up: ${n} episodes of the starting policy for the world model`);
  const rng = new Rng(stepSeed(config.seed, 0, 'warmupOrder'));
  const order = rng.shuffle(Array.from({ length: t.pool.specs.length }, (_, i) => i));
  const groups = Array.from({ length: n }, (_, slot) => ({ slot, spec: t.pool.specs[order[slot % order.length]!]! }));
  const noise = noiseSpec(config, stepSeed(config.seed, 0, 'warmupNoise'));
  const ran = await executeGroups(t, 0, groups, 1, noise);
  commitExecuted(t, ran);
  t.onProgress?.(`refitting the world model with the warm-up episodes (${config.worldModel.refitEpochs} epochs)`);
  await refitWorldModel(
    learning.worldModel,
    config.worldModel,
    t.modelData,
    learning.anchorModelEpisodes,
    stepSeed(config.seed, 0, 'refit'),
  );
  return { episodes: ran.real?.episodes.length ?? 0, robotSeconds: ran.robotSeconds };
}
