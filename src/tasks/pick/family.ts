/**
 * Pick: grasp the instructed block and lift it. Its own score rule, `grasp`, ranks imagined rollouts by where the
 * gripper first closes (graspScore.ts).
 */
import type { FamilyDef } from '../familyDef.ts';
import { graspScoreAt, graspScores } from './graspScore.ts';

export const pick = {
  objects: ['block'],
  templates: [
    'pick up the {color} block',
    'grasp the {color} block and lift it',
    'lift the {color} block',
    'raise the {color} block off the table',
  ],
  heldOutColors: ['yellow'],
  horizon: 50,
  scoreRules: { grasp: { needs: 'object', perStep: graspScores, at: graspScoreAt } },
} as const satisfies FamilyDef;
