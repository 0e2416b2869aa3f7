/** Task selectors: a partial choice of task, as given on the command line. */
import type { TaskSpec } from '../core/types.ts';
import { FAMILIES, TASK_FAMILIES, isTaskFamily, type TaskFamily } from './families.ts';
import { TaskError } from './taskError.ts';
import { COLOR_NAMES, type ColorName, type ObjectKind } from './vocabulary.ts';

/** `pick`, `reach:red`, `push:blue:green`: a family, and optionally a colour and an object or zone. */
export interface TaskSelector {
  family: TaskFamily;
  color?: ColorName;
  /** Object kind (reach) or zone colour (push). */
  third?: string;
}

/** Parse `family[:color[:object|zone]]` or `all`; errors name what is unknown. */
export function parseTaskSelectors(text: string): TaskSelector[] {
  if (text === 'all') return TASK_FAMILIES.map((family) => ({ family }));
  return text.split(',').map((part) => {
    const [family, color, third, ...rest] = part.trim().split(':');
    if (family === undefined || !isTaskFamily(family)) {
      throw new TaskError(`unknown task family '${family}'; known: ${TASK_FAMILIES.join(', ')} (or 'all')`);
    }
    if (rest.length > 0) throw new TaskError(`task '${part}': expected family[:color[:object-or-zone]]`);
    const sel: TaskSelector = { family };
    if (color !== undefined && color !== '') {
      if (!COLOR_NAMES.includes(color as ColorName)) {
        throw new TaskError(`unknown colour '${color}' in task '${part}'; known: ${COLOR_NAMES.join(', ')}`);
      }
      sel.color = color as ColorName;
    }
    if (third !== undefined && third !== '') {
      if (sel.family === 'push') {
        if (!COLOR_NAMES.includes(third as ColorName)) {
          throw new TaskError(`unknown zone colour '${third}' in task '${part}'; known: ${COLOR_NAMES.join(', ')}`);
        }
        if (third === sel.color) {
          throw new TaskError(`task '${part}': the zone colour must differ from the block colour`);
        }
      } else if (!FAMILIES[sel.family].objects.includes(third as ObjectKind)) {
        const known = FAMILIES[sel.family].objects.join(', ');
        throw new TaskError(`unknown object '${third}' for '${sel.family}'; known: ${known}`);
      }
      sel.third = third;
    }
    return sel;
  });
}

/** Whether a task is one of the selectors' (family, and colour and object/zone where given). */
export function taskMatches(task: TaskSpec, selectors: readonly TaskSelector[]): boolean {
  return selectors.some(
    (sel) =>
      sel.family === task.family &&
      (sel.color === undefined || sel.color === task.color) &&
      (sel.third === undefined || sel.third === (task.family === 'push' ? task.zoneColor : task.object)),
  );
}
