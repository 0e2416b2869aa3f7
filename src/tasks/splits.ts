/**
 * The train/test split, as each family's file declares it: test-only are the instructions naming a held-out
 * target colour (every paraphrase) and the held-out templates or texts (every colour).
 */
import type { Split } from '../core/types.ts';
import { familyDef, taskFamilies } from './families.ts';
import { renderInstruction } from './instructions.ts';
import { COLOR_NAMES, type ColorName } from './vocabulary.ts';

/** The split a (family, colour, template) combination belongs to; a family of fixed texts has no colour. */
export function splitOf(family: string, color: string | undefined, template: number): Split {
  const def = familyDef(family);
  if (color !== undefined && (def.heldOutColors as readonly string[]).includes(color)) return 'test';
  return def.heldOutTemplates.includes(template) ? 'test' : 'train';
}

export interface InstructionRow {
  family: string;
  color?: ColorName;
  template: number;
  split: Split;
  example: string;
}

/** Every (family, colour, template) combination with its split, for `wmrl tasks`. */
export function enumerateInstructions(): InstructionRow[] {
  const rows: InstructionRow[] = [];
  for (const family of taskFamilies()) {
    const def = familyDef(family);
    const scene = def.scene;
    if (!scene) {
      def.templates.forEach((example, template) =>
        rows.push({ family, template, split: splitOf(family, undefined, template), example }),
      );
      continue;
    }
    for (const color of COLOR_NAMES) {
      for (let template = 0; template < def.templates.length; template++) {
        const zone = scene.zone ? COLOR_NAMES.find((c) => c !== color) : undefined;
        const example = renderInstruction(family, template, color, scene.objects[0]!, zone);
        rows.push({ family, color, template, split: splitOf(family, color, template), example });
      }
    }
  }
  return rows;
}
