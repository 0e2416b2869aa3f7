/**
 * How an imagined rollout is scored, by the rule's name (a training config's `score`). The world model's own
 * heads give three: `final`, the success probability of the last state of the horizon; `max`, the best success
 * probability over the steps; `progress`, the predicted task progress (dense, in [0,1]) of the last state. `max`
 * picks up every step's noise: on 160 anchor episodes of a tiny reach run the replayed `max` ranked failures above
 * successes where `final` separated them. Success is labelled only at the step an episode first succeeds (episodes
 * end there), so a success head rarely sees a held success; progress is labelled at every step, near misses
 * included. `keyframes`: the gripper's closeness to the demonstrations' keyframes at the rollout's own events
 * (keyframes.ts), which needs no family's rule. A task family's file may name rules of its own (`scores:`, src/tasks/familyScoreRules.ts), read off
 * the state's object features.
 */
import { SCORE_RULES as FAMILY_RULES } from '../tasks/familyScoreRules.ts';
import type { ImaginedRollouts } from './imagine.ts';
import { keyframeScores } from './keyframes.ts';

/** What a rule reads of a batch of rollouts (imagine.ts): H steps × R rows (member-major rows: K × B). */
export type RolloutValues = Pick<
  ImaginedRollouts,
  'horizon' | 'stateDim' | 'actionDim' | 'states' | 'actions' | 'successProb' | 'progress'
> & { rows: number };

export interface ScoreRule {
  /**
   * What the world model's state must hold for it: 'object', the object features (worldModel.object); 'keyframes',
   * the keyframe features (worldModel.keyframes).
   */
  needs?: 'object' | 'keyframes';
  /** Per step (H × R) the value a rollout is scored by. */
  perStep(values: RolloutValues): Float32Array;
  /** A member's score over the horizon: its last step's value, or its best. */
  over: 'final' | 'max';
}

const HEAD_RULES: Record<string, ScoreRule> = {
  final: { perStep: (v) => v.successProb, over: 'final' },
  max: { perStep: (v) => v.successProb, over: 'max' },
  progress: { perStep: (v) => v.progress, over: 'final' },
  keyframes: {
    needs: 'keyframes',
    perStep: (v) => keyframeScores(v.states, v.actions, v.horizon, v.rows, v.stateDim, v.actionDim),
    over: 'final',
  },
};

const RULES: Record<string, ScoreRule> = {
  ...HEAD_RULES,
  ...Object.fromEntries(
    Object.entries(FAMILY_RULES).map(([name, rule]) => [
      name,
      {
        needs: rule.needs,
        perStep: (v: RolloutValues) => rule.perStep(v.states, v.actions, v.horizon, v.rows, v.stateDim, v.actionDim),
        over: 'final',
      } satisfies ScoreRule,
    ]),
  ),
};

/** Every rule's name: the world model's heads', then the families' own. */
export const SCORE_RULES = Object.keys(RULES) as [string, ...string[]];
export type ScoreRuleName = string;

/** The rule of this name; an unknown one is refused with the names there are. */
export function scoreRule(name: ScoreRuleName): ScoreRule {
  const rule = RULES[name];
  if (!rule) throw new Error(`no score rule '${name}' (rules: ${SCORE_RULES.join(', ')})`);
  return rule;
}
