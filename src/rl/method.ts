/**
 * Which parts of the method a run uses, resolved once from its config: the mode and the ablation
 * switches become one settled object, so a training step reads `method.debias` instead of testing
 * the mode and the flag again at every use.
 */
import type { WmrlConfig } from './wmrlConfig.ts';
import { isObjectRule } from '../worldmodel/objectScores.ts';

export interface Method {
  /** Anchor groups per step, before active ones: all in real mode, none in wm-only. */
  anchorGroups: number;
  /** wmrl mode: anchors run on every k-th step only (1 in the other modes). */
  anchorEvery: number;
  /**
   * wmrl mode: imagination is checked and corrected by the anchors — anchor groups are imagined
   * too, with the noise they run with, and the world model learns from them.
   */
  corrects: boolean;
  /** Online debiasing: world-model scores pass through a correction fitted on anchors (wmrl mode). */
  debias: boolean;
  /** Which correction: the pooled isotonic map, or the contextual one (src/rl/contextualCorrection.ts). */
  debiasMap: 'isotonic' | 'contextual';
  /** Inverse-variance denoising of real anchor groups: the anchor weight (wmrl mode). */
  anchorWeight: boolean;
  /** Inverse-variance denoising of imagined rollouts: the per-rollout ensemble weights (wmrl mode). */
  ensembleWeight: boolean;
  /** Anchor episodes refit the world model (wmrl mode). */
  refit: boolean;
  /** λ, the weight of an imagined sample against a real one: 'trust' (measured) or fixed. */
  imaginedWeight: 'trust' | number;
  /** Extra anchor groups drawn where the ensemble disagrees most (wmrl mode). */
  activeAnchors: number;
  /** Share of imagined groups that branch from recent anchor rollouts (wmrl mode). */
  branchFraction: number;
  /** Episodes of the starting policy that refit the world model before step 1 (wmrl mode). */
  warmupEpisodes: number;
  /** The first step whose imagined groups train the policy (wmrl mode; 1 in the other modes). */
  imagineFromStep: number;
  /** Each step updates on its anchor groups alone before the joint update (wmrl mode). */
  anchorUpdateFirst: boolean;
  /** KL(π ‖ π_BC) past which imagination stops for the rest of the run (wmrl mode; absent: never). */
  imaginedKlLimit?: number;
  /** Groups a step executes, all of them, once imagination has stopped (absent: the anchor groups alone). */
  realGroupsAfterStop?: number;
  /** All-real steps after a stop before imagination resumes, one more KL limit from there (absent: never). */
  imaginationRestartAfter?: number;
  /** Minibatches an epoch while imagination is stopped (absent: ppo.minibatches). */
  minibatchesAfterStop?: number;
  /** Adam's step while imagination is stopped (absent: ppo.learningRate). */
  learningRateAfterStop?: number;
}

