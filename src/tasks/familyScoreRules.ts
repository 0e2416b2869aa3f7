/**
 * Score rules a family file may name (`scores: [grasp]`): code that ranks imagined rollouts of one kind of task.
 * A family names the rules that suit it; the method looks them up by the name a training config gives.
 */
import type { FamilyScoreRule } from './familyDef.ts';
import { graspScoreAt, graspScores } from './pick/graspScore.ts';

export const SCORE_RULES: Readonly<Record<string, FamilyScoreRule>> = {
  grasp: { needs: 'object', perStep: graspScores, at: graspScoreAt },
};
