/**
 * `wmrl pretrain`: behaviour cloning of the VLA policy from expert demonstrations. Only the
 * train split is used (test instructions stay unseen); only expert episodes recorded with
 * little action noise, and by default only successful ones.
 */
import { concatFloat32 as concat } from '../core/arrays.ts';
import type { RobotDescription } from '../core/robotDescription.ts';
import type { Episode } from '../core/types.ts';
import { Rng } from '../core/rng.ts';
import { PatchDecoder, PatchEncoder } from '../vision/patchCodec.ts';
import { framesToFloat } from '../vision/frames.ts';
import { Normalizer } from '../nn/normalizer.ts';
import { trainAutoencoder } from '../vision/trainAutoencoder.ts';
import { splitEpisodes } from '../data/splitEpisodes.ts';
import { buildBcSamples } from './bcDataset.ts';
import { type PolicyConfig, policyCamera } from './policyConfig.ts';
import { firstCamera } from '../core/firstCamera.ts';
import { episodeProprio, recordedMiss, recordedNoise } from './policyInputs.ts';
import { Tokenizer } from './tokenizer.ts';
import { taskFamily } from '../tasks/families.ts';
import { heldOutColoursMissing, type MissingColour } from './vocabularyCoverage.ts';
import { trainBc, type BcEpoch } from './trainBc.ts';
import { VlaPolicy, encoderConfig, usesPatchEncoder } from './vlaPolicy.ts';

export interface PretrainHooks {
  onStage?: (stage: 'encoder' | 'bc') => void;
  onStep?: (step: number, steps: number, epoch: number) => void;
  onEpoch?: (stage: 'encoder' | 'bc', m: Record<string, unknown>) => void;
  /** After each behaviour-cloning epoch that improved on validation: the policy holds the best weights so far. */
  onBest?: (policy: VlaPolicy, epoch: number) => Promise<void>;
  signal?: AbortSignal;
}

export interface PretrainReport {
  episodesUsed: number;
  episodesSkipped: number;
  /** Why the skipped episodes were not cloned: `reason (N episodes)`, most common first. */
  skippedBecause: string[];
  trainEpisodes: number;
  validationEpisodes: number;
  samples: number;
  encoder: 'given' | 'trained' | 'none';
  /** Held-out colours of the cloned families that no training instruction names: <unk> to the policy. */
  missingColours: MissingColour[];
  bc: BcEpoch[];
  bestEpoch: number;
  parameters: number;
  encoderParameters: number;
  seconds: number;
}

/** Who records demonstrations: the scripted expert (`expert…`) and imported datasets (`lerobot:…`), whoever
 * recorded those. The random controller and learned policies (their evaluations, training rollouts) do not. */
const DEMONSTRATORS = /^(expert|lerobot:)/;

/**
 * Why an episode is not cloned under the config, or undefined when it is a demonstration to clone. An expert
 * recorded with deliberate misses (`wmrl collect --miss`, world-model data) is never cloned: its grasps were aimed
 * off the block on purpose, some still lifting it.
 */
export function demonstrationExclusion(e: Episode, config: PolicyConfig): string | undefined {
  if (e.status !== 'complete') return `aborted (${e.status})`;
  if (e.steps === 0) return 'no steps';
  if (e.task.split !== 'train') return `test split: '${e.task.instruction}' is held out for evaluation`;
  if (!DEMONSTRATORS.test(e.policy))
    return `recorded by '${e.policy}': demonstrations come from the scripted expert or an imported dataset`;
  if (recordedNoise(e.policy) > config.bc.maxNoise)
    return `expert with action noise ${recordedNoise(e.policy)} > bc.maxNoise ${config.bc.maxNoise}`;
  if (recordedMiss(e.policy) > 0) return 'expert aiming its grasps off the block on purpose (--miss)';
  // A recording that says nothing of success (a LeRobot dataset without next.success, not labelled) is taken for
  // what its recorder meant it to be: a demonstration. `wmrl label DIR` marks the failures among them.
  if (config.bc.successOnly && !e.success && !e.successUnknown) return 'not successful (bc.successOnly)';
  return undefined;
}

/** Episodes fit for cloning under the config (demonstrationExclusion says why the others are not). Recordings
 * without success information (`successUnknown`) count as demonstrations unless a label says otherwise. */
export function selectDemonstrations(episodes: Episode[], config: PolicyConfig): Episode[] {
  return episodes.filter((e) => demonstrationExclusion(e, config) === undefined);
}

