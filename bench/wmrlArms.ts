/**
 * The WMRL benchmark's arms (bench/wmrlBench.ts), one record each: the `wmrl train` flags it adds to
 * the quickstart and its family's flags, how many steps it runs, whether it runs by default, and its
 * name and colour in the plot. The lists the benchmark reads are derived from the records.
 */
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolveConfig } from '../src/core/config.ts';
import { wmrlConfigSchema } from '../src/rl/wmrlConfig.ts';

interface Arm {
  /** The `wmrl train` flags it adds to the quickstart and its family's flags. */
  flags: string[];
  /** Runs the long arms' step count instead of the preset's (see below). */
  long?: boolean;
  /** Runs this many steps instead of the preset's. */
  steps?: number;
  /** Runs only when named (--arms): the full benchmark's time stays within its budget. */
  probe?: boolean;
  /** Takes one part away from the headline's WMRL arm (armFlags). */
  ablation?: boolean;
  /** Its name in the plot's legend (default: the arm's own). */
  label?: string;
  /** Its colour in the plot (default: the next spare one). */
  colour?: string;
  /** Imagines with a world model of its own, trained from this preset (`--wm-config`) on the set-up's data. */
  worldModel?: string;
  /**
   * The family's world-model-only data folders its world model learns from besides the demonstrations the clone
   * learned from (default: `mixed`, the noisy experts; [] for the demonstrations alone). Any other choice than
   * the default trains a world model of its own. The benchmark reports their robot time beside the arm's.
   */
  worldModelData?: string[];
  /**
   * The share of its executed robot time the benchmark counts (default 1): below 1 only for a ceiling
   * arm whose stand-in for imagination is executed in the simulator and so costs no robot time.
   */
  robotTimeCounted?: number;
}

// Every arm runs `steps`; the arms that spend at most one group of robot time per step (wmrl and
// imagine-8, one every other step; anchors-only, one every step) run `longSteps`: on reach 28 steps of
// one group cost about 450 robot-s, just under a third of real-only's ≈1470, so the whole budget the
// target allows is measured and no more. Ablations compare at `steps`. real-every-step runs 4 steps,
// evaluated after each (≈ 620 robot-s on reach): where the others are compared at equal robot time,
// its curve is measured, not interpolated.

// The baseline's preset: 8 groups a step, every rollout executed (the quickstart imagines 31 of 32).
export const REAL_ONLY = ['--config', 'configs/train/real-only.yaml'];
// Branched imagination, a refit every step, until the KL limit: the arms that differ only after the stop share it.
const BRANCH_REFIT1_KL_LIMIT = ['--branch.fraction=1', '--worldModel.refitEvery=1', '--imaginedKlLimit=0.1'];
// That, then 2 real groups a step, the world model told the localised block, the uncertainty penalty (session 38).
const REAL2_OBJECT_PENALTY = [
  ...BRANCH_REFIT1_KL_LIMIT,
  '--realGroupsAfterStop=2',
  '--worldModel.object=localised',
  '--uncertaintyPenalty=1',
];
// Branched, a refit every step, the localised block, the penalty, anchors every other step, the gripper's
// closeness to the block as the score, and no KL stop (session 41).
const NO_STOP_DISTANCE = [
  '--branch.fraction=1',
  '--worldModel.refitEvery=1',
  '--worldModel.object=localised',
  '--uncertaintyPenalty=1',
  '--anchorEvery=2',
  '--score=objectDistance',
];
// The same scored where the gripper first closes (session 47).
const NO_STOP_GRASP = [...NO_STOP_DISTANCE.filter((f) => !f.startsWith('--score=')), '--score=grasp'];

