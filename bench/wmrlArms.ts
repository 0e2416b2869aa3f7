/**
 * The WMRL benchmark's arms (bench/wmrlBench.ts): which run by default, which only when named, how
 * many steps each runs, and the `wmrl train` flags each adds to the quickstart and its family's flags.
 */

// Every arm runs `steps`; the arms that spend about one group of robot time per step (wmrl,
// anchors-only, imagine-8) run `longSteps`: on reach 28 of them cost about 450 robot-s, just
// under a third of real-only's ≈1470, so the whole budget the target allows is measured and no
// more. Ablations compare at `steps`.
export const ALL_ARMS = [
  'real',
  'wmrl',
  'anchors-only',
  'imagine-8',
  'trust',
  'no-debias',
  'paper-map',
  'contextual',
  'no-anchor-weight',
  'no-ensemble-weight',
  'no-refit',
  'wm-only',
];
// Branched-imagination probes (FLAGS below), all long arms.
const BRANCH_ARMS = [
  'wmrl-branch',
  'wmrl-branch-half',
  'wmrl-branch-h8',
  'wmrl-branch-h4',
  'wmrl-branch-kl03',
  'wmrl-branch-kl1',
  'wmrl-branch-kl3',
  'wmrl-branch-refit1',
  'wmrl-branch-kl-limit',
  'wmrl-branch-refit1-kl-limit',
];
// Probes run only when named (--arms): the full benchmark's time stays within its budget.
export const EXTRA_ARMS = [
  'wmrl-full-refits',
  'wmrl-16mb',
  'real-16mb',
  'wmrl-fast',
  'wmrl-anchors-every-2',
  'wmrl-m4',
  'wmrl-lr3',
  'real-lr3',
  'wmrl-eval-2',
  'real-eval-2',
  'real-every-step',
  'wmrl-trust',
  'wmrl-trust-bound',
  'no-denoise',
  'wmrl-active',
  'wmrl-refit1',
  'wmrl-refit1-lean',
  ...BRANCH_ARMS,
  'wmrl-branch-kl-limit-real8',
  'wmrl-branch-kl-limit-real2',
  'real-g2',
];

export const LONG_ARMS = new Set([
  'wmrl',
  'anchors-only',
  'imagine-8',
  'wmrl-full-refits',
  'wmrl-16mb',
  'wmrl-fast',
  'wmrl-anchors-every-2',
  'wmrl-m4',
  'wmrl-lr3',
  'wmrl-eval-2',
  'wmrl-trust',
  'wmrl-trust-bound',
  'wmrl-active',
  'wmrl-refit1',
  'wmrl-refit1-lean',
  ...BRANCH_ARMS,
  'wmrl-branch-kl-limit-real2',
  'real-g2',
]);

// real-every-step evaluates real-only GRPO after each of its first 4 steps (≈ 620 robot-s on reach):
// where the others are compared at equal robot time, its curve is measured, not interpolated.
export const SHORT_ARMS: Record<string, number> = { 'real-every-step': 4 };

