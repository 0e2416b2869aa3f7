/** Reach: move the gripper to the instructed object (it hovers just above it). */
import type { FamilyDef } from '../familyDef.ts';
import { OBJECT_KINDS } from '../vocabulary.ts';

export const reach = {
  objects: OBJECT_KINDS,
  templates: [
    'reach the {color} {object}',
    'move the gripper to the {color} {object}',
    'touch the {color} {object}',
    'go over to the {color} {object}',
  ],
  heldOutColors: ['purple'],
  horizon: 40,
} as const satisfies FamilyDef;
