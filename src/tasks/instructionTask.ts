/**
 * The task an instruction names, when it is one of the registered families' phrasings: `wmrl run` sets the
 * robot's scene up from it (the reset request carries a task) and reads success against it; an import files a
 * dataset's episodes under it.
 */
import type { TaskSpec } from '../core/types.ts';
import { familyDef, taskFamilies } from './families.ts';
import { renderInstruction } from './instructions.ts';
import { splitOf } from './splits.ts';
import { COLOR_NAMES } from './vocabulary.ts';

/** Lower case, words only: "Pick up the RED block." reads as "pick up the red block". */
export function normaliseInstruction(text: string): string {
  return text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean)
    .join(' ');
}

/** The task whose rendered instruction is `text` (case and punctuation aside), or undefined. */
export function taskOfInstruction(text: string): TaskSpec | undefined {
  const wanted = normaliseInstruction(text);
  if (!wanted) return undefined;
  for (const family of taskFamilies()) {
    const def = familyDef(family);
    const scene = def.scene;
    for (let template = 0; template < def.templates.length; template++) {
      if (!scene) {
        if (normaliseInstruction(def.templates[template]!) === wanted)
          return { family, template, split: splitOf(family, undefined, template), instruction: text.trim() };
        continue;
      }
      for (const color of COLOR_NAMES)
        for (const object of scene.objects) {
          const zones = scene.zone ? COLOR_NAMES.filter((c) => c !== color) : [undefined];
          for (const zone of zones) {
            if (normaliseInstruction(renderInstruction(family, template, color, object, zone)) !== wanted) continue;
            const task: TaskSpec = {
              family,
              color,
              object,
              template,
              split: splitOf(family, color, template),
              instruction: text.trim(),
            };
            if (zone !== undefined) task.zoneColor = zone;
            return task;
          }
        }
    }
  }
  return undefined;
}