// The baseline's preset: 8 groups a step, every rollout executed (the quickstart imagines 31 of 32).
export const REAL_ONLY = ['--config', 'configs/train/real-only.yaml'];
// Branched imagination, a refit every step, until the KL limit: the arms that differ only after the stop share it.
const BRANCH_REFIT1_KL_LIMIT = ['--branch.fraction=1', '--worldModel.refitEvery=1', '--imaginedKlLimit=0.1'];
const FLAGS: Record<string, string[]> = {
  real: REAL_ONLY,
  wmrl: [],
  'no-debias': ['--no-debias'],
  // Debiasing with the paper's map: flat where pool-adjacent-violators pooled, so it ties rollouts of a group there.
  'paper-map': ['--isotonic.orderSlope=0'],
  // Debiasing by a ridge regression of the error on task context and mean action, not a pooled map.
  contextual: ['--debiasMap=contextual'],
  'no-denoise': ['--no-denoise'],
  // Denoising without one of its parts: the anchor-group weight, or the per-rollout ensemble weights.
  'no-anchor-weight': ['--denoise=ensemble'],
  'no-ensemble-weight': ['--denoise=anchor'],
  'no-refit': ['--no-refit'],
  'wm-only': ['--mode', 'wm-only'],
  // Imagined samples weigh λ = clip(2·AUC − 1, 0, 1) of the anchors' within-group AUC instead of
  // as much as real ones (the paper's fusion, and the quickstart's choice).
  trust: ['--imaginedWeight=trust'],
  // The same over the long arms' budget: on pick, where the world model does not rank, trust is
  // what keeps imagination from unlearning the clone (docs/benchmarks.md, pick).
  'wmrl-trust': ['--imaginedWeight=trust'],
  // λ from the AUC's one-sided 95% lower bound: imagination weighs in only once the anchors show it ranks.
  'wmrl-trust-bound': ['--imaginedWeight=trust', '--trust.confidence=1.645'],
  // The quickstart before session 18: 8 groups a step (one an anchor group), 40 optimiser steps a refit.
  'imagine-8': ['--groups=8', '--anchorFraction=0.1', '--worldModel.refitSteps=40'],
  // The quickstart's 32 groups with twice its optimiser steps per refit (the refit is most of a step's compute).
  'wmrl-full-refits': ['--worldModel.refitSteps=40'],
  // PPO takes the same number of updates per step whatever the sample count (4 minibatches × 2 epochs):
  // four times the minibatches takes four times the updates per real episode, at about the same compute.
  'wmrl-16mb': ['--ppo.minibatches=16'],
  // The same for GRPO on the environment: does the baseline also learn faster per robot second?
  'real-16mb': [...REAL_ONLY, '--ppo.minibatches=16'],
  // One pass over the samples in 8 minibatches: the same 8 updates a step at half the update's compute.
  'wmrl-fast': ['--ppo.epochs=1', '--ppo.minibatches=8'],
  // Anchors on every other step only: half the robot time a step, the steps between all imagined.
  'wmrl-anchors-every-2': ['--anchorEvery=2'],
  // Groups of 4 rollouts: the one anchor group costs half the robot time a step; twice the groups
  // keep the imagined rollouts (64 × 4 against 32 × 8) and so the compute.
  'wmrl-m4': ['--rolloutsPerGroup=4', '--groups=64', '--anchorFraction=0.0156'],
  // The one anchor group drawn where the world-model ensemble disagrees most (πps, so every group keeps a
  // chance and the PPI estimate stays unbiased by importance weights) instead of uniformly: the same robot
  // time a step, spent where the model is least sure.
  'wmrl-active': ['--anchorFraction=0', '--minAnchorGroups=0', '--activeAnchors=1'],
  // A refit every step instead of every 2: on reach, refits every 2 steps beat every 4 (75.0/80.0/81.7% against
  // 70.0/73.3/81.7% at step 24, seeds 0–2); on pick a refit every step gave the best early gain. Does the model
  // refitted on the newest anchor group bring reach's crossing forward? -lean keeps the optimiser steps per 2
  // steps (and so the compute) of the quickstart: 10 a refit instead of 20.
  'wmrl-refit1': ['--worldModel.refitEvery=1'],
  'wmrl-refit1-lean': ['--worldModel.refitEvery=1', '--worldModel.refitSteps=10'],
  // Every imagined group branches from a state of a recent anchor rollout (MBPO): imagination judges
  // the policy H steps from where its real rollouts went (near the block, at the grasp), not only
  // the first H steps of an episode, whose imagination ranks pick's rollouts backwards.
  'wmrl-branch': ['--branch.fraction=1'],
  // Half the imagined groups branched, half from episode starts (these also give the PPI estimate).
  'wmrl-branch-half': ['--branch.fraction=0.5'],
  // The same with shorter branches (MBPO's lesson: model error compounds with the horizon; on pick the
  // closed-loop gripper drift is 1.3 cm after 8 imagined steps and 8 cm after 16, bench:closed-loop).
  'wmrl-branch-h8': ['--branch.fraction=1', '--horizon=8'],
  'wmrl-branch-h4': ['--branch.fraction=1', '--horizon=4'],
  // Branches with a stronger pull to the clone (β of KL(π ‖ π_BC), 0.1 by default): the branch arm gains
  // 18 points in 4 steps, then its policy keeps moving (KL to the clone 0.08 → 0.3) and unlearns.
  'wmrl-branch-kl03': ['--branch.fraction=1', '--ppo.klCoef=0.3'],
  'wmrl-branch-kl1': ['--branch.fraction=1', '--ppo.klCoef=1'],
  'wmrl-branch-kl3': ['--branch.fraction=1', '--ppo.klCoef=3'],
  // Branches with a refit every step (2 by default): does a model refitted on fresher anchors keep the
  // moving policy from exploiting its errors?
  'wmrl-branch-refit1': ['--branch.fraction=1', '--worldModel.refitEvery=1'],
  // Branches until the policy's KL to the clone first passes 0.1, then the anchors alone: the branch arms'
  // step-4 policies (81–84% held-out) sat at KL 0.07–0.1 and every seed unlearned beyond; real-only GRPO's
  // best pick policies (89% at step 12) sit at KL 0.08–0.13. Chosen on seeds 0–4 (2.9×); seeds 5–9 gave 2.1×.
  'wmrl-branch-kl-limit': ['--branch.fraction=1', '--imaginedKlLimit=0.1'],
  // The two that held most on seeds 0–4 together: a refit every step (the best step 4, 84%) until the KL
  // limit stops imagination. Both were chosen on seeds 0–4, so seeds 5–9 are its check.
  'wmrl-branch-refit1-kl-limit': BRANCH_REFIT1_KL_LIMIT,
  // The same until the stop, then GRPO on the environment with real-only's 8 groups a step: after the stop one anchor
  // group a step random-walked the policy away (KL 0.1 → 0.2–0.5) and lost 8 points by step 12. The arm runs the
  // baseline's 12 steps (not 28: each step after the stop costs real-only's robot time).
  'wmrl-branch-kl-limit-real8': [...BRANCH_REFIT1_KL_LIMIT, '--realGroupsAfterStop=8'],
  // Between the two: 2 real groups a step after the stop (a quarter of real-only's robot time a step, the same 8 PPO
  // updates a step on 16 rollouts instead of 64), over the long arms' 28 steps.
  'wmrl-branch-kl-limit-real2': [...BRANCH_REFIT1_KL_LIMIT, '--realGroupsAfterStop=2'],
  'real-every-step': [...REAL_ONLY, '--eval.every=1'],
  // Three times Adam's step for both methods: does either learn faster per robot second?
  'wmrl-lr3': ['--ppo.learningRate=3e-4'],
  'real-lr3': [...REAL_ONLY, '--ppo.learningRate=3e-4'],
  // The headline arms evaluated every 2 steps instead of 4 (the same training: evaluation changes
  // no update): how much of the time to the target is the linear interpolation between evaluations?
  'wmrl-eval-2': ['--eval.every=2'],
  'real-eval-2': [...REAL_ONLY, '--eval.every=2'],
  // GRPO on the environment with 2 groups a step over the long arms' 28 steps: the baseline of what
  // wmrl-branch-kl-limit-real2 does after its stop, so its own share of the robot-time saving shows.
  'real-g2': [...REAL_ONLY, '--groups=2'],
  // GRPO on the environment with WMRL's real budget (one group per step): what the anchors alone teach.
  'anchors-only': [...REAL_ONLY, '--groups=1'],
};

