/**
 * A LeRobot task string as a wmrl TaskSpec: an instruction that one of wmrl's templates renders
 * exactly (any colour, object and zone) is that task; any other is assigned the `--task` spec the user
 * gives, keeping the dataset's own words as the instruction.
 */
import type { TaskSpec } from '../../core/types.ts';
import { FAMILIES, TASK_FAMILIES } from '../../tasks/families.ts';
import { renderInstruction } from '../../tasks/instructions.ts';
import { splitOf } from '../../tasks/splits.ts';
import { taskSpecSchema } from '../../tasks/taskSpec.ts';
import { COLOR_NAMES } from '../../tasks/vocabulary.ts';

let known: Map<string, TaskSpec> | undefined;

/** Every instruction wmrl's families render, with its spec. */
function knownInstructions(): Map<string, TaskSpec> {
  if (known) return known;
  known = new Map();
  for (const family of TASK_FAMILIES) {
    const def = FAMILIES[family];
    for (let template = 0; template < def.templates.length; template++) {
      for (const color of COLOR_NAMES) {
        for (const object of def.objects) {
          const zones = family === 'push' ? COLOR_NAMES.filter((c) => c !== color) : [undefined];
          for (const zoneColor of zones) {
            const instruction = renderInstruction(family, template, color, object, zoneColor);
            const split = splitOf(family, color, template);
            const spec: TaskSpec = { family, color, object, template, split, instruction };
            known.set(instruction, zoneColor ? { ...spec, zoneColor } : spec);
          }
        }
      }
    }
  }
  return known;
}

/** The spec whose instruction is exactly `text` (case and spacing aside), or undefined. */
export function taskOfInstruction(text: string): TaskSpec | undefined {
  return knownInstructions().get(text.trim().replace(/\s+/g, ' ').toLowerCase());
}

/**
 * Parses `--task family:colour:object[:zone]` into a spec that carries `instruction` as its text;
 * throws naming the flag on a spec wmrl's families do not have.
 */
export function assignedTask(flag: string, instruction: string): TaskSpec {
  const [family, color, object, zoneColor, ...rest] = flag.split(':');
  if (!family || !color || !object || rest.length > 0) {
    throw new Error(`--task ${flag}: expected family:colour:object[:zone], e.g. pick:red:block or push:red:block:blue`);
  }
  const raw = {
    family,
    color,
    object,
    ...(zoneColor ? { zoneColor } : {}),
    template: 0,
    split: 'train',
    instruction: instruction.slice(0, 500),
  };
  const parsed = taskSpecSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`--task ${flag}: ${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`);
  }
  return { ...parsed.data, split: splitOf(parsed.data.family, parsed.data.color, 0) };
}