// In the order the benchmark lists them: the full benchmark's arms, then the probes.
const ARMS: Record<string, Arm> = {
  real: { flags: REAL_ONLY, label: 'real-only GRPO (G = 8)', colour: '#d62728' },
  wmrl: { flags: [], long: true, label: 'WMRL (32 groups a step, one real every other step)', colour: '#1f77b4' },
  // The quickstart with a world model of the demonstrations alone: the noisy experts it otherwise learns from too
  // (200 episodes, about 9300 steps over the three families) are set-up robot time the benchmark charges no arm.
  // Chosen before its first run (session 43). Seeds 0–4: 7.2× (the quickstart 15.3×), every seed crossing.
  'wmrl-demos-only': {
    flags: [],
    long: true,
    probe: true,
    worldModelData: [],
    label: 'WMRL, its world model from the demonstrations alone',
    colour: '#aec7e8',
  },
  // The quickstart with a world model of the demonstrations and a few noisy reach experts (reach's set-up only):
  // does world-model data pay for its robot time once that is charged? 20 and 40 episodes (the first 20 the
  // same), against the quickstart's 200 of every family. Chosen before their first runs (session 44).
  'wmrl-reach-data20': {
    flags: [],
    long: true,
    probe: true,
    worldModelData: ['mixed-reach-a'],
    label: 'WMRL, its world model + 20 noisy reach experts',
  },
  // WMRL with no robot time left uncharged: its world model learns from the demonstrations alone and first sees 16
  // of the clone's own episodes (`worldModel.warmupEpisodes`, counted as training robot time): the policy's near
  // misses, which demonstrations never show. Chosen before its first run (session 44) among three ways to spend
  // less set-up data; seeds 0–4 9.8×, fresh seeds 80–109 8.2× (6.8–9.8×), every seed crossing (5.5× on the mean
  // curve, which sags below the target after its first evaluation; session 45).
  'wmrl-demos-only-warm16': {
    flags: ['--worldModel.warmupEpisodes=16'],
    long: true,
    worldModelData: [],
    label: "WMRL, world model from the demonstrations, 16 of the clone's episodes first",
    colour: '#17becf',
  },
  // The warm-up arm's mean curve sags after its first evaluation (73.8% → 70.6% at step 12 over seeds 80–99) where
  // the quickstart's, whose world model saw 200 noisy experts, climbs. Three ways to keep it climbing at no robot
  // time, chosen before their first runs (session 45): the warm-up refit 20 epochs instead of 2 (its 16 episodes are
  // the model's only sight of the policy's own misses; 20 × 20 optimiser steps, a quarter of the model's first
  // training); MOPO's uncertainty penalty (α = 1, as on pick, not tuned), since a model that has seen few
  // failures may be exploited where it is unsure; every anchor episode four times in each refit (the policy's own
  // episodes against 64 replayed demonstrations). Seeds 0–4: 12.0×, 9.3×, 9.5× against 9.8×; the refit on fresh
  // seeds 100–109 7.3× against the warm-up arm's 6.9×, paired −0.7 points at 100 robot-s, and sags as it does.
  'wmrl-demos-only-warm16-refit20': {
    flags: ['--worldModel.warmupEpisodes=16', '--worldModel.warmupRefitEpochs=20'],
    long: true,
    probe: true,
    worldModelData: [],
    label: 'WMRL warm-up 16, its warm-up refit 10× longer',
    colour: '#2ca02c',
  },
  'wmrl-demos-only-warm16-penalty': {
    flags: ['--worldModel.warmupEpisodes=16', '--uncertaintyPenalty=1'],
    long: true,
    probe: true,
    worldModelData: [],
    label: 'WMRL warm-up 16, uncertainty penalty 1',
    colour: '#9467bd',
  },
  'wmrl-demos-only-warm16-repeat4': {
    flags: ['--worldModel.warmupEpisodes=16', '--worldModel.anchorRepeat=4'],
    long: true,
    probe: true,
    worldModelData: [],
    label: 'WMRL warm-up 16, anchors 4× in each refit',
    colour: '#8c564b',
  },
  // None of those three kept the curve up (seeds 0–4, fresh seeds 100–109 for the refit). What the runs show
  // instead: the warm-up arm's policy leaves the clone twice as fast as the quickstart's (KL to the clone at step 12
  // 1.0 against 0.37 on seed 85; 0.86 against 0.47 over seeds 80–109): a world model that has seen the
  // demonstrations and 16 near misses, but no wide failures, is exploited where it has not looked. The KL penalty
  // at 0.3 instead of 0.1 (chosen before its first run, session 45: roughly the 2.7-fold pull back that would hold
  // seed 85's KL near the quickstart's, were KL ∝ 1/β). Seeds 0–4: KL 0.25 at step 12 against 0.78, but a slower
  // climb: 7.6× against 9.8×.
  'wmrl-demos-only-warm16-kl03': {
    flags: ['--worldModel.warmupEpisodes=16', '--ppo.klCoef=0.3'],
    long: true,
    probe: true,
    worldModelData: [],
    label: 'WMRL warm-up 16, KL penalty 0.3',
    colour: '#e377c2',
  },
  // What did steady it: a world model that had seen wide failures (40 noisy reach experts, session 44). The warm-up
  // episodes run wider than training's std 0.1 show the clone's own wide failures at the warm-up's cost (charged);
  // 0.2 and 0.3 chosen before their first runs (session 46): twice and three times training's noise, where tiny
  // reach's sampled success falls steeply (0.37: 12%). Seeds 0–4: 137 ± 46 and 153 ± 61 robot-s to the target
  // against the warm-up arm's 123 ± 45 (6.2×, 5.6× against 6.9×), the policy as far from the clone at step 12 (KL
  // 0.78, 0.75 against 0.78): wider warm-up noise neither steadies the model nor reaches the target sooner.
  'wmrl-demos-only-warm16-std02': {
    flags: ['--worldModel.warmupEpisodes=16', '--worldModel.warmupStd=0.2'],
    long: true,
    probe: true,
    worldModelData: [],
    label: 'WMRL warm-up 16 at action noise 0.2',
    colour: '#bcbd22',
  },
  'wmrl-demos-only-warm16-std03': {
    flags: ['--worldModel.warmupEpisodes=16', '--worldModel.warmupStd=0.3'],
    long: true,
    probe: true,
    worldModelData: [],
    label: 'WMRL warm-up 16 at action noise 0.3',
    colour: '#7f7f7f',
  },
  'wmrl-reach-data40': {
    flags: [],
    long: true,
    probe: true,
    worldModelData: ['mixed-reach-a', 'mixed-reach-b'],
    label: 'WMRL, its world model + 40 noisy reach experts',
  },
  // GRPO on the environment with one group a step (WMRL's anchor group, which the quickstart runs every
  // other step): what the anchors alone teach.
  'anchors-only': {
    flags: [...REAL_ONLY, '--groups=1'],
    long: true,
    label: 'real-only GRPO (G = 1)',
    colour: '#8c564b',
  },
  // The quickstart's 8 groups a step before session 18 (one an anchor group), 40 optimiser steps a refit.
  'imagine-8': {
    flags: ['--groups=8', '--anchorFraction=0.1', '--worldModel.refitSteps=40'],
    long: true,
    label: 'WMRL, 8 groups a step (one real every other step)',
    colour: '#2ca02c',
  },
  // Imagined samples weigh λ = clip(2·AUC − 1, 0, 1) of the anchors' within-group AUC instead of
  // as much as real ones (the paper's fusion, and the quickstart's choice).
  trust: { flags: ['--imaginedWeight=trust'], ablation: true },
  'no-debias': { flags: ['--no-debias'], ablation: true },
  // Debiasing with the paper's map: flat where pool-adjacent-violators pooled, so it ties rollouts of a group there.
  'paper-map': { flags: ['--isotonic.orderSlope=0'], ablation: true },
  // Debiasing by a ridge regression of the error on task context and mean action, not a pooled map.
  contextual: { flags: ['--debiasMap=contextual'], ablation: true },
  // Denoising without one of its parts: the anchor-group weight, or the per-rollout ensemble weights.
  'no-anchor-weight': { flags: ['--denoise=ensemble'], ablation: true },
  'no-ensemble-weight': { flags: ['--denoise=anchor'], ablation: true },
  'no-refit': { flags: ['--no-refit'], ablation: true },
  // The world model not told where the goal is (the quickstart before session 36): the scene score head
  // must compare image positions with the gripper's. On reach's fresh seeds 40–49: 2.9× against 8.0×.
  'no-goal': { flags: ['--worldModel.goal=none'], ablation: true, colour: '#e7ba52' },
  // An anchor group every step (the quickstart before session 37): twice the robot time a step.
  'anchors-every-step': {
    flags: ['--anchorEvery=1'],
    ablation: true,
    label: 'anchors every step (the quickstart before session 37)',
    colour: '#7f7f7f',
  },
  'wm-only': { flags: ['--mode', 'wm-only'], ablation: true },
  // The quickstart's 32 groups with twice its optimiser steps per refit (the refit is most of a step's compute).
  'wmrl-full-refits': {
    flags: ['--worldModel.refitSteps=40'],
    long: true,
    probe: true,
    label: 'WMRL, twice the refit steps',
    colour: '#17becf',
  },
  // PPO takes the same number of updates per step whatever the sample count (4 minibatches × 2 epochs):
  // four times the minibatches takes four times the updates per real episode, at about the same compute.
  'wmrl-16mb': {
    flags: ['--ppo.minibatches=16'],
    long: true,
    probe: true,
    label: 'WMRL, 4× the updates',
    colour: '#9467bd',
  },
  // The same for GRPO on the environment: does the baseline also learn faster per robot second?
  'real-16mb': {
    flags: [...REAL_ONLY, '--ppo.minibatches=16'],
    probe: true,
    label: 'real-only GRPO (G = 8), 4× the updates',
    colour: '#ff7f0e',
  },
  // One pass over the samples in 8 minibatches: the same 8 updates a step at half the update's compute.
  'wmrl-fast': {
    flags: ['--ppo.epochs=1', '--ppo.minibatches=8'],
    long: true,
    probe: true,
    label: 'WMRL, one PPO pass',
    colour: '#bcbd22',
  },
  // Groups of 4 rollouts: the one anchor group costs half the robot time a step; twice the groups
  // keep the imagined rollouts (64 × 4 against 32 × 8) and so the compute.
  'wmrl-m4': { flags: ['--rolloutsPerGroup=4', '--groups=64', '--anchorFraction=0.0156'], long: true, probe: true },
  // Three times Adam's step for both methods: does either learn faster per robot second?
  'wmrl-lr3': { flags: ['--ppo.learningRate=3e-4'], long: true, probe: true },
  'real-lr3': { flags: [...REAL_ONLY, '--ppo.learningRate=3e-4'], probe: true },
  // The headline arms evaluated every 2 steps instead of 4 (the same training: evaluation changes
  // no update): how much of the time to the target is the linear interpolation between evaluations?
  'wmrl-eval-2': { flags: ['--eval.every=2'], long: true, probe: true },
  'real-eval-2': { flags: [...REAL_ONLY, '--eval.every=2'], probe: true },
  // Real-only GRPO evaluated every step over its whole budget: on pick a step of it is ≈ 250 robot-s, so every 4
  // steps its curve is the line from the clone to ≈ 1000 robot-s (session 42). Seeds 0–4: its curve lies on that
  // line; to the target on pick 1136 ± 181 robot-s (1241 ± 335 every 4 steps), on reach 912 ± 239 (950 ± 355).
  'real-eval-1': {
    flags: [...REAL_ONLY, '--eval.every=1'],
    probe: true,
    label: 'real-only GRPO (G = 8), evaluated every step',
    colour: '#ff9896',
  },
  'real-every-step': {
    flags: [...REAL_ONLY, '--eval.every=1'],
    steps: 4,
    probe: true,
    label: 'real-only GRPO (G = 8), evaluated every step',
    colour: '#e377c2',
  },
  // The same over the long arms' budget: on pick, where the world model does not rank, trust is
  // what keeps imagination from unlearning the clone (docs/benchmarks.md, pick).
  'wmrl-trust': {
    flags: ['--imaginedWeight=trust'],
    long: true,
    probe: true,
    label: 'WMRL, weight from trust',
    colour: '#9edae5',
  },
  // λ from the AUC's one-sided 95% lower bound: imagination weighs in only once the anchors show it ranks.
  'wmrl-trust-bound': {
    flags: ['--imaginedWeight=trust', '--trust.confidence=1.645'],
    long: true,
    probe: true,
    label: "WMRL, weight from trust's lower bound",
    colour: '#393b79',
  },
  'no-denoise': { flags: ['--no-denoise'], probe: true, ablation: true },
  // The one anchor group drawn where the world-model ensemble disagrees most (πps, so every group keeps a
  // chance and the PPI estimate stays unbiased by importance weights) instead of uniformly: the same robot
  // time a step, spent where the model is least sure.
  'wmrl-active': { flags: ['--anchorFraction=0', '--minAnchorGroups=0', '--activeAnchors=1'], long: true, probe: true },
  // A refit every step instead of every 2: on reach, refits every 2 steps beat every 4 (75.0/80.0/81.7% against
  // 70.0/73.3/81.7% at step 24, seeds 0–2); on pick a refit every step gave the best early gain. Does the model
  // refitted on the newest anchor group bring reach's crossing forward? -lean keeps the optimiser steps per 2
  // steps (and so the compute) of the quickstart: 10 a refit instead of 20.
  'wmrl-refit1': { flags: ['--worldModel.refitEvery=1'], long: true, probe: true, label: 'WMRL, a refit every step' },
  'wmrl-refit1-lean': {
    flags: ['--worldModel.refitEvery=1', '--worldModel.refitSteps=10'],
    long: true,
    probe: true,
    label: 'WMRL, a refit every step, half its optimiser steps',
  },
  // Branched-imagination probes.
  // Every imagined group branches from a state of a recent anchor rollout (MBPO): imagination judges
  // the policy H steps from where its real rollouts went (near the block, at the grasp), not only
  // the first H steps of an episode, whose imagination ranks pick's rollouts backwards.
  'wmrl-branch': {
    flags: ['--branch.fraction=1'],
    long: true,
    probe: true,
    label: 'WMRL, imagination branched from anchor states',
  },
  // Half the imagined groups branched, half from episode starts (these also give the PPI estimate).
  'wmrl-branch-half': {
    flags: ['--branch.fraction=0.5'],
    long: true,
    probe: true,
    label: 'WMRL, half the imagination branched',
  },
  // The same with shorter branches (MBPO's lesson: model error compounds with the horizon; on pick the
  // closed-loop gripper drift is 1.3 cm after 8 imagined steps and 8 cm after 16, bench:closed-loop).
  'wmrl-branch-h8': { flags: ['--branch.fraction=1', '--horizon=8'], long: true, probe: true },
  'wmrl-branch-h4': { flags: ['--branch.fraction=1', '--horizon=4'], long: true, probe: true },
  // Branches with a stronger pull to the clone (β of KL(π ‖ π_BC), 0.1 by default): the branch arm gains
  // 18 points in 4 steps, then its policy keeps moving (KL to the clone 0.08 → 0.3) and unlearns.
  'wmrl-branch-kl03': {
    flags: ['--branch.fraction=1', '--ppo.klCoef=0.3'],
    long: true,
    probe: true,
    label: 'WMRL, branched, KL weight 0.3',
  },
  'wmrl-branch-kl1': {
    flags: ['--branch.fraction=1', '--ppo.klCoef=1'],
    long: true,
    probe: true,
    label: 'WMRL, branched, KL weight 1',
  },
  'wmrl-branch-kl3': {
    flags: ['--branch.fraction=1', '--ppo.klCoef=3'],
    long: true,
    probe: true,
    label: 'WMRL, branched, KL weight 3',
  },
  // Branches with a refit every step (2 by default): does a model refitted on fresher anchors keep the
  // moving policy from exploiting its errors?
  'wmrl-branch-refit1': {
    flags: ['--branch.fraction=1', '--worldModel.refitEvery=1'],
    long: true,
    probe: true,
    label: 'WMRL, branched, a refit every step',
  },
  // Branches until the policy's KL to the clone first passes 0.1, then the anchors alone: the branch arms'
  // step-4 policies (81–84% held-out) sat at KL 0.07–0.1 and every seed unlearned beyond; real-only GRPO's
  // best pick policies (89% at step 12) sit at KL 0.08–0.13. Chosen on seeds 0–4 (2.9×); seeds 5–9 gave 2.1×.
  'wmrl-branch-kl-limit': {
    flags: ['--branch.fraction=1', '--imaginedKlLimit=0.1'],
    long: true,
    probe: true,
    label: 'WMRL, branched until KL to the clone > 0.1, then anchors only',
  },
  // The two that held most on seeds 0–4 together: a refit every step (the best step 4, 84%) until the KL
  // limit stops imagination. Both were chosen on seeds 0–4, so seeds 5–9 are its check.
  'wmrl-branch-refit1-kl-limit': {
    flags: BRANCH_REFIT1_KL_LIMIT,
    long: true,
    probe: true,
    label: 'WMRL, branched, a refit every step, until KL to the clone > 0.1',
  },
  // The same until the stop, then GRPO on the environment with real-only's 8 groups a step: after the stop one anchor
  // group a step random-walked the policy away (KL 0.1 → 0.2–0.5) and lost 8 points by step 12. The arm runs the
  // baseline's 12 steps (not 28: each step after the stop costs real-only's robot time).
  'wmrl-branch-kl-limit-real8': {
    flags: [...BRANCH_REFIT1_KL_LIMIT, '--realGroupsAfterStop=8'],
    probe: true,
    label: 'WMRL, branched, refit every step, until KL > 0.1, then real-only GRPO (G = 8)',
  },
  // Between the two: 2 real groups a step after the stop (a quarter of real-only's robot time a step, the same 8 PPO
  // updates a step on 16 rollouts instead of 64), over the long arms' 28 steps.
  'wmrl-branch-kl-limit-real2': {
    flags: [...BRANCH_REFIT1_KL_LIMIT, '--realGroupsAfterStop=2'],
    long: true,
    probe: true,
    label: 'WMRL, branched, refit every step, until KL > 0.1, then GRPO on 2 real groups',
  },
  // The same with the world model told the block relative to the gripper and its lift, from the simulator's
  // privileged state (a probe), or localised from each step's perception, gripper and fingers. Seeds 5–9, privileged:
  // the anchors' AUC 0.69 against 0.51, no sooner to the target (4 of 5 crossing against 3).
  'wmrl-branch-kl-limit-real2-privileged-object': {
    flags: [...BRANCH_REFIT1_KL_LIMIT, '--realGroupsAfterStop=2', '--worldModel.object=privileged'],
    long: true,
    probe: true,
    label: 'WMRL branched to KL 0.1, then 2 real groups, told the block (privileged)',
    colour: '#e6550d',
  },
  'wmrl-branch-kl-limit-real2-object': {
    flags: [...BRANCH_REFIT1_KL_LIMIT, '--realGroupsAfterStop=2', '--worldModel.object=localised'],
    long: true,
    probe: true,
    label: 'WMRL branched to KL 0.1, then 2 real groups, told the block (localised)',
    colour: '#fd8d3c',
  },
  // Branched with a refit every step and no KL stop, told the block: the stop guarded against a world model that
  // did not rank pick's rollouts (anchors' AUC ≈ 0.5); told the block it ranks them better (session 38).
  'wmrl-branch-refit1-privileged-object': {
    flags: ['--branch.fraction=1', '--worldModel.refitEvery=1', '--worldModel.object=privileged'],
    long: true,
    probe: true,
    label: 'WMRL, branched, a refit every step, told the block (privileged)',
    colour: '#31a354',
  },
  'wmrl-branch-refit1-object': {
    flags: ['--branch.fraction=1', '--worldModel.refitEvery=1', '--worldModel.object=localised'],
    long: true,
    probe: true,
    label: 'WMRL, branched, a refit every step, told the block (localised)',
    colour: '#74c476',
  },
  // The same two without the stop, with MOPO's uncertainty penalty (each imagined score less one ensemble standard
  // deviation): without the stop, branched imagination unlearns from step 8 (the policy moves to where the model
  // is wrong), with the block in the state too (session 38). α = 1 is one standard deviation, not tuned.
  'wmrl-branch-refit1-penalty': {
    flags: ['--branch.fraction=1', '--worldModel.refitEvery=1', '--uncertaintyPenalty=1'],
    long: true,
    probe: true,
    label: 'WMRL, branched, a refit every step, uncertainty penalty 1',
    colour: '#9e9ac8',
  },
  'wmrl-branch-refit1-object-penalty': {
    flags: [
      '--branch.fraction=1',
      '--worldModel.refitEvery=1',
      '--worldModel.object=localised',
      '--uncertaintyPenalty=1',
    ],
    long: true,
    probe: true,
    label: 'WMRL, branched, a refit every step, told the block (localised), uncertainty penalty 1',
    colour: '#54278f',
  },
  // The real2 arm (branched, refit every step, until KL > 0.1, then 2 real groups a step) with the block in the state
  // and the uncertainty penalty: with both, branched imagination lifted seeds 5–7 to 85% at step 8 with the KL
  // to the clone still near 0.08–0.1, and unlearned after (session 38); the stop and the real groups are the
  // real2 arm's, unchanged. 20 seeds: 2.2× (1.3–3.7×) with 16 crossing, against real2's 2.0× with 19; +10.9 points
  // over real-only at 100 robot-s in every seed (bench/results/wmrl-pick-object-penalty-20seeds).
  'wmrl-branch-kl-limit-real2-object-penalty': {
    flags: REAL2_OBJECT_PENALTY,
    long: true,
    probe: true,
    label: 'WMRL branched to KL 0.1, then 2 real groups, told the block (localised), uncertainty penalty 1',
    colour: '#2171b5',
  },
  // The same, and after 2 real steps imagination resumes from the model refitted on them (as the restart arm
  // below): session 38's misses stalled at 72–78% after the stop, at real G = 2's pace, and the block and
  // the penalty made imagination's first radius count where session 28's restart unlearned without them.
  // Seeds 0–4 (session 39): it unlearns after the restart as before (1 of 5 crossing against 5 of 5).
  'wmrl-branch-kl-limit-restart-object-penalty': {
    flags: [...REAL2_OBJECT_PENALTY, '--imaginationRestartAfter=2'],
    long: true,
    probe: true,
    label: 'WMRL branched to KL 0.1, 2 real steps, again; told the block (localised), uncertainty penalty 1',
    colour: '#ff7f0e',
  },
  // The same with an anchor group every other step, as reach's quickstart since session 37 (there the same
  // success step for step at half the robot time): imagination's first radius, where pick's gain is
  // made, at half the robot time; the steps between branch from the last anchors' states. Seeds 0–4: 3.4×;
  // 20 seeds: 2.0× (1.3–3.1×), 18 of 20 crossing, +13.1 points over real-only at 100 robot-s (session 39).
  'wmrl-branch-kl-limit-real2-object-penalty-anchors2': {
    flags: [...REAL2_OBJECT_PENALTY, '--anchorEvery=2'],
    long: true,
    probe: true,
    label: 'WMRL branched to KL 0.1, then 2 real groups; the block, the penalty, anchors every other step',
    colour: '#9467bd',
  },
  // The same imagining with the gripper head (configs/wm/perception-gripper.yaml), run on the pick-miss family (its
  // world model's data show fingers closing on nothing): one step from a real state the joint network closes
  // fingers 8 cm from the block as slowly as fingers on it (−0.05 against −0.24 a step; `wmrl wm rank`), and the
  // clone's failures are mostly that. Chosen before its first run (session 43). Seeds 0–4: 1.4× (the head −0.15 a
  // step there), level with the miss data alone (2.0×) at equal robot time.
  'wmrl-branch-kl-limit-real2-object-penalty-anchors2-gripper': {
    flags: [...REAL2_OBJECT_PENALTY, '--anchorEvery=2'],
    worldModel: 'configs/wm/perception-gripper.yaml',
    long: true,
    probe: true,
    label: 'WMRL as anchors every other step, its world model with the gripper head',
    colour: '#17becf',
  },
  // The same, each update after the stop in one minibatch an epoch instead of 4: after the stop the anchors2 arm's
  // held-out success swung by 15–30 points between evaluations; its 2 real groups, in ppo.minibatches' 4
  // minibatches, made each update a quarter of 16 episodes' samples where real-only's is a quarter of 64.
  // Seeds 0–3 (session 39): the swings stay, no sooner (503 / 61 / 1024 / 714 robot-s against 313 / 61 / 649 / 586).
  'wmrl-branch-kl-limit-real2-object-penalty-anchors2-mb1': {
    flags: [...REAL2_OBJECT_PENALTY, '--anchorEvery=2', '--minibatchesAfterStop=1'],
    long: true,
    probe: true,
    label:
      'WMRL branched to KL 0.1, then 2 real groups in one minibatch; the block, the penalty, anchors every other step',
    colour: '#e377c2',
  },
  // The same with Adam's step after the stop scaled to its 2 real groups' share of real-only's 8: a quarter
  // (the linear rule: per robot second the drift and the noise of real-only GRPO's updates, with evaluations
  // four times as often) and a half (the square-root rule). Chosen before their first run (session 40).
  'wmrl-branch-kl-limit-real2-object-penalty-anchors2-lr25': {
    flags: [...REAL2_OBJECT_PENALTY, '--anchorEvery=2', '--learningRateAfterStop=2.5e-5'],
    long: true,
    probe: true,
    label: "WMRL as anchors every other step, Adam's step a quarter after the stop",
    colour: '#17becf',
  },
  'wmrl-branch-kl-limit-real2-object-penalty-anchors2-lr5': {
    flags: [...REAL2_OBJECT_PENALTY, '--anchorEvery=2', '--learningRateAfterStop=5e-5'],
    long: true,
    probe: true,
    label: "WMRL as anchors every other step, Adam's step a half after the stop",
    colour: '#bcbd22',
  },
  // The same with imagination's radius widened to KL 0.15 / 0.2: δ = 0.1 was chosen in session 25 with a world
  // model told neither the block nor penalised for its ensemble's disagreement; with both (session 38) the model
  // may hold further from the clone, and after the stop the arm climbs only at real-only's pace (session 40).
  'wmrl-branch-kl-limit-real2-object-penalty-anchors2-kl015': {
    flags: [...REAL2_OBJECT_PENALTY, '--anchorEvery=2', '--imaginedKlLimit=0.15'],
    long: true,
    probe: true,
    label: 'WMRL as anchors every other step, imagination to KL 0.15',
    colour: '#8c564b',
  },
  'wmrl-branch-kl-limit-real2-object-penalty-anchors2-kl02': {
    flags: [...REAL2_OBJECT_PENALTY, '--anchorEvery=2', '--imaginedKlLimit=0.2'],
    long: true,
    probe: true,
    label: 'WMRL as anchors every other step, imagination to KL 0.2',
    colour: '#7f7f7f',
  },
  // The same with the uncertainty penalty doubled (α = 2; α = 1 was one standard deviation, not tuned): past KL
  // 0.1 imagination lost held-out success (the probes above), and the penalty is what held the KL in session 38.
  'wmrl-branch-kl-limit-real2-object-penalty-anchors2-penalty2': {
    flags: [...REAL2_OBJECT_PENALTY, '--anchorEvery=2', '--uncertaintyPenalty=2'],
    long: true,
    probe: true,
    label: 'WMRL as anchors every other step, uncertainty penalty 2',
    colour: '#e7ba52',
  },
  // The same imagining 8 or 12 steps: the world model ranks the approach and not the grasp (session 42), and in
  // closed loop the imagined gripper drifts 1.2 / 3.5 / 6.2 cm from the real one at 8 / 12 / 16 steps (session 41);
  // branches start from real states all along the anchors' episodes, so a short one still covers the approach
  // from where real rollouts are. Chosen before their first run (session 42). Seeds 0–4: 1.4× and 2.1×, the
  // first radius gaining nothing (64.7% and 65.0% after it, 77.7% with 16 steps).
  'wmrl-branch-kl-limit-real2-object-penalty-anchors2-h8': {
    flags: [...REAL2_OBJECT_PENALTY, '--anchorEvery=2', '--horizon=8'],
    long: true,
    probe: true,
    label: 'WMRL as anchors every other step, imagining 8 steps',
    colour: '#8c564b',
  },
  'wmrl-branch-kl-limit-real2-object-penalty-anchors2-h12': {
    flags: [...REAL2_OBJECT_PENALTY, '--anchorEvery=2', '--horizon=12'],
    long: true,
    probe: true,
    label: 'WMRL as anchors every other step, imagining 12 steps',
    colour: '#e377c2',
  },
  // The same imagining 24 or 32 steps instead of 16, branched, or 32 from episode starts without branching: pick's
  // family chose 16 before its world model held the block; `wmrl wm rank` on anchors2's seed-0 anchors with the
  // starting world model (told the localised block) ranks the replayed rollouts from their starts at 0.59 / 0.85 /
  // 0.97 at 16 / 24 / 32 steps (the true progress at 0.96 / 0.99 / 1.00). Chosen before their first run (session 41).
  // Seeds 0–4: 1.7×, 1.3× and 1.2× (4, 4 and 3 of 5 crossing); in training the anchors rank at 0.49–0.57.
  'wmrl-branch-kl-limit-real2-object-penalty-anchors2-h24': {
    flags: [...REAL2_OBJECT_PENALTY, '--anchorEvery=2', '--horizon=24'],
    long: true,
    probe: true,
    label: 'WMRL as anchors every other step, imagining 24 steps',
    colour: '#2ca02c',
  },
  'wmrl-branch-kl-limit-real2-object-penalty-anchors2-h32': {
    flags: [...REAL2_OBJECT_PENALTY, '--anchorEvery=2', '--horizon=32'],
    long: true,
    probe: true,
    label: 'WMRL as anchors every other step, imagining 32 steps',
    colour: '#bd9e39',
  },
  'wmrl-kl-limit-real2-object-penalty-anchors2-h32': {
    flags: [...REAL2_OBJECT_PENALTY.filter((f) => !f.startsWith('--branch.')), '--anchorEvery=2', '--horizon=32'],
    long: true,
    probe: true,
    label: 'WMRL as anchors every other step, imagining 32 steps from episode starts (not branched)',
    colour: '#ff9896',
  },
  // The same scoring each imagined rollout by pick's progress computed from its final state's object numbers
  // (--score=object) instead of the score head's. Chosen before its first run (session 41), on a misreading: the
  // closeness alone ranks anchors2's seed-0 anchors at AUC 0.92 on the real states 16 steps in and 0.76 replayed, the
  // head at 0.65 and 0.59; with the localised lift in it, as here, 0.67 and 0.56 (`wmrl wm rank`). Seeds 0–4: 1.3×.
  // With the closeness alone (--score=objectDistance), the score the offline ranking pointed at.
  'wmrl-branch-kl-limit-real2-object-penalty-anchors2-score-object': {
    flags: [...REAL2_OBJECT_PENALTY, '--anchorEvery=2', '--score=object'],
    long: true,
    probe: true,
    label: "WMRL as anchors every other step, scored by the block's numbers in the imagined state",
    colour: '#8c6d31',
  },
  'wmrl-branch-kl-limit-real2-object-penalty-anchors2-score-distance': {
    flags: [...REAL2_OBJECT_PENALTY, '--anchorEvery=2', '--score=objectDistance'],
    long: true,
    probe: true,
    label: "WMRL as anchors every other step, scored by the gripper's imagined closeness to the block",
    colour: '#2ca02c',
  },
  // Seeds 0–4: the anchors rank at 0.75 in training (0.55 with the head's progress), 2.2× with every seed crossing,
  // imagination stopping at step 4. With a score that ranks, might imagination hold past KL 0.1, or without the
  // stop (as reach's quickstart, whose model ranks at 0.80)? Both chosen before their first run (session 41).
  'wmrl-branch-kl-limit-real2-object-penalty-anchors2-score-distance-kl02': {
    flags: [...REAL2_OBJECT_PENALTY, '--anchorEvery=2', '--score=objectDistance', '--imaginedKlLimit=0.2'],
    long: true,
    probe: true,
    label: "WMRL as anchors every other step, the block's closeness as the score, imagination to KL 0.2",
    colour: '#ff7f0e',
  },
  'wmrl-branch-refit1-object-penalty-anchors2-score-distance': {
    flags: NO_STOP_DISTANCE,
    long: true,
    probe: true,
    label: "WMRL as anchors every other step, the block's closeness as the score, no KL stop",
    colour: '#17becf',
  },
  // Anchors2 scored by the closeness where the gripper first closes (--score=grasp), to KL 0.1 and without the stop:
  // read before the fingers close, where the model's arm is right and its fingers do not matter. On real-only's
  // seed-0 pick anchors it ranks at 0.90 real and 0.86 replayed 16 steps (the closeness at step 16 0.91 and 0.82;
  // `wmrl wm rank`). Chosen before their first run (session 47).
  'wmrl-branch-kl-limit-real2-object-penalty-anchors2-score-grasp': {
    flags: [...REAL2_OBJECT_PENALTY, '--anchorEvery=2', '--score=grasp'],
    long: true,
    probe: true,
    label: 'WMRL as anchors every other step, scored by the closeness where the gripper first closes',
    colour: '#2ca02c',
  },
  'wmrl-branch-refit1-object-penalty-anchors2-score-grasp': {
    flags: NO_STOP_GRASP,
    long: true,
    probe: true,
    label: 'WMRL as anchors every other step, scored by the closeness where the gripper first closes, no KL stop',
    colour: '#e377c2',
  },
  // The same observed for 56 steps instead of 28 (about 830 robot-s): over seeds 0–19 at 28 steps 6 seeds had not
  // reached the target within its 413 robot-s (on the mean curve it never does), 14 had in 263 ± 138 s. Steps only
  // bound the loop, so its runs are the 28-step arm's continued (copied, then resumed by the benchmark: a resume is
  // bit-exact): the 14 crossings stand as they were. Chosen after the 20 seeds at 28 steps (session 47).
  'wmrl-branch-refit1-object-penalty-anchors2-score-grasp-56': {
    flags: NO_STOP_GRASP,
    steps: 56,
    probe: true,
    label: 'WMRL scored where the gripper first closes, no KL stop, 56 steps',
    colour: '#e377c2',
  },
  // The no-stop grasp arm with branches starting no later than the anchor rollout's first closing command: from a
  // state after it every rollout of a group scores where the real one closed, so about half the branched groups
  // (pick's clone closes near the middle of its episodes) taught nothing. And the same with imagined advantages
  // only centred (Dr. GRPO): within a group of near-equal closeness standardising blows the differences up to unit
  // size. Chosen before their first run, against the plateau near 80% (session 48).
  'wmrl-branch-refit1-object-penalty-anchors2-score-grasp-before-close': {
    flags: [...NO_STOP_GRASP, '--branch.beforeClose=true'],
    long: true,
    probe: true,
    label: 'WMRL scored where the gripper first closes, branches from before the close',
    colour: '#17becf',
  },
  // Before the close and imagining 8 or 12 steps instead of 16: on real states the closeness where the gripper first
  // closes ranks a group's rollouts at AUC 0.90–0.96 (real-only's and this arm's seed-0 anchors, session 48), the
  // imagined one at about 0.83 in training; closed loop the imagined gripper drifts 1.2 / 3.5 / 6.2 cm from the real
  // one at 8 / 12 / 16 steps (session 41) where a grasp tolerates 1–2 cm. Chosen before their first run (session 48).
  'wmrl-branch-refit1-object-penalty-anchors2-score-grasp-before-close-h8': {
    flags: [...NO_STOP_GRASP, '--branch.beforeClose=true', '--horizon=8'],
    long: true,
    probe: true,
    label: 'WMRL scored where the gripper first closes, branches from before the close, imagining 8 steps',
    colour: '#9467bd',
  },
  'wmrl-branch-refit1-object-penalty-anchors2-score-grasp-before-close-h12': {
    flags: [...NO_STOP_GRASP, '--branch.beforeClose=true', '--horizon=12'],
    long: true,
    probe: true,
    label: 'WMRL scored where the gripper first closes, branches from before the close, imagining 12 steps',
    colour: '#8c564b',
  },
  // The no-stop grasp arm with refits that fit the policy's own rollouts harder: each anchor four times in a refit's
  // data, or three times the optimiser steps (60 a refit epoch). Scored where the gripper first closes the anchors'
  // real states rank at AUC 0.90–0.96 within a group, the imagined ones at about 0.81 (session 48): the world
  // model, not the score, loses the order. Chosen before their first run (session 48).
  'wmrl-branch-refit1-object-penalty-anchors2-score-grasp-anchor-repeat4': {
    flags: [...NO_STOP_GRASP, '--worldModel.anchorRepeat=4'],
    long: true,
    probe: true,
    label: 'WMRL scored where the gripper first closes, each anchor 4 times in a refit',
    colour: '#d62728',
  },
  'wmrl-branch-refit1-object-penalty-anchors2-score-grasp-refit60': {
    flags: [...NO_STOP_GRASP, '--worldModel.refitSteps=60'],
    long: true,
    probe: true,
    label: 'WMRL scored where the gripper first closes, refits of 60 optimiser steps an epoch',
    colour: '#ff9896',
  },
  // The no-stop grasp arm at half Adam's step (5e-5): if the plateau near 80% and the late falls (seed 0 to 55% at
  // 56 steps) are updates on imagined ranking noise (the anchors rank at about 0.81), smaller steps average more of
  // it away. Chosen before its first run (session 48).
  'wmrl-branch-refit1-object-penalty-anchors2-score-grasp-lr5e-5': {
    flags: [...NO_STOP_GRASP, '--ppo.learningRate=5e-5'],
    long: true,
    probe: true,
    label: "WMRL scored where the gripper first closes, half Adam's step",
    colour: '#7f7f7f',
  },
  // The no-stop grasp arm with imagination from more scenes: its branches start from the newest 64 anchor episodes,
  // the last 8 anchor groups, so every imagined group of a step is one of 8 scenes, where real-only GRPO sees 8 new
  // ones a step; its sampled rollouts on the anchors' scenes pick as often as real-only's late on (about half), its
  // mean action on held-out scenes less (81% against 86%; session 48). Branches from every anchor episode so far,
  // half the groups from the start pool (where the close, about 13 steps in, is within the 16-step horizon), or all
  // of them. Chosen before their first run (session 48).
  'wmrl-branch-refit1-object-penalty-anchors2-score-grasp-recent512': {
    flags: [...NO_STOP_GRASP, '--branch.recentEpisodes=512'],
    long: true,
    probe: true,
    label: 'WMRL scored where the gripper first closes, branches from every anchor episode',
    colour: '#393b79',
  },
  'wmrl-branch-refit1-object-penalty-anchors2-score-grasp-branch-half': {
    flags: [...NO_STOP_GRASP.filter((f) => !f.startsWith('--branch.')), '--branch.fraction=0.5'],
    long: true,
    probe: true,
    label: 'WMRL scored where the gripper first closes, half the groups branched',
    colour: '#637939',
  },
  'wmrl-branch-refit1-object-penalty-anchors2-score-grasp-from-starts': {
    flags: [...NO_STOP_GRASP.filter((f) => !f.startsWith('--branch.'))],
    long: true,
    probe: true,
    label: 'WMRL scored where the gripper first closes, every group from the start pool',
    colour: '#8c6d31',
  },
  // The no-stop grasp arm with the block read from the first frame and held (`--worldModel.object=localisedStart`):
  // at the clone's first close each step's reading is off by 1.2–1.7 cm (sd, x and y; 0.8 in z) where the first
  // frame's is off by 0.4–0.6 (real-only's and the grasp arm's seed-0 anchors), and most of the grasp arm's seed-0
  // mean-action misses close 2–3.5 cm off in x at the right height, where a grasp tolerates about 2 cm (session
  // 48). Its own world model (the features differ). Chosen before its first run (session 48).
  'wmrl-branch-refit1-object-penalty-anchors2-score-grasp-object-start': {
    flags: [
      ...NO_STOP_GRASP.filter((f) => !f.startsWith('--worldModel.object=')),
      '--worldModel.object=localisedStart',
    ],
    long: true,
    probe: true,
    label: 'WMRL scored where the gripper first closes, the block read from the first frame',
    colour: '#e6550d',
  },
  'wmrl-branch-refit1-object-penalty-anchors2-score-grasp-centered': {
    flags: [...NO_STOP_GRASP, '--imaginedAdvantage=centered'],
    long: true,
    probe: true,
    label: 'WMRL scored where the gripper first closes, imagined advantages centred',
    colour: '#bcbd22',
  },
  // Anchors2, and with the closeness as its score (to KL 0.1 and 0.2), imagined rollouts training the arm's
  // action dims only: the world model predicts the fingers stopping on the block in the clone's misses as in its
  // grasps (replayed 20 steps, failures' finger 0.31/0.39/0.61 at the 10/50/90% quantiles where the real
  // ones close to 0.00/0.07/0.94; `wmrl wm rank`), so imagination can rank an approach, not a grasp; without
  // the gripper in its gradient it cannot teach one (the closeness without a stop left grippers open at the
  // block). Chosen before their first run (session 42). Seeds 0–4: 1.7×, 1.7× and 1.2×, none sooner.
  'wmrl-branch-kl-limit-real2-object-penalty-anchors2-arm-only': {
    flags: [...REAL2_OBJECT_PENALTY, '--anchorEvery=2', '--imaginationTrainsGripper=false'],
    long: true,
    probe: true,
    label: "WMRL as anchors every other step, imagination training the arm's joints only",
    colour: '#8c564b',
  },
  'wmrl-branch-kl-limit-real2-object-penalty-anchors2-score-distance-arm-only': {
    flags: [...REAL2_OBJECT_PENALTY, '--anchorEvery=2', '--score=objectDistance', '--imaginationTrainsGripper=false'],
    long: true,
    probe: true,
    label: "WMRL as anchors every other step, the block's closeness as the score, the arm's joints only",
    colour: '#e377c2',
  },
  'wmrl-branch-kl-limit-real2-object-penalty-anchors2-score-distance-arm-only-kl02': {
    flags: [
      ...REAL2_OBJECT_PENALTY,
      '--anchorEvery=2',
      '--score=objectDistance',
      '--imaginationTrainsGripper=false',
      '--imaginedKlLimit=0.2',
    ],
    long: true,
    probe: true,
    label: "WMRL as anchors every other step, the block's closeness, the arm's joints only, to KL 0.2",
    colour: '#bcbd22',
  },
  // Without the KL stop (as the session-41 arm that fell to 33.7%), the closeness training the arm's joints
  // only: is the closeness gamed through the gripper alone? Chosen before its first run (session 42). Seeds 0–4:
  // no, it collapses as on every dim (38.0% at the end).
  'wmrl-branch-refit1-object-penalty-anchors2-score-distance-arm-only': {
    flags: [...NO_STOP_DISTANCE, '--imaginationTrainsGripper=false'],
    long: true,
    probe: true,
    label: "WMRL as anchors every other step, the block's closeness, the arm's joints only, no KL stop",
    colour: '#7f7f7f',
  },
  // The same with its world model trained three times as long (configs/wm/perception-long.yaml): with
  // perception.yaml's 8 epochs the validation loss still falls at the last one. Chosen before its first run
  // (session 41). Seeds 0–4: 2.1×, 4 of 5 crossing.
  'wmrl-branch-kl-limit-real2-object-penalty-anchors2-wm-long': {
    flags: [...REAL2_OBJECT_PENALTY, '--anchorEvery=2'],
    worldModel: 'configs/wm/perception-long.yaml',
    long: true,
    probe: true,
    label: 'WMRL as anchors every other step, its world model trained 24 epochs',
    colour: '#393b79',
  },
  // The same with 64 imagined groups a step (one anchor group still): the update count per step is fixed, so
  // each update averages twice the samples; with pick's anchors' AUC ≈ 0.6 most of an update's KL is noise,
  // and imagination stops at a KL, not at a step. Seeds 0–4 (session 39): no sooner (4 of 5 crossing), one seed
  // fell to 55% while imagination ran to step 19.
  'wmrl-branch-kl-limit-real2-object-penalty-g64': {
    flags: [...REAL2_OBJECT_PENALTY, '--groups=64', '--anchorFraction=0.01'],
    long: true,
    probe: true,
    label: 'WMRL branched to KL 0.1, then 2 real groups; the block, the penalty, 64 groups a step',
    colour: '#9ecae1',
  },
  // The same with the world model told the localised goal (pick's lift point relative to the gripper).
  'wmrl-branch-kl-limit-real2-goal': {
    flags: [...BRANCH_REFIT1_KL_LIMIT, '--realGroupsAfterStop=2', '--worldModel.goal=localised'],
    long: true,
    probe: true,
    label: 'WMRL branched to KL 0.1, then 2 real groups, told the localised goal',
    colour: '#6b6ecf',
  },
  // The same, and after 2 such steps imagination resumes from the model refitted on them, until the KL to the clone
  // passes the last real step's KL plus 0.1 (then 2 real steps again, and so on): after the stop the real2 arm
  // followed real-only G = 2's slow pace, its saving only the first ~130 robot-s. Fixed before its first run.
  'wmrl-branch-kl-limit-restart': {
    flags: [...BRANCH_REFIT1_KL_LIMIT, '--realGroupsAfterStop=2', '--imaginationRestartAfter=2'],
    long: true,
    probe: true,
    label: 'WMRL, branched, until KL > 0.1, 2 real steps, again from there',
  },
  // The real2 arm imagining with a value head: the world model's progress output learns whether each state's episode
  // succeeds instead of the task's progress (configs/wm/perception-outcome.yaml), so a 16-step branch from mid-pick
  // is scored by its chance of success from where it ends. Fixed before its first run; seeds 0–9: 852 ± 465 robot-s
  // to the target (9/10) against real2's 399 ± 353, so not adopted (docs/benchmarks.md, session 29).
  'wmrl-branch-kl-limit-real2-value': {
    flags: [...BRANCH_REFIT1_KL_LIMIT, '--realGroupsAfterStop=2'],
    worldModel: 'configs/wm/perception-outcome.yaml',
    long: true,
    probe: true,
    label: 'the same (real2), the world model scoring by a value head',
  },
  // The quickstart imagining with the value head (the same world-model preset as the arm above), on reach: seeds 0–9
  // fell to 59.8% at step 8 and reached the target at 259 ± 101 robot-s (8/10) against the quickstart's 122 ± 46.
  'wmrl-value': {
    flags: [],
    worldModel: 'configs/wm/perception-outcome.yaml',
    long: true,
    probe: true,
    label: 'WMRL (the quickstart), the world model scoring by a value head',
  },
  // More imagination per real episode: 64 and 128 groups a step, still one of them executed. From 8 to 32
  // groups the time to reach's target fell from 238 to 147 robot-s (5 seeds); 64 and 128 took 192 and 160.
  'wmrl-g64': {
    flags: ['--groups=64', '--anchorFraction=0.0156'],
    long: true,
    probe: true,
    label: 'WMRL, 64 groups a step (one real)',
  },
  'wmrl-g128': {
    flags: ['--groups=128', '--anchorFraction=0.0078'],
    long: true,
    probe: true,
    label: 'WMRL, 128 groups a step (one real)',
  },
  // Executed training episodes cut at 16 control steps (reach's horizon is 40): 95% of reach's
  // successes ended by step 16, and the failures' later steps were 42–47% of all robot time. Both
  // methods get the cut; held-out evaluations still run to the horizon. Reach, 20 seeds: real-only
  // 2.3× sooner to the target, WMRL 1.35×, so WMRL's saving against the cut baseline is 2.9×.
  'real-cut16': {
    flags: [...REAL_ONLY, '--realEpisodeSteps=16'],
    probe: true,
    label: 'real-only GRPO (G = 8), episodes cut at 16 steps',
    colour: '#ff9896',
  },
  'wmrl-cut16': {
    flags: ['--realEpisodeSteps=16'],
    long: true,
    probe: true,
    label: 'WMRL, episodes cut at 16 steps',
    colour: '#aec7e8',
  },
  // A ceiling, not a method: WMRL with a perfect world model. Every one of the quickstart's 32 groups
  // a step is executed in the simulator (the same PPO as WMRL's) and one group's robot time is
  // counted, the anchor group's: how soon WMRL could reach the target if imagination ranked rollouts
  // exactly as the robot does, so how much of the gap to a target the world model's error explains.
  'perfect-wm': {
    flags: [...REAL_ONLY, '--groups=32'],
    probe: true,
    robotTimeCounted: 1 / 32,
    label: 'ceiling: WMRL with a perfect world model',
    colour: '#637939',
  },
  // A probe of the world model's ranking, not a method: the scene score head is told the task's goal
  // (relative to the gripper) from the simulator's privileged state, in a world model of its own.
  // Replayed on reach's anchors the 8-step ranking goes from chance to about 0.8 (docs/benchmarks.md):
  // how much sooner would WMRL reach the target with a goal localiser that good?
  'wmrl-privileged-goal': {
    flags: ['--worldModel.goal=privileged'],
    probe: true,
    label: 'probe: WMRL, the world model told the true goal',
    colour: '#e7969c',
  },
  // The world model told the goal relative to the gripper, the goal read from the policy's perception of
  // the first frame by a localiser fitted on the data (no simulator state at run time). The quickstart's
  // setting since session 36; named here so that a family whose flags leave it out (pick, push) can probe it.
  'wmrl-goal': {
    flags: ['--worldModel.goal=localised'],
    probe: true,
    label: 'WMRL, the world model told the localised goal',
    colour: '#17becf',
  },
  // The localiser fitted on where the successful episodes' gripper ended instead of the simulator's goal:
  // what an arm's own demonstrations (joint states and outcomes, no goal recorded) give it.
  'wmrl-goal-gripper': {
    flags: ['--worldModel.goal=localised', '--worldModel.goalFrom=gripper'],
    probe: true,
    label: "WMRL, the goal localised from the demonstrations' final gripper positions",
    colour: '#bcbd22',
  },
  // The same imagining 12 steps instead of 8: with a localised goal a first (throwaway) fit replayed reach's
  // anchors better at 12 than at 8. Fixed before its first run; worse (docs/benchmarks.md, session 35).
  'wmrl-goal-h12': {
    flags: ['--worldModel.goal=localised', '--horizon=12'],
    probe: true,
    label: 'WMRL, the localised goal, imagining 12 steps',
    colour: '#8c6d31',
  },
  'perfect-wm-cut16': {
    flags: [...REAL_ONLY, '--groups=32', '--realEpisodeSteps=16'],
    probe: true,
    robotTimeCounted: 1 / 32,
    label: 'ceiling: a perfect world model, episodes cut at 16 steps',
    colour: '#9c9ede',
  },
  // Real-only GRPO with one group a step, cut too: the better group setting at WMRL's robot time? Reach,
  // 20 seeds: as soon to the target as wmrl-cut16 (1.05×), ahead of it for the first 50 robot-s.
  'anchors-only-cut16': {
    flags: [...REAL_ONLY, '--groups=1', '--realEpisodeSteps=16'],
    long: true,
    probe: true,
    label: 'real-only GRPO (G = 1), episodes cut at 16 steps',
    colour: '#c49c94',
  },
  // WMRL-cut16 whose first steps learn from the anchor group alone: one real group a step led WMRL for its
  // first ≈ 10 steps on reach (seeds 0–19), WMRL climbed past it after. Imagination from step 5 or 9. Seeds
  // 20–29: 1.14× and 1.2× sooner to the target than wmrl-cut16 (intervals across 1), 6 points lower at 200 robot-s.
  'wmrl-cut16-from5': {
    flags: ['--realEpisodeSteps=16', '--imagineFromStep=5'],
    long: true,
    probe: true,
    label: 'WMRL, cut 16, imagination from step 5',
  },
  'wmrl-cut16-from9': {
    flags: ['--realEpisodeSteps=16', '--imagineFromStep=9'],
    long: true,
    probe: true,
    label: 'WMRL, cut 16, imagination from step 9',
  },
  // WMRL-cut16 whose world model first sees the starting policy's own episodes (cut too): with more
  // policy episodes in its data the scene head ranked a group's rollouts better (AUC 0.84, one seed).
  // Seeds 20–29: 0.97× and 0.84× to the target against wmrl-cut16 (AUC 0.64, 0.63 against 0.62).
  'wmrl-cut16-warm16': {
    flags: ['--realEpisodeSteps=16', '--worldModel.warmupEpisodes=16'],
    long: true,
    probe: true,
    label: 'WMRL, cut 16, 16 warm-up episodes',
  },
  'wmrl-cut16-warm32': {
    flags: ['--realEpisodeSteps=16', '--worldModel.warmupEpisodes=32'],
    long: true,
    probe: true,
    label: 'WMRL, cut 16, 32 warm-up episodes',
  },
  // WMRL-cut16 with imagined samples weighing less: at λ = 1 its 31 imagined groups are ≈ 95% of each
  // update's weight, and one real group a step alone learns faster for the first ≈ 10 steps. Seeds 20–29:
  // 0.99× and 0.96× to the target against wmrl-cut16, λ = 0.1 still behind one real group at 50 robot-s.
  'wmrl-cut16-w025': {
    flags: ['--realEpisodeSteps=16', '--imaginedWeight=0.25'],
    long: true,
    probe: true,
    label: 'WMRL, cut 16, imagined weight 0.25',
  },
  'wmrl-cut16-w01': {
    flags: ['--realEpisodeSteps=16', '--imaginedWeight=0.1'],
    long: true,
    probe: true,
    label: 'WMRL, cut 16, imagined weight 0.1',
  },
  // WMRL-cut16 whose anchor group also gets an update of its own before the joint one: in the joint update
  // Adam's steps follow the 31 imagined groups' direction, and one real group a step alone leads early.
  // Seeds 30-39: 103 ± 50 robot-s to the target against 111 ± 43 without; -2.0 points at 200 robot-s.
  'wmrl-cut16-anchors-first': {
    flags: ['--realEpisodeSteps=16', '--anchorUpdateFirst=true'],
    long: true,
    probe: true,
    label: 'WMRL, cut 16, anchors updated alone first',
  },
  // The same on pick (horizon 50): 96.5% of its successes ended by step 32. 10 seeds: real-only 1.1×
  // sooner, the real2 arm 0.6× (7 of 10 seeds crossing).
  'real-cut32': {
    flags: [...REAL_ONLY, '--realEpisodeSteps=32'],
    probe: true,
    label: 'real-only GRPO (G = 8), episodes cut at 32 steps',
    colour: '#ff9896',
  },
  'wmrl-branch-kl-limit-real2-cut32': {
    flags: [...BRANCH_REFIT1_KL_LIMIT, '--realGroupsAfterStop=2', '--realEpisodeSteps=32'],
    long: true,
    probe: true,
    label: 'the same (real2), episodes cut at 32 steps',
    colour: '#aec7e8',
  },
  // GRPO on the environment with 2 groups a step over the long arms' 28 steps: the baseline of what
  // wmrl-branch-kl-limit-real2 does after its stop, so its own share of the robot-time saving shows.
  'real-g2': { flags: [...REAL_ONLY, '--groups=2'], long: true, probe: true, label: 'real-only GRPO (G = 2)' },
};

