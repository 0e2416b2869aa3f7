/**
 * Configuration of `wmrl train`: WMRL post-training and its baselines/ablations (docs/design.md). Every default is
 * the quickstart's (configs/train/quickstart.yaml), so a preset states only how it differs; where the paper's value
 * differs, the key's text names it.
 */
import { z } from 'zod';
import { BACKEND_NAMES } from '../../backend/selectBackend.ts';
import type { ImagineOptions } from '../../worldmodel/imagine.ts';
import { SCORE_RULES } from '../../worldmodel/scoreRules.ts';
import type { NoiseSpec } from '../../policy/rolloutNoise.ts';

export const TRAIN_MODES = ['wmrl', 'real', 'wm-only'] as const;

export const wmrlConfigSchema = z
  .object({
    mode: z
      .enum(TRAIN_MODES)
      .default('wmrl')
      .describe(
        'wmrl (imagination + anchors) | real (every group executed: GRPO on ' +
          'the environment, the baseline) | wm-only (no anchors, no correction)',
      ),
    debias: z
      .boolean()
      .default(true)
      .describe('online debiasing: world-model scores corrected by an isotonic map fitted on anchor pairs'),
    denoise: z
      .union([z.boolean(), z.enum(['anchor', 'ensemble'])])
      .default(true)
      .describe(
        'inverse-variance denoising: true, both the anchor-group weight and the per-rollout ensemble ' +
          "weights; 'anchor' or 'ensemble', that one alone (ablations); false, neither",
      ),
    refit: z
      .boolean()
      .default(true)
      .describe('anchor episodes join the world model data; the model is refitted every worldModel.refitEvery steps'),
    steps: z.number().int().min(1).default(12).describe('training steps (minutes on 2 cores at the defaults)'),
    groups: z
      .number()
      .int()
      .min(1)
      .default(32)
      .describe(
        'G: groups per step (one instruction + one start each); imagined groups cost compute, not robot time, ' +
          'so many of them carry the learning while a few run for real',
      ),
    rolloutsPerGroup: z.number().int().min(2).default(8).describe('M: rollouts per group'),
    anchorFraction: z
      .number()
      .min(0)
      .max(1)
      .default(0.03)
      .describe(
        'fraction of groups executed for real (uniformly at random); with minAnchorGroups, one group of 32 ' +
          '(paper: 0.1)',
      ),
    minAnchorGroups: z.number().int().min(0).default(1).describe('floor on anchor groups per step (wmrl mode)'),
    anchorEvery: z
      .number()
      .int()
      .min(1)
      .default(2)
      .describe(
        'wmrl mode: anchor groups run on every k-th step only (steps 1, 1 + k, …); the steps between ' +
          'imagine every group and spend no robot time. 1: every step (the paper)',
      ),
    tasks: z
      .string()
      .default('all')
      .describe(
        'task selectors post-trained on (a family, or several joined by commas; `wmrl tasks` lists them): ' +
          "group starts are drawn from the data's train-split episodes of these tasks",
      ),
    horizon: z
      .number()
      .int()
      .min(1)
      .default(16)
      .describe(
        'imagination horizon (control steps): long enough that outcomes are decided, short enough to stay true',
      ),
    score: z
      .enum(SCORE_RULES)
      .default('keyframes')
      .describe(
        "world-model score of a rollout: 'keyframes', the gripper's closeness to the demonstrations' keyframes at " +
          "the rollout's own events (where its command closes, opens, and its end; needs worldModel.keyframes), " +
          "the one rule for every task family; 'final', the success probability of its final state; 'max', the " +
          "best over its steps; 'progress', the predicted task progress of its final state",
      ),
    isotonic: z
      .object({
        bins: z.number().int().min(1).default(10),
        minPairs: z
          .number()
          .int()
          .min(1)
          .default(32)
          .describe('identity map below this many anchor pairs (paper: 200; a short run sees about 100)'),
        refitEvery: z.number().int().min(1).default(16).describe('refit after this many new pairs (paper: 64)'),
        window: z.number().int().min(1).default(2000).describe('newest pairs kept (paper: 5000)'),
        orderSlope: z
          .number()
          .min(0)
          .default(0.001)
          .describe(
            'slope added to the fitted map so it is strictly increasing: where pooling flattened it, ' +
              "a group's rollouts keep the world model's order instead of tying (which zeroes " +
              "or inflates their advantages); levels move by at most slope/2. 0: the paper's map",
          ),
      })
      .strict()
      .prefault({}),
    anchorWeight: z
      .object({
        halfLife: z
          .number()
          .positive()
          .default(16)
          .describe('half-life of the s² moving average, in anchor groups (paper: 64; a short run sees few)'),
        calibrationGroups: z
          .number()
          .int()
          .min(1)
          .default(4)
          .describe('anchor groups observed before c is fixed so that w = 2 (paper: 32)'),
        maxWeight: z.number().min(1).default(4),
      })
      .strict()
      .prefault({}),
    ppiWindow: z
      .number()
      .int()
      .min(1)
      .default(8)
      .describe(
        "anchor groups, this step's and the latest steps', whose prediction errors rectify the step's PPI " +
          "estimate of the true success rate (1: the step's own only, an interval near [0, 1] with one " +
          'anchor group); a measurement, it changes no update',
      ),
    ppiHalfLife: z
      .number()
      .min(0)
      .default(2)
      .describe(
        "steps over which a window group's weight in the PPI estimate halves: the world model's " +
          "error on a fast-improving policy drifts, and older groups' errors lag it (0: equal weights)",
      ),
    uncertaintyPenalty: z
      .number()
      .min(0)
      .default(0)
      .describe(
        "each imagined rollout's score less this many standard deviations of the world-model ensemble's " +
          "scores of it, before the group's advantages (MOPO's penalty): a rollout the members disagree on " +
          'ranks lower, so the policy is pulled less to where the model may be wrong (0: off)',
      ),
    imaginedWeight: z
      .number()
      .min(0)
      .max(1)
      .default(1)
      .describe(
        'wmrl mode: the weight λ of one imagined policy sample relative to one real sample (1: imagined and ' +
          "real samples count alike, the paper's form; 0: imagined samples are left out)",
      ),
    sigma0Squared: z.number().positive().default(0.01).describe('σ₀² in the per-rollout ensemble weights 1/(σ² + σ₀²)'),
    ppo: z
      .object({
        epochs: z.number().int().min(1).default(2),
        minibatches: z
          .number()
          .int()
          .min(1)
          .default(4)
          .describe(
            'minibatches per epoch: the same number of updates per step ' +
              'whatever the sample count (fair between imagined and real-only runs)',
          ),
        learningRate: z
          .number()
          .positive()
          .default(1e-4)
          .describe(
            "Adam's step: it moves every weight by about this much per update whatever the gradient's " +
              "size, so the whole network's output moves coherently; watch the KL in the metrics",
          ),
        clip: z.number().positive().default(0.2),
        klCoef: z.number().min(0).default(0.1).describe('weight of KL(π ‖ π_BC)'),
        noiseCorrelation: z
          .number()
          .min(0)
          .max(1)
          .default(0)
          .describe(
            'step-to-step correlation ρ of the exploration noise (AR(1), marginal std `std`): ' +
              '0 draws afresh every control step; near 1 holds one offset per episode (src/policy/rolloutNoise.ts)',
          ),
        std: z
          .number()
          .min(0)
          .default(0.1)
          .describe(
            'action noise standard deviation (normalised units) at the start of RL, set on the policy ' +
              "and the KL reference alike; 0 keeps the policy's own. Behaviour cloning fits only the mean, " +
              "so the std is an exploration choice: too small and a group's rollouts do not differ, " +
              'too large and most sampled episodes fail',
          ),
      })
      .strict()
      .prefault({}),
    worldModel: z
      .object({
        refitEvery: z
          .number()
          .int()
          .min(1)
          .default(2)
          .describe('steps between world-model refits on data + anchors: fresher anchors rank the policy better'),
        refitEpochs: z.number().int().min(1).default(2).describe('epochs of each warm-started refit'),
        refitSteps: z
          .number()
          .int()
          .min(0)
          .default(20)
          .describe(
            "cap on a refit epoch's optimiser steps (0: the world model's own train.maxStepsPerEpoch). A " +
              'refit is the only expensive part of a step: bounded, it costs a fixed few seconds however ' +
              'much data there is',
          ),
        replayEpisodes: z
          .number()
          .int()
          .min(0)
          .default(64)
          .describe(
            "each refit trains on this many of the world model's data episodes, drawn afresh (seeded) for " +
              'every refit, plus all the anchor episodes (0: all the data). With refitSteps it makes ' +
              "refits incremental: the anchors are a large share of every batch, the replay keeps the model's " +
              'fit to the data it was trained on',
          ),
        endEffector: z
          .boolean()
          .default(true)
          .describe(
            "append the end effector's position (forward kinematics of the joint positions, from the robot " +
              "description) to the world model's state: a scene score head (world-model scoreHead: scene, " +
              'configs/wm/perception.yaml) then sees where the gripper is instead of inferring it from joint ' +
              'angles. A world model trained without it cannot be loaded with it, and the other way round',
          ),
        keyframes: z
          .boolean()
          .default(true)
          .describe(
            "with endEffector, also append where the data's successful demonstrations had the gripper at each of " +
              'their events (its command closing, opening, the end), read from the first frame by a ridge ' +
              'regression per family fitted when the world model is trained, minus the end effector: what score ' +
              "'keyframes' ranks by. Needs nothing but joint states, actions and outcomes. docs/worldmodel.md",
          ),
        warmupEpisodes: z
          .number()
          .int()
          .min(0)
          .default(16)
          .describe(
            'wmrl mode: before the first step, this many episodes of the starting ' +
              'policy run on the environment from distinct starts (charged as robot time, ' +
              'stored with the anchors) and the world model is refitted with them. ' +
              "A model fitted on demonstrations has never seen the policy's own near misses",
          ),
      })
      .strict()
      .prefault({}),
    eval: z
      .object({
        every: z
          .number()
          .int()
          .min(1)
          .default(4)
          .describe('steps between held-out evaluations (also at the start and the end)'),
        episodes: z
          .number()
          .int()
          .min(1)
          .default(30)
          .describe('real evaluation episodes (not charged as training robot time)'),
        split: z.enum(['train', 'test']).default('test'),
        tasks: z.string().default('all').describe('task selectors evaluated (as tasks; families take turns)'),
        keepPolicies: z
          .boolean()
          .default(false)
          .describe(
            'save the policy of every held-out evaluation after the start in <run>/evaluated/step-<n>, ' +
              'so a checkpoint can be chosen or re-evaluated afterwards (the run keeps only its last otherwise)',
          ),
      })
      .strict()
      .prefault({}),
    imaginationCheckGroups: z
      .number()
      .int()
      .min(0)
      .default(0)
      .describe(
        'at the start and at each evaluation, imagine this many groups and execute the same ' +
          'rollouts with the same exploration noise: the within-group AUC of imagined scores against ' +
          'real outcomes says whether imagination can teach (0: off; measurement, not charged)',
      ),
    ppiCheckEpisodes: z
      .number()
      .int()
      .min(0)
      .default(0)
      .describe(
        'at each evaluation, check the PPI interval against this many real ' +
          'episodes of the sampling policy (0: off; measurement, not charged)',
      ),
    outcome: z
      .object({
        source: z
          .enum(['environment', 'operator', 'detector'])
          .default('environment')
          .describe(
            "where anchor outcomes come from: 'environment', the simulator or the robot's task-status service; " +
              "'operator', a person's label in the viewer or the terminal (docs/operator.md); " +
              "'detector', a learned success detector (wmrl train --outcome detector --detector DIR), for a " +
              'robot without one, with operator spot checks correcting its bias (docs/success.md)',
          ),
        spotChecks: z
          .number()
          .min(0)
          .max(1)
          .default(0.1)
          .describe('with the detector: share of anchor episodes (random, seeded) sent to the operator'),
        spotCheckOperator: z
          .enum(['auto', 'simulated', 'desk'])
          .default('auto')
          .describe(
            "with the detector, who answers the spot checks: 'desk', a person in the viewer or the terminal " +
              "(docs/operator.md); 'simulated', the simulator's own outcome (the simulator only); " +
              "'auto', simulated in the simulator, the desk on a robot",
          ),
        window: z.number().int().min(1).default(200).describe('with the detector: newest spot checks kept'),
        minChecks: z
          .number()
          .int()
          .min(1)
          .default(4)
          .describe('with the detector: spot checks before its bias is corrected and drift can be flagged'),
        driftTolerance: z
          .number()
          .min(0)
          .max(1)
          .default(0.15)
          .describe(
            "with the detector: drift is flagged when the spot checks' 95% interval puts its bias beyond " +
              '±this, or its error rate above the held-out one by more than this',
          ),
      })
      .strict()
      .prefault({}),
    operator: z
      .object({
        labelTimeout: z
          .number()
          .min(0)
          .default(0)
          .describe("outcome operator: seconds a step waits for its anchors' labels (0: for as long as it takes)"),
        onTimeout: z
          .enum(['skip', 'stop'])
          .default('skip')
          .describe(
            "outcome operator, at the label timeout: 'skip', the unlabelled episodes' groups are left out of " +
              "the update (never trained on); 'stop', the run stops and --resume asks again",
          ),
      })
      .strict()
      .prefault({}),
    seed: z.number().int().default(0),
    backend: z.enum(BACKEND_NAMES as unknown as [string, ...string[]]).default('auto'),
  })
  .strict();

