/** Push: slide the instructed block into the instructed zone. */
import type { FamilyDef } from '../familyDef.ts';

export const push = {
  objects: ['block'],
  templates: [
    'push the {color} block into the {zone} zone',
    'slide the {color} block onto the {zone} zone',
    'move the {color} block to the {zone} area',
    'shove the {color} block over to the {zone} target',
  ],
  heldOutColors: ['orange'],
  horizon: 70,
} as const satisfies FamilyDef;