const names = Object.keys(ARMS);
export const ALL_ARMS = names.filter((a) => !ARMS[a]!.probe);
export const EXTRA_ARMS = names.filter((a) => ARMS[a]!.probe);
export const LONG_ARMS = new Set(names.filter((a) => ARMS[a]!.long));
export const SHORT_ARMS: Record<string, number> = Object.fromEntries(
  names.flatMap((a) => (ARMS[a]!.steps === undefined ? [] : [[a, ARMS[a]!.steps]])),
);
/** The arm's name in the plot's legend. */
export const armLabel = (arm: string): string => ARMS[arm]?.label ?? arm;
/** The share of the arm's executed robot time the benchmark counts (a ceiling arm's is below 1). */
export const armRobotTimeCounted = (arm: string): number => ARMS[arm]?.robotTimeCounted ?? 1;
/** Whether the arm takes one part away from the headline's WMRL arm (drawn apart from the method arms). */
export const armIsAblation = (arm: string): boolean => ARMS[arm]?.ablation === true;
/** The arm's own plot colour, if it has one. */
export const armColour = (arm: string): string | undefined => ARMS[arm]?.colour;

// Ablations take one part away from the headline's WMRL arm: on reach that is the quickstart (no
// flags of its own); with another headline (pick: wmrl-trust-bound) they start from its flags, and
// their runs are kept apart (`<arm>-of-<headline>-seed<n>`) so that a change of headline never reuses them.

