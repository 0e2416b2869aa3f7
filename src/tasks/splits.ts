/**
 * The train/test split. Held out for `test` only: some colour/family combinations (every
 * paraphrase) and one paraphrase per family (every combination).
 */
import type { Split } from '../core/types.ts';
import { FAMILIES, TASK_FAMILIES, type TaskFamily } from './families.ts';
import { renderInstruction } from './instructions.ts';
import { COLOR_NAMES, type ColorName } from './vocabulary.ts';

/** The split a (family, colour, template) combination belongs to. */
export function splitOf(family: TaskFamily, color: ColorName, template: number): Split {
  const def = FAMILIES[family];
  if (def.heldOutColors.includes(color)) return 'test';
  return template === def.templates.length - 1 ? 'test' : 'train';
}

export interface InstructionRow {
  family: TaskFamily;
  color: ColorName;
  template: number;
  split: Split;
  example: string;
}

/** Every (family, colour, template) combination with its split, for `wmrl tasks`. */
export function enumerateInstructions(): InstructionRow[] {
  const rows: InstructionRow[] = [];
  for (const family of TASK_FAMILIES) {
    const def = FAMILIES[family];
    for (const color of COLOR_NAMES) {
      for (let template = 0; template < def.templates.length; template++) {
        const zone = family === 'push' ? COLOR_NAMES.find((c) => c !== color) : undefined;
        const example = renderInstruction(family, template, color, def.objects[0]!, zone);
        rows.push({ family, color, template, split: splitOf(family, color, template), example });
      }
    }
  }
  return rows;
}
