/**
 * Which held-out colour words a policy's vocabulary lacks. The tokenizer is built from the
 * training instructions, so a family's held-out colour is a known word only if some other
 * family's demonstrations use it as a train colour. Without it the colour reads as <unk> and
 * the policy cannot tell which object the instruction names: a pick-only clone scored 0/24 on
 * 'yellow' pick episodes, against 11/14 once reach demos (where yellow is a train colour) joined.
 */
import { familyDef, type TaskFamily } from '../tasks/families.ts';
import type { ColorName } from '../tasks/vocabulary.ts';

export interface MissingColour {
  family: TaskFamily;
  color: ColorName;
}

/** The held-out colours of `families` that are not words of `vocab`, in family then colour order. */
export function heldOutColoursMissing(vocab: readonly string[], families: Iterable<TaskFamily>): MissingColour[] {
  const words = new Set(vocab);
  const missing: MissingColour[] = [];
  for (const family of new Set(families))
    for (const color of familyDef(family).heldOutColors) if (!words.has(color)) missing.push({ family, color });
  return missing;
}