/** Whether `arm` is an ablation of another headline than the quickstart (which has no flags of its own). */
const ablatesHeadline = (arm: string, headline: string) =>
  ARMS[arm]?.ablation === true && arm !== headline && headline !== 'wmrl';

/**
 * The world-model preset `arm` imagines with when not the set-up's shared one (`headline` as in
 * armFlags: an ablation of a headline with its own world model uses it too); undefined: the shared one.
 */
export function armWorldModel(arm: string, headline: string): string | undefined {
  return ARMS[arm]?.worldModel ?? (ablatesHeadline(arm, headline) ? ARMS[headline]?.worldModel : undefined);
}

/**
 * The cache folder name of the world model `arm` imagines with, its family's flags `familyFlags` before
 * its own: `worldmodel`, or its preset's name, then the goal and object its state holds (`-goal-localised`,
 * `-object-privileged`): a
 * model of one layout is never reused by a run of another, and a change of the quickstart's goal
 * trains a new one.
 */
export function armWorldModelFolder(arm: string, headline: string, familyFlags: string[] = []): string {
  const preset = armWorldModel(arm, headline);
  const base = preset ? `worldmodel-${basename(preset, '.yaml')}` : 'worldmodel';
  const flags = [...familyFlags, ...armFlags(arm, headline)];
  const goal = flagValue(flags, 'worldModel.goal') ?? QUICKSTART.goal;
  const from = flagValue(flags, 'worldModel.goalFrom') ?? QUICKSTART.goalFrom;
  const object = flagValue(flags, 'worldModel.object') ?? QUICKSTART.object;
  const goalPart =
    goal === 'none' ? '' : goal === 'localised' && from !== 'auto' ? `-goal-${goal}-from-${from}` : `-goal-${goal}`;
  const data = armWorldModelData(arm, headline);
  const dataPart =
    data.length === 0
      ? '-demos-only'
      : data.join('+') === DEFAULT_WORLD_MODEL_DATA.join('+')
        ? ''
        : `-data-${data.join('+')}`;
  return `${base}${goalPart}${object === 'none' ? '' : `-object-${object}`}${dataPart}`;
}

