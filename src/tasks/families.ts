/**
 * The task family registry: the one list of families, each defined in its own folder (src/tasks/<family>/).
 * Everything per family (selectors, sampling, splits, the world model's task context, a family's own score rules)
 * reads it from here.
 */
import type { FamilyDef, FamilyScoreRule } from './familyDef.ts';
import { pick } from './pick/family.ts';
import { push } from './push/family.ts';
import { reach } from './reach/family.ts';
import { TaskError } from './taskError.ts';

export type { FamilyDef } from './familyDef.ts';

// Key order is the families' order (TASK_FAMILIES, the world model's one-hot): append, never reorder.
const REGISTRY = { reach, push, pick } satisfies Record<string, FamilyDef>;

export type TaskFamily = keyof typeof REGISTRY;
export const FAMILIES: Readonly<Record<TaskFamily, FamilyDef>> = REGISTRY;

/** Every family's own score rules, by name (see FamilyDef.scoreRules). */
export const FAMILY_SCORE_RULES: Readonly<Record<string, FamilyScoreRule>> = Object.fromEntries(
  Object.values(REGISTRY).flatMap((f: FamilyDef) => Object.entries(f.scoreRules ?? {})),
);
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