export type WmrlConfig = z.infer<typeof wmrlConfigSchema>;

/**
 * Keys removed from the schema with the experiments they served (docs/lab/README.md), and the value today's code
 * behaves as (`null`: read only together with another removed key's other value, never a difference on its own). A
 * config recorded before their removal (a run's train.config.json) reads as today's where it recorded those values.
 */
export const REMOVED_KEYS: Readonly<Record<string, unknown>> = {
  debiasMap: 'isotonic',
  contextual: null,
  activeAnchors: 0,
  'branch.fraction': 0,
  'branch.recentEpisodes': null,
  'branch.beforeClose': null,
  imaginationTrainsGripper: true,
  imaginedAdvantage: 'std',
  imagineFromStep: 1,
  anchorUpdateFirst: false,
  trust: null,
  realEpisodeSteps: 0,
  'worldModel.scoreRefitEvery': 0,
  'worldModel.anchorRepeat': 1,
  'worldModel.warmupStd': 0,
  'worldModel.warmupRefitEpochs': 0,
  'worldModel.goal': 'none',
  'worldModel.object': 'none',
  'worldModel.goalFrom': null,
};

/** Whether a recorded key since removed (dotted) recorded what today's code behaves as (see REMOVED_KEYS). */
export function removedAsToday(key: string, value: unknown): boolean {
  const entry = Object.keys(REMOVED_KEYS).find((r) => key === r || key.startsWith(`${r}.`));
  if (entry === undefined) return false;
  return REMOVED_KEYS[entry] === null || JSON.stringify(REMOVED_KEYS[entry]) === JSON.stringify(value);
}

/** A recorded config without the removed keys that recorded what today's code behaves as (the others stay). */
export function withoutRemovedKeys(recorded: unknown, prefix = ''): unknown {
  if (recorded === null || typeof recorded !== 'object' || Array.isArray(recorded)) return recorded;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(recorded)) {
    const path = `${prefix}${key}`;
    if (removedAsToday(path, value)) continue;
    const inner = withoutRemovedKeys(value, `${path}.`);
    if (
      inner !== null &&
      typeof inner === 'object' &&
      !Array.isArray(inner) &&
      Object.keys(inner).length === 0 &&
      Object.keys(value as object).length > 0
    )
      continue;
    out[key] = inner;
  }
  return out;
}

/** The exploration noise of a batch of rollouts drawn under `seed` (imagined and executed alike). */
export function noiseSpec(config: WmrlConfig, seed: number): NoiseSpec {
  return { seed, correlation: config.ppo.noiseCorrelation };
}

/** How imagination runs and scores rollouts under this config. */
export function imagineOptions(config: WmrlConfig): ImagineOptions {
  return { rule: config.score };
}