/** The world-model-only data folders most arms' world models learn from: the family's noisy experts. */
const DEFAULT_WORLD_MODEL_DATA = ['mixed'];

/**
 * The family's world-model-only data folders `arm`'s world model learns from besides the clone's demonstrations
 * ([]: the demonstrations alone); an ablation of a headline with data of its own learns from that data too.
 */
export function armWorldModelData(arm: string, headline: string): string[] {
  return (
    ARMS[arm]?.worldModelData ??
    (ablatesHeadline(arm, headline) ? ARMS[headline]?.worldModelData : undefined) ??
    DEFAULT_WORLD_MODEL_DATA
  );
}

/** The quickstart's own world-model settings, read from the file every arm starts from. */
const QUICKSTART = resolveConfig(wmrlConfigSchema, {
  files: [fileURLToPath(new URL('../configs/train/quickstart.yaml', import.meta.url))],
}).worldModel;
/** The value `flags` give a config key (`--key=value`, the last one wins), if any. */
const flagValue = (flags: string[], key: string): string | undefined =>
  flags
    .filter((f) => f.startsWith(`--${key}=`))
    .at(-1)
    ?.slice(key.length + 3);

/** The flags `arm` adds to the quickstart, with `headline` the WMRL arm the headline compares. */
export function armFlags(arm: string, headline: string): string[] {
  const own = ARMS[arm]?.flags;
  if (!own) throw new Error(`no benchmark arm '${arm}' (arms: ${Object.keys(ARMS).join(', ')})`);
  return ablatesHeadline(arm, headline) ? [...armFlags(headline, headline), ...own] : own;
}

/** The run folder's name of `arm` (before `-seed<n>`): an ablation of another headline is named after it. */
export function runName(arm: string, headline: string): string {
  return ablatesHeadline(arm, headline) ? `${arm}-of-${headline}` : arm;
}