/** The reasons episodes are not cloned, most common first: `reason (N episodes)`. */
export function exclusionSummary(episodes: Episode[], config: PolicyConfig): string[] {
  const counts = new Map<string, number>();
  for (const e of episodes) {
    const why = demonstrationExclusion(e, config);
    if (why !== undefined) counts.set(why, (counts.get(why) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => b[1] - a[1]).map(([why, n]) => `${why} (${n} episode${n === 1 ? '' : 's'})`);
}

export async function pretrainPolicy(
  episodes: Episode[],
  requested: PolicyConfig,
  /** `robot`: the demonstrations' robot (default: robots/<their recorded name>). */
  options: { encoder?: PatchEncoder; hooks?: PretrainHooks; robot?: RobotDescription } = {},
): Promise<{ policy: VlaPolicy; report: PretrainReport }> {
  const started = performance.now();
  const hooks = options.hooks ?? {};
  const demos = selectDemonstrations(episodes, requested);
  if (demos.length < 2) {
    const why = exclusionSummary(episodes, requested).slice(0, 5);
    throw new Error(
      `only ${demos.length} usable demonstration${demos.length === 1 ? '' : 's'} of ${episodes.length} episodes; ` +
        `not cloned:\n  ${why.join('\n  ')}\n` +
        'record more (wmrl collect --policy expert --split train, or import a dataset: docs/lerobot.md)',
    );
  }
  // A config naming no camera sees the robot's first; the checkpoint records which.
  const camera = requested.encoder.camera ?? firstCamera(demos, 'the policy');
  const config: PolicyConfig = { ...requested, encoder: { ...requested.encoder, camera } };
  const rng = new Rng(config.seed);
  const split = splitEpisodes(demos.length, config.bc.validationFraction, (xs) => rng.shuffle(xs));
  const trainEps = demos.filter((_, i) => split.train.has(i));
  const valEps = demos.filter((_, i) => split.validation.has(i));
  let encoder = options.encoder;
  if (!encoder && usesPatchEncoder(config)) {
    hooks.onStage?.('encoder');
    encoder = await trainEncoder(trainEps, valEps, config, hooks);
  }
  const tokenizer = Tokenizer.fromTexts(
    trainEps.map((e) => e.task.instruction),
    config.maxTokens,
  );
  const proprioRows = trainEps.map((e) => episodeProprio(e));
  const P = 2 * trainEps[0]!.qposDim;
  const proprio = Normalizer.fitStats(concat(proprioRows), P);
  const policy = new VlaPolicy(
    config,
    {
      actionDim: trainEps[0]!.actionDim,
      proprioDim: P,
      tokenizer: tokenizer.toJSON(),
      proprio,
      families: [...new Set(demos.map((e) => e.task.family))].sort(),
    },
    encoder,
  );
  try {
    const camera = policyCamera(config);
    const imageSize = policy.config.encoder.imageSize;
    const actionChunk = config.actionChunk;
    const train = buildBcSamples(tokenizer, trainEps, {
      camera,
      imageSize,
      shiftAugment: config.bc.shiftAugment,
      actionChunk,
      robot: options.robot,
    });
    const validation = valEps.length
      ? buildBcSamples(tokenizer, valEps, { camera, imageSize, shiftAugment: false, actionChunk, robot: options.robot })
      : undefined;
    hooks.onStage?.('bc');
    const bc = await trainBc(policy, train, validation, {
      epochs: config.bc.epochs,
      batchSize: config.bc.batchSize,
      learningRate: config.bc.learningRate,
      patience: config.bc.patience,
      wordDropout: config.bc.wordDropout,
      auxWeight: config.bc.auxWeight,
      imageWeight: config.bc.imageWeight,
      seed: config.seed,
      onStep: hooks.onStep,
      onEpoch: (m) => hooks.onEpoch?.('bc', { ...m }),
      onBest: hooks.onBest ? (epoch) => hooks.onBest!(policy, epoch) : undefined,
      signal: hooks.signal,
    });
    const report: PretrainReport = {
      episodesUsed: demos.length,
      episodesSkipped: episodes.length - demos.length,
      skippedBecause: exclusionSummary(episodes, config),
      trainEpisodes: trainEps.length,
      validationEpisodes: valEps.length,
      samples: train.count,
      encoder: options.encoder ? 'given' : encoder ? 'trained' : 'none',
      missingColours: heldOutColoursMissing(
        tokenizer.vocab,
        trainEps.map((e) => taskFamily(e.task.family)),
      ),
      bc: bc.history,
      bestEpoch: bc.bestEpoch,
      parameters: policy.parameterCount,
      encoderParameters: policy.encoderParameterCount,
      seconds: (performance.now() - started) / 1000,
    };
    return { policy, report };
  } catch (err) {
    policy.dispose();
    throw err;
  }
}

/** Without a world model's encoder: train the patch encoder as an autoencoder on the demos' frames. */
async function trainEncoder(
  trainEps: Episode[],
  valEps: Episode[],
  config: PolicyConfig,
  hooks: PretrainHooks,
): Promise<PatchEncoder> {
  const codec = encoderConfig(config);
  const encoder = new PatchEncoder(codec);
  const decoder = new PatchDecoder(codec);
  try {
    const frames = (eps: Episode[]) =>
      eps.map((e) => {
        const cam = e.cameras[policyCamera(config)];
        if (!cam) throw new Error(`episode ${e.id} has no '${policyCamera(config)}' camera`);
        return framesToFloat(cam.frames, cam.width, cam.height, codec.imageSize);
      });
    const trainFrames = concat(frames(trainEps));
    const valFrames = concat(frames(valEps));
    const all = concat([trainFrames, valFrames]);
    const frameSize = codec.imageSize ** 2 * 3;
    const nTrain = trainFrames.length / frameSize;
    const nAll = all.length / frameSize;
    await trainAutoencoder(encoder, decoder, all, range(0, nTrain), range(nTrain, nAll), {
      epochs: config.encoder.epochs,
      batchSize: 64,
      learningRate: 2e-3,
      seed: config.seed,
      onStep: hooks.onStep,
      onEpoch: (m) => hooks.onEpoch?.('encoder', m),
      signal: hooks.signal,
    });
    return encoder;
  } catch (err) {
    encoder.dispose();
    throw err;
  } finally {
    decoder.dispose();
  }
}

function range(a: number, b: number): number[] {
  return Array.from({ length: b - a }, (_, i) => a + i);
}
