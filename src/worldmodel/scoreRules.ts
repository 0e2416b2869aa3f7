/**
 * How an imagined rollout is scored, by the rule's name (a training config's `score`). The world model's own
 * heads give three: `final`, the success probability of the last state of the horizon; `max`, the best success
 * probability over the steps; `progress`, the predicted task progress (dense, in [0,1]) of the last state. `max`
 * picks up every step's noise (one step's spike wins). Success is labelled only at the step an episode first
 * succeeds (episodes end there), so a success head rarely sees a held success; progress is labelled at every
 * step, near misses included. `keyframes`: the gripper's closeness to the demonstrations' keyframes at the
 * rollout's own events (keyframes.ts). Every rule serves every task family alike.
 */
import type { ImaginedRollouts } from './imagine.ts';
import { keyframeScoreAt, keyframeScores } from './keyframes.ts';

/** What a rule reads of a batch of rollouts (imagine.ts): H steps × R rows (member-major rows: K × B). */
export type RolloutValues = Pick<
  ImaginedRollouts,
  'horizon' | 'stateDim' | 'actionDim' | 'states' | 'actions' | 'successProb' | 'progress'
> & { rows: number };

export interface ScoreRule {
  /** What the world model's state must hold for it: 'keyframes', the keyframe features (worldModel.keyframes). */
  needs?: 'keyframes';
  /** Per step (H × R) the value a rollout is scored by. */
  perStep(values: RolloutValues): Float32Array;
  /** A member's score over the horizon: its last step's value, or its best. */
  over: 'final' | 'max';
  /**
   * A rule read off states and actions alone: one recorded episode's score as of step `end` (its states and actions
   * in the world model's layout, step-major), the same rule on a single row.
   */
  at?(states: Float32Array, actions: Float32Array, end: number, D: number, A: number): number;
}

const RULES: Record<string, ScoreRule> = {
  final: { perStep: (v) => v.successProb, over: 'final' },
  max: { perStep: (v) => v.successProb, over: 'max' },
  progress: { perStep: (v) => v.progress, over: 'final' },
  keyframes: {
    needs: 'keyframes',
    perStep: (v) => keyframeScores(v.states, v.actions, v.horizon, v.rows, v.stateDim, v.actionDim),
    over: 'final',
    at: keyframeScoreAt,
  },
};

/** Every rule's name. */
export const SCORE_RULES = Object.keys(RULES) as [string, ...string[]];
export type ScoreRuleName = string;

/** The rule of this name; an unknown one is refused with the names there are. */
export function scoreRule(name: ScoreRuleName): ScoreRule {
  const rule = RULES[name];
  if (!rule) throw new Error(`no score rule '${name}' (rules: ${SCORE_RULES.join(', ')})`);
  return rule;
}
