/**
 * The task family registry: the one list of families and what each asks of a scene. Everything
 * per family (selectors, sampling, splits, the world model's task context) reads it from here.
 */
import { TaskError } from './taskError.ts';
import { OBJECT_KINDS, type ColorName, type ObjectKind } from './vocabulary.ts';

export interface FamilyDef {
  /** Object kinds the target may be. */
  objects: readonly ObjectKind[];
  /** Templates: `{color}`, `{object}`, `{zone}` are filled in. The last is test-only. */
  templates: readonly string[];
  /** Target colours whose every instruction is test-only. */
  heldOutColors: readonly ColorName[];
  /** Control ticks before the episode ends. */
  horizon: number;
}

// Key order is the families' order (TASK_FAMILIES, the world model's one-hot): append, never reorder.
const REGISTRY = {
  reach: {
    objects: OBJECT_KINDS,
    templates: [
      'reach the {color} {object}',
      'move the gripper to the {color} {object}',
      'touch the {color} {object}',
      'go over to the {color} {object}',
    ],
    heldOutColors: ['purple'],
    horizon: 40,
  },
  push: {
    objects: ['block'],
    templates: [
      'push the {color} block into the {zone} zone',
      'slide the {color} block onto the {zone} zone',
      'move the {color} block to the {zone} area',
      'shove the {color} block over to the {zone} target',
    ],
    heldOutColors: ['orange'],
    horizon: 70,
  },
  pick: {
    objects: ['block'],
    templates: [
      'pick up the {color} block',
      'grasp the {color} block and lift it',
      'lift the {color} block',
      'raise the {color} block off the table',
    ],
    heldOutColors: ['yellow'],
    horizon: 50,
  },
} satisfies Record<string, FamilyDef>;

export type TaskFamily = keyof typeof REGISTRY;
export const FAMILIES: Readonly<Record<TaskFamily, FamilyDef>> = REGISTRY;
export const TASK_FAMILIES = Object.keys(REGISTRY) as readonly TaskFamily[];

export function isTaskFamily(name: string): name is TaskFamily {
  return (TASK_FAMILIES as readonly string[]).includes(name);
}

/** `name` as a registered family; throws a TaskError naming the known ones otherwise. */
export function taskFamily(name: string): TaskFamily {
  if (!isTaskFamily(name)) throw new TaskError(`unknown task family '${name}'; known: ${TASK_FAMILIES.join(', ')}`);
  return name;
}

/** The registry entry of a family; throws a TaskError naming the known families for an unknown one. */
export function familyDef(name: string): FamilyDef {
  return FAMILIES[taskFamily(name)];
}
