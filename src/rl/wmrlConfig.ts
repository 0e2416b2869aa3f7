/** Configuration of `wmrl train`: WMRL post-training and its baselines/ablations (docs/design.md). */
import { z } from 'zod';
import { contextualOptionsSchema } from './contextualCorrection.ts';
import { BACKEND_NAMES } from '../backend/selectBackend.ts';
import { type ImagineOptions, SCORE_RULES } from '../worldmodel/imagine.ts';
import type { NoiseSpec } from '../policy/rolloutNoise.ts';
import { GOAL_SOURCES } from '../worldmodel/goalLabels.ts';

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
      .describe('online debiasing: world-model scores corrected on anchor pairs (debiasMap says how)'),
    debiasMap: z
      .enum(['isotonic', 'contextual'])
      .default('isotonic')
      .describe(
        "how scores are debiased: 'isotonic', a pooled monotone map of the score (the paper's, see isotonic); " +
          "'contextual', a ridge regression of the error on the task context and the rollout's mean action " +
          '(see contextual), which can reorder a group',
      ),
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
    steps: z.number().int().min(1).default(20).describe('training steps'),
    groups: z.number().int().min(1).default(8).describe('G: groups per step (one instruction + one start each)'),
    rolloutsPerGroup: z.number().int().min(2).default(8).describe('M: rollouts per group'),
    realEpisodeSteps: z
      .number()
      .int()
      .min(0)
      .default(0)
      .describe(
        'every executed training episode (anchors, real-only groups, the warm-up) ends after this many ' +
          'control steps unless the task ended it sooner, its outcome as it stands then; held-out ' +
          "evaluations still run to the task's horizon. 0: the horizon",
      ),
    anchorFraction: z
      .number()
      .min(0)
      .max(1)
      .default(0.1)
      .describe('fraction of groups executed for real (uniformly at random)'),
    minAnchorGroups: z.number().int().min(0).default(1).describe('floor on anchor groups per step (wmrl mode)'),
    anchorEvery: z
      .number()
      .int()
      .min(1)
      .default(1)
      .describe(
        'wmrl mode: anchor groups run on every k-th step only (steps 1, 1 + k, …); the steps between ' +
          'imagine every group and spend no robot time. 1: every step',
      ),
    activeAnchors: z
      .number()
      .int()
      .min(0)
      .default(0)
      .describe(
        'wmrl mode: extra anchor groups per step drawn where the world-model ' +
          'ensemble disagrees most (πps sampling, inclusion probabilities recorded; ' +
          'the PPI estimate is then importance-weighted). 0: uniform anchors only',
      ),
    tasks: z
      .string()
      .default('all')
      .describe(
        "task selectors post-trained on (e.g. 'reach' or 'reach,pick'): " +
          "group starts are drawn from the data's train-split episodes of these tasks",
      ),
    horizon: z.number().int().min(1).default(30).describe('imagination horizon (control steps)'),
    score: z
      .enum(SCORE_RULES)
      .default('final')
      .describe(
        'world-model score of a rollout: success probability of its final state, the best over its ' +
          "steps ('max' ranks noisy failures high), the predicted task progress of its final state, or, " +
          "computed from its final state's object numbers (needs worldModel.object), pick's progress ('object') " +
          "or the gripper's closeness to the object ('objectDistance'), or that closeness where the gripper first " +
          "closes ('grasp': pick's misses close too high)",
      ),
    terminateAt: z
      .number()
      .gt(0)
      .max(1)
      .optional()
      .describe(
        'end an imagined rollout, as the environment ends an episode at success, ' +
          "once its member's predicted success probability reaches this (its state then holds " +
          'and its later steps are not policy samples); unset: imagine the whole horizon',
      ),
    contextual: contextualOptionsSchema.prefault({}),
    isotonic: z
      .object({
        bins: z.number().int().min(1).default(10),
        minPairs: z
          .number()
          .int()
          .min(1)
          .default(200)
          .describe('identity map below this many anchor pairs (paper: 200)'),
        refitEvery: z.number().int().min(1).default(64).describe('refit after this many new pairs (paper: 64)'),
        window: z.number().int().min(1).default(5000).describe('newest pairs kept (paper: 5000)'),
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
          .default(64)
          .describe('half-life of the s² moving average, in anchor groups (paper: 64)'),
        calibrationGroups: z
          .number()
          .int()
          .min(1)
          .default(32)
          .describe('anchor groups observed before c is fixed so that w = 2 (paper: 32)'),
        maxWeight: z.number().min(1).default(4),
      })
      .strict()
      .prefault({}),
    branch: z
      .object({
        fraction: z
          .number()
          .min(0)
          .max(1)
          .default(0)
          .describe(
            "wmrl mode: share of the imagined groups that start from a real anchor rollout's state " +
              'at a random step (MBPO-style branches: the policy judged where its real rollouts go, ' +
              "each branch H steps from a real state) instead of an episode's first frame; 0: every imagined " +
              'group starts at an episode start. Branches begin once anchors exist; the PPI estimate ' +
              'uses the start groups only (and is not made in a step with active anchors and branches)',
          ),
        recentEpisodes: z
          .number()
          .int()
          .min(1)
          .default(64)
          .describe('branches start from the newest this many anchor episodes'),
        beforeClose: z
          .boolean()
          .default(false)
          .describe(
            "true: branches start no later than the step where the anchor rollout's gripper command first " +
              'closes (pick with `score: grasp`: after it every branch of a group scores where the real one ' +
              'closed, so the group teaches nothing)',
          ),
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
          "error on a fast-improving policy drifts, and older groups' errors lag it (0: equal weights; " +
          'benchmark, reach: 67 of 70 checks covered the truth at 2, 10 seeds; 29 of 35 at 0, 5 seeds)',
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
    imaginationTrainsGripper: z
      .boolean()
      .default(true)
      .describe(
        "false: imagined rollouts train the arm's action dims only, the gripper command (the last) is left " +
          'out of their log-probabilities; real rollouts train every dim. On pick the world model predicts the ' +
          'fingers stopping on the block whether they close on it or on nothing (docs/benchmarks.md, session 42): ' +
          'imagination can rank an approach, not a grasp',
      ),
    imaginedAdvantage: z
      .enum(['std', 'centered'])
      .default('std')
      .describe(
        "imagined groups' advantages: 'std' standardises within the group (GRPO); " +
          "'centered' only subtracts the group mean (Dr. GRPO), so a flat " +
          'calibration map gives small advantages instead of amplified noise',
      ),
    imaginedWeight: z
      .union([z.literal('trust'), z.number().min(0).max(1)])
      .default('trust')
      .describe(
        'wmrl mode: the weight λ of one imagined policy sample relative to one real sample. ' +
          "'trust': λ = clip(2·AUC − 1, 0, 1), the within-group AUC of anchor groups imagined with " +
          'the noise they were executed with (a moving average, see trust); a number fixes λ (1: ' +
          "imagined and real samples count alike, the paper's form). wm-only mode uses 1 for 'trust'",
      ),
    imagineFromStep: z
      .number()
      .int()
      .min(1)
      .default(1)
      .describe(
        'wmrl mode: the first step whose imagined groups train the policy; the steps before it learn from ' +
          'their anchor groups alone (GRPO on the environment with the anchor groups), while the anchors still ' +
          'refit the world model and its correction. On reach (cut at 16, fresh seeds) 5 or 9 took one real ' +
          "group's early lead and ended 6 points lower, no sooner to the target (docs/benchmarks.md). " +
          '1: imagination from the start',
      ),
    anchorUpdateFirst: z
      .boolean()
      .default(false)
      .describe(
        'wmrl mode: each step first updates the policy on its anchor groups alone (their plain GRPO ' +
          'advantages, as GRPO on the environment with those groups would), then on every sample, imagined ' +
          "and real. In the joint update the anchors' signal is a small share of a few Adam steps; alone it " +
          'gets Adam steps of its own. On reach (cut at 16, 10 fresh seeds) no sooner to the target than ' +
          'without it, 2 points lower at 200 robot-s (docs/benchmarks.md)',
      ),
    imaginedKlLimit: z
      .number()
      .positive()
      .optional()
      .describe(
        "wmrl mode: imagined samples train the policy until the update's KL(π ‖ π_BC) first exceeds this; " +
          'from the next step on only the anchors do (no imagining, no refits unless imaginationRestartAfter). ' +
          "The world model is fit on the clone's data and is trusted near it: on pick, branched imagination " +
          'gained to KL ≈ 0.1 and ' +
          'then unlearned in every seed (docs/benchmarks.md). Absent: no limit',
      ),
    realGroupsAfterStop: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe(
        'with imaginedKlLimit: once imagination has stopped, every step runs this many groups and executes ' +
          'all of them (GRPO on the environment, as real mode) instead of the anchor groups alone: imagination ' +
          'took the policy as far as the world model holds, real rollouts carry it on. Absent: the anchors alone',
      ),
    minibatchesAfterStop: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe(
        'with imaginedKlLimit: once imagination has stopped, each update splits its samples into this many ' +
          'minibatches an epoch instead of ppo.minibatches: with realGroupsAfterStop below the real-only G, ' +
          "ppo.minibatches' fixed count makes each update a smaller share of fewer episodes. Absent: ppo.minibatches",
      ),
    learningRateAfterStop: z
      .number()
      .positive()
      .optional()
      .describe(
        "with imaginedKlLimit: once imagination has stopped, Adam's step is this instead of ppo.learningRate. " +
          "With realGroupsAfterStop = G/k, each update averages k times fewer episodes than real-only GRPO's; " +
          'a step k times smaller keeps the drift and the noise per robot second those of G groups. On pick ' +
          'a quarter or a half of the rate was later to the target (docs/benchmarks.md). Absent: ppo.learningRate',
      ),
    imaginationRestartAfter: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe(
        'with imaginedKlLimit: after a stop, this many steps train on real rollouts alone (refitting the world ' +
          "model on them), then imagination resumes until the KL to the clone passes the last update's KL plus " +
          'imaginedKlLimit, and so on (the loop of ME-TRPO and MBPO). Absent: imagination never resumes',
      ),
    trust: z
      .object({
        halfLife: z
          .number()
          .positive()
          .default(16)
          .describe('half-life of the moving AUC, in anchor groups with both outcomes'),
        priorPairs: z
          .number()
          .min(0)
          .default(16)
          .describe(
            'pseudo (success, failure) pairs at AUC 0.5: λ stays ' +
              'near 0 until the anchors show imagination ranks rollouts',
          ),
        confidence: z
          .number()
          .min(0)
          .default(0)
          .describe(
            "z of the lower bound AUC − z·se that λ is taken from (se: the spread of the anchor groups' " +
              'AUCs over their effective number; 0: the moving AUC itself). λ is per sample and a step ' +
              'imagines far more rollouts than it executes, so a small λ from an AUC within its noise ' +
              'of 0.5 still outweighs the anchors (pick benchmark, docs/benchmarks.md)',
          ),
      })
      .strict()
      .prefault({}),
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
              '0 draws afresh every control step; near 1 holds one offset per episode (src/rl/rolloutNoise.ts)',
          ),
        std: z
          .number()
          .min(0)
          .default(0.2)
          .describe(
            'action noise standard deviation (normalised units) at the start of RL, set on the policy ' +
              "and the KL reference alike; 0 keeps the policy's own. Behaviour cloning fits only the mean, " +
              "so the std is an exploration choice: too small and a group's rollouts do not differ, " +
              'too large and most sampled episodes fail (tiny reach: 0.37 → 12% sampled vs 92% deterministic)',
          ),
      })
      .strict()
      .prefault({}),
    worldModel: z
      .object({
        refitEvery: z.number().int().min(1).default(5).describe('steps between world-model refits on data + anchors'),
        refitEpochs: z.number().int().min(1).default(3).describe('epochs of each warm-started refit'),
        refitSteps: z
          .number()
          .int()
          .min(0)
          .default(0)
          .describe(
            "cap on a refit epoch's optimiser steps (0: the world model's own train.maxStepsPerEpoch). A " +
              'refit is the only expensive part of a step: bounded, it costs a fixed few seconds however ' +
              'much data there is',
          ),
        replayEpisodes: z
          .number()
          .int()
          .min(0)
          .default(0)
          .describe(
            "each refit trains on this many of the world model's data episodes, drawn afresh (seeded) for " +
              'every refit, plus all the anchor episodes (0: all the data). With refitSteps it makes ' +
              "refits incremental: the anchors are a large share of every batch, the replay keeps the model's " +
              'fit to the data it was trained on',
          ),
        scoreRefitEvery: z
          .number()
          .int()
          .min(0)
          .default(0)
          .describe(
            'steps between refits of the scene score head alone (world-model scoreHead: scene) on the data ' +
              '+ anchors, at steps without a full refit; 0: only with the full refit. A world model with the ' +
              "joint head has none and is refused. The head learns the policy's near misses from the anchors; " +
              "refitting it alone took about half the time of a full refit on the benchmark's set-up",
          ),
        anchorRepeat: z
          .number()
          .int()
          .min(1)
          .default(1)
          .describe(
            "each anchor episode appears this many times in a refit's data: the anchors are the only " +
              'episodes of the policy being trained, a few hundred against thousands of demonstrations ' +
              "and noisy-expert episodes, and the scene score head ranks the policy's rollouts only " +
              'once it has seen enough of them. Copies of one episode can fall on both sides of the ' +
              "refit's validation split, so its best-epoch choice then sees some training episodes",
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
        goal: z
          .enum(['none', 'localised', 'privileged'])
          .default('none')
          .describe(
            "with endEffector, also append the task's goal minus the end effector, so the scene score head " +
              "knows where the goal is: 'localised' reads it from the policy's perception of the episode's " +
              'first frame (a ridge regression per family fitted, when the world model is trained, on data whose ' +
              "privileged state holds the goal: simulator demonstrations); 'privileged' reads the simulator's " +
              'true goal (a probe: a robot over rosbridge reports none). docs/worldmodel.md',
          ),
        object: z
          .enum(['none', 'localised', 'localisedStart', 'privileged'])
          .default('none')
          .describe(
            "with endEffector, also append the instructed object minus the end effector and the object's lift " +
              "above where it started, so the scene score head sees a grasp and a lift (pick): 'localised' " +
              "reads it from each step's perception, gripper position and finger (a ridge regression per family " +
              'fitted, when the world model is trained, on data whose privileged state holds the object: ' +
              "simulator demonstrations); 'localisedStart' reads it so from the first step's and holds it (the block " +
              'before the gripper hides it: a better read of where the gripper closes, its lift always 0); ' +
              "'privileged' reads the simulator's object state (a probe: a robot over rosbridge reports none). " +
              'docs/worldmodel.md',
          ),
        goalFrom: z
          .enum(GOAL_SOURCES)
          .default('auto')
          .describe(
            "with goal 'localised', where the localiser learns each data episode's goal: 'state', the " +
              "privileged state's (simulator demonstrations); 'gripper', the gripper position where a successful " +
              "episode last succeeded (an arm's own demonstrations: joint states and outcomes are enough); 'auto', " +
              "the state's where an episode records it, else the gripper's",
          ),
        warmupEpisodes: z
          .number()
          .int()
          .min(0)
          .default(0)
          .describe(
            'wmrl mode: before the first step, this many episodes of the starting ' +
              'policy run on the environment from distinct starts (charged as robot time, ' +
              'stored with the anchors) and the world model is refitted with them. ' +
              "A model fitted on demonstrations has never seen the policy's own near misses",
          ),
        warmupStd: z
          .number()
          .min(0)
          .default(0)
          .describe(
            "with warmupEpisodes, the warm-up episodes' action noise std (normalised units; 0: ppo.std, the " +
              "policy's own). Wider than training's, the world model sees the policy's wide failures, not only " +
              'its near misses, before imagination starts. Every command still passes the safety filter. On ' +
              'reach 0.2 and 0.3 (training 0.1) reached the target no sooner (session 46)',
          ),
        warmupRefitEpochs: z
          .number()
          .int()
          .min(0)
          .default(0)
          .describe(
            "with warmupEpisodes, the warm-up refit's epochs (0: refitEpochs'), each bounded by refitSteps as " +
              "every refit is. The warm-up is the world model's first sight of the policy's own episodes; a refit " +
              'bounded for every other step gives them a few dozen optimiser steps among the replayed data. ' +
              'Costs compute, no robot time; on reach 20 instead of 2 reached the target no sooner (session 45)',
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
          .default(5)
          .describe('steps between held-out evaluations (also at the start and the end)'),
        episodes: z
          .number()
          .int()
          .min(1)
          .default(30)
          .describe('real evaluation episodes (not charged as training robot time)'),
        split: z.enum(['train', 'test']).default('test'),
        tasks: z
          .string()
          .default('all')
          .describe("task selectors evaluated (e.g. 'reach' or 'reach,pick'; families take turns)"),
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

/** The exploration noise of a batch of rollouts drawn under `seed` (imagined and executed alike). */
export function noiseSpec(config: WmrlConfig, seed: number): NoiseSpec {
  return { seed, correlation: config.ppo.noiseCorrelation };
}

/** How imagination runs and scores rollouts under this config. */
export function imagineOptions(config: WmrlConfig): ImagineOptions {
  return { rule: config.score, ...(config.terminateAt !== undefined ? { terminateAt: config.terminateAt } : {}) };
}