export function resolveMethod(config: WmrlConfig): Method {
  const corrects = config.mode === 'wmrl';
  // These switches act only once imagination has stopped at the KL limit.
  const afterStop = [
    ['realGroupsAfterStop', config.realGroupsAfterStop, 'takes effect once imagination stops'],
    ['imaginationRestartAfter', config.imaginationRestartAfter, 'restarts imagination after a stop'],
    ['minibatchesAfterStop', config.minibatchesAfterStop, 'takes effect once imagination stops'],
    ['learningRateAfterStop', config.learningRateAfterStop, 'takes effect once imagination stops'],
  ] as const;
  for (const [name, value, what] of afterStop)
    if (value !== undefined && !(corrects && config.imaginedKlLimit !== undefined))
      throw new Error(
        `${name}=${value} ${what}: it needs mode 'wmrl' and imaginedKlLimit ` +
          `(mode '${config.mode}', imaginedKlLimit ${config.imaginedKlLimit ?? 'unset'})`,
      );
  if (config.imagineFromStep > 1 && !corrects)
    throw new Error(
      `imagineFromStep=${config.imagineFromStep} delays imagination: it needs mode 'wmrl' (mode '${config.mode}')`,
    );
  if (config.anchorUpdateFirst && !corrects)
    throw new Error(
      "anchorUpdateFirst adds an update on the anchors before imagination's: " +
        `it needs mode 'wmrl' (mode '${config.mode}')`,
    );
  if (config.worldModel.goal !== 'none' && !config.worldModel.endEffector)
    throw new Error(
      `worldModel.goal=${config.worldModel.goal} appends the goal relative to the end effector: ` +
        'it needs worldModel.endEffector',
    );
  if (config.worldModel.object !== 'none' && !config.worldModel.endEffector)
    throw new Error(
      `worldModel.object=${config.worldModel.object} appends the object relative to the end effector: ` +
        'it needs worldModel.endEffector',
    );
  if (isObjectRule(config.score) && config.worldModel.object === 'none')
    throw new Error(
      `score=${config.score} is computed from the object's numbers of the world model's state: ` +
        'it needs worldModel.object (localised or privileged)',
    );
  const anchorGroups = anchorGroupCount(config);
  return {
    anchorGroups,
    anchorEvery: corrects ? config.anchorEvery : 1,
    corrects,
    debias: corrects && config.debias,
    debiasMap: config.debiasMap,
    anchorWeight: corrects && (config.denoise === true || config.denoise === 'anchor'),
    ensembleWeight: corrects && (config.denoise === true || config.denoise === 'ensemble'),
    refit: corrects && config.refit,
    // wm-only measures nothing to trust: its imagined samples count as real ones.
    imaginedWeight: config.imaginedWeight === 'trust' && !corrects ? 1 : config.imaginedWeight,
    activeAnchors: corrects ? Math.min(config.activeAnchors, config.groups - anchorGroups) : 0,
    branchFraction: corrects ? config.branch.fraction : 0,
    warmupEpisodes: corrects ? config.worldModel.warmupEpisodes : 0,
    imagineFromStep: corrects ? config.imagineFromStep : 1,
    anchorUpdateFirst: corrects && config.anchorUpdateFirst,
    ...(corrects && config.imaginedKlLimit !== undefined ? { imaginedKlLimit: config.imaginedKlLimit } : {}),
    ...(config.realGroupsAfterStop !== undefined ? { realGroupsAfterStop: config.realGroupsAfterStop } : {}),
    ...(config.imaginationRestartAfter !== undefined
      ? { imaginationRestartAfter: config.imaginationRestartAfter }
      : {}),
    ...(config.minibatchesAfterStop !== undefined ? { minibatchesAfterStop: config.minibatchesAfterStop } : {}),
    ...(config.learningRateAfterStop !== undefined ? { learningRateAfterStop: config.learningRateAfterStop } : {}),
  };
}

/** Anchor groups per step: a share of G, with the floor; all in real mode, none in wm-only. */
export function anchorGroupCount(config: WmrlConfig): number {
  if (config.mode === 'real') return config.groups;
  if (config.mode === 'wm-only') return 0;
  return Math.min(config.groups, Math.max(config.minAnchorGroups, Math.round(config.anchorFraction * config.groups)));
}

/** Whether step (1-based) runs its anchor groups: every step unless `anchorEvery` spaces them out. */
export function anchorsDue(method: Method, step: number): boolean {
  return (step - 1) % method.anchorEvery === 0;
}

/**
 * Config keys (dotted prefixes) a run of `mode` never reads, so changing them cannot change its
 * results: without corrections (real, wm-only) the anchors' debiasing, denoising, refits and
 * schedule are off (resolveMethod); real mode also never builds a world model or imagines. A
 * benchmark judging whether a cached run is stale skips them: real-only GRPO's preset extends the
 * quickstart, whose imagination settings change without touching the baseline.
 */
export function keysUnread(mode: WmrlConfig['mode']): string[] {
  if (mode === 'wmrl') return [];
  const uncorrected = [
    'debias',
    'debiasMap',
    'contextual',
    'isotonic',
    'denoise',
    'anchorWeight',
    'sigma0Squared',
    'refit',
    'anchorFraction',
    'minAnchorGroups',
    'anchorEvery',
    'activeAnchors',
    'branch',
    'imagineFromStep',
    'anchorUpdateFirst',
    'imaginedKlLimit',
    'trust',
    'worldModel.refitEvery',
    'worldModel.refitEpochs',
    'worldModel.refitSteps',
    'worldModel.replayEpisodes',
    'worldModel.scoreRefitEvery',
    'worldModel.anchorRepeat',
    'worldModel.warmupEpisodes',
    'worldModel.warmupStd',
    'worldModel.warmupRefitEpochs',
  ];
  if (mode === 'wm-only') return uncorrected;
  return [
    ...uncorrected,
    'worldModel',
    'horizon',
    'score',
    'terminateAt',
    'imaginedAdvantage',
    'imaginedWeight',
    'uncertaintyPenalty',
  ];
}
