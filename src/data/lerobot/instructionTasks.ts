/**
 * A LeRobot task string as a wmrl TaskSpec: an instruction that one of the registered families renders (any
 * colour, object and zone) is that task; any other is assigned the `--task` spec the user gives, keeping the
 * dataset's own words as the instruction.
 */
import type { TaskSpec } from '../../core/types.ts';
import { splitOf } from '../../tasks/splits.ts';
import { taskSpecSchema } from '../../tasks/taskSpec.ts';

export { taskOfInstruction } from '../../tasks/instructionTask.ts';

/**
 * Parses `--task family:colour:object[:zone]` into a spec that carries `instruction` as its text;
 * throws naming the flag on a spec the registered families do not have.
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
