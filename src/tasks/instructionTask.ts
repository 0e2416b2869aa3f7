/**
 * The task an instruction names, when it is one of the families' phrasings: `wmrl run` sets the
 * robot's scene up from it (the reset request carries a task) and reads success against it.
 */
import type { TaskSpec } from '../core/types.ts';
import { FAMILIES, TASK_FAMILIES } from './families.ts';
import { renderInstruction } from './instructions.ts';
import { splitOf } from './splits.ts';
import { COLOR_NAMES } from './vocabulary.ts';

/** Lower case, words only: "Pick up the RED block." reads as "pick up the red block". */
function normalise(text: string): string {
  return text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean)
    .join(' ');
}

/** The task whose rendered instruction is `text` (case and punctuation aside), or undefined. */
export function taskOfInstruction(text: string): TaskSpec | undefined {
  const wanted = normalise(text);
  if (!wanted) return undefined;
  for (const family of TASK_FAMILIES) {
    const def = FAMILIES[family];
    for (let template = 0; template < def.templates.length; template++)
      for (const color of COLOR_NAMES)
        for (const object of def.objects) {
          const zones = family === 'push' ? COLOR_NAMES.filter((c) => c !== color) : [undefined];
          for (const zone of zones) {
            if (normalise(renderInstruction(family, template, color, object, zone)) !== wanted) continue;
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
  return undefined;
}