// Ablations take one part away from the headline's WMRL arm: on reach that is the quickstart (no
// flags of its own); with another headline (pick: wmrl-trust-bound) they start from its flags, and
// their runs are kept apart (`<arm>-of-<headline>-seed<n>`) so that a change of headline never reuses them.
const ABLATIONS = new Set([
  'trust',
  'no-debias',
  'paper-map',
  'contextual',
  'no-denoise',
  'no-anchor-weight',
  'no-ensemble-weight',
  'no-refit',
  'wm-only',
]);

/** Whether `arm` is an ablation of another headline than the quickstart (which has no flags of its own). */
const ablatesHeadline = (arm: string, headline: string) =>
  ABLATIONS.has(arm) && arm !== headline && headline !== 'wmrl';

/** The flags `arm` adds to the quickstart, with `headline` the WMRL arm the headline compares. */
export function armFlags(arm: string, headline: string): string[] {
  const own = FLAGS[arm];
  if (!own) throw new Error(`no benchmark arm '${arm}' (arms: ${[...ALL_ARMS, ...EXTRA_ARMS].join(', ')})`);
  return ablatesHeadline(arm, headline) ? [...armFlags(headline, headline), ...own] : own;
}

/** The run folder's name of `arm` (before `-seed<n>`): an ablation of another headline is named after it. */
export function runName(arm: string, headline: string): string {
  return ablatesHeadline(arm, headline) ? `${arm}-of-${headline}` : arm;
}
