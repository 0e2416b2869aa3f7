/**
 * Which parts of the method a run uses, resolved once from its config: the mode and the ablation
 * switches become one settled object, so a training step reads `method.debias` instead of testing
 * the mode and the flag again at every use.
 */
import type { WmrlConfig } from './wmrlConfig.ts';
import { scoreRule } from '../../worldmodel/scoreRules.ts';

export interface Method {
  /** Anchor groups per step: all in real mode, none in wm-only. */
  anchorGroups: number;
  /** wmrl mode: anchors run on every k-th step only (1 in the other modes). */
  anchorEvery: number;
  /**
   * wmrl mode: imagination is checked and corrected by the anchors — anchor groups are imagined
   * too, with the noise they run with, and the world model learns from them.
   */
  corrects: boolean;
  /** Online debiasing: world-model scores pass through the isotonic map fitted on anchors (wmrl mode). */
  debias: boolean;
  /** Inverse-variance denoising of real anchor groups: the anchor weight (wmrl mode). */
  anchorWeight: boolean;
  /** Inverse-variance denoising of imagined rollouts: the per-rollout ensemble weights (wmrl mode). */
  ensembleWeight: boolean;
  /** Anchor episodes refit the world model (wmrl mode). */
  refit: boolean;
  /** λ, the weight of an imagined sample against a real one. */
  imaginedWeight: number;
  /** Episodes of the starting policy that refit the world model before step 1 (wmrl mode). */
  warmupEpisodes: number;
}

export function resolveMethod(config: WmrlConfig): Method {
  const corrects = config.mode === 'wmrl';
  if (config.worldModel.keyframes && !config.worldModel.endEffector)
    throw new Error(
      'worldModel.keyframes appends the keyframes relative to the end effector: it needs worldModel.endEffector',
    );
  if (scoreRule(config.score).needs === 'keyframes' && !config.worldModel.keyframes)
    throw new Error(
      `score=${config.score} is computed from the keyframe numbers of the world model's state: ` +
        'it needs worldModel.keyframes',
    );
  return {
    anchorGroups: anchorGroupCount(config),
    anchorEvery: corrects ? config.anchorEvery : 1,
    corrects,
    debias: corrects && config.debias,
    anchorWeight: corrects && (config.denoise === true || config.denoise === 'anchor'),
    ensembleWeight: corrects && (config.denoise === true || config.denoise === 'ensemble'),
    refit: corrects && config.refit,
    imaginedWeight: config.imaginedWeight,
    warmupEpisodes: corrects ? config.worldModel.warmupEpisodes : 0,
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
    'isotonic',
    'denoise',
    'anchorWeight',
    'sigma0Squared',
    'refit',
    'anchorFraction',
    'minAnchorGroups',
    'anchorEvery',
    'worldModel.refitEvery',
    'worldModel.refitEpochs',
    'worldModel.refitSteps',
    'worldModel.replayEpisodes',
    'worldModel.warmupEpisodes',
  ];
  if (mode === 'wm-only') return uncorrected;
  return [...uncorrected, 'worldModel', 'horizon', 'score', 'imaginedWeight', 'uncertaintyPenalty'];
}
