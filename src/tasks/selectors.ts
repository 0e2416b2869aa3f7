/** Task selectors: a partial choice of task, as given on the command line. */
import type { TaskSpec } from '../core/types.ts';
import { familyDef, isTaskFamily, sceneFamilies, taskFamilies, type TaskFamily } from './families.ts';
import { TaskError } from './taskError.ts';
import { COLOR_NAMES, type ColorName, type ObjectKind } from './vocabulary.ts';

/** `pick`, `reach:red`, `push:blue:green`: a family, and optionally a colour and an object or zone. */
export interface TaskSelector {
  family: TaskFamily;
  color?: ColorName;
  /** The zone's colour in a family with a zone, else the object's kind. */
  third?: string;
}

/** Parse `family[:color[:object|zone]]` or `all` (the families with a scene); errors name what is unknown. */
export function parseTaskSelectors(text: string): TaskSelector[] {
  if (text === 'all') return sceneFamilies().map((family) => ({ family }));
  return text.split(',').map((part) => {
    const [family, color, third, ...rest] = part.trim().split(':');
    if (family === undefined || !isTaskFamily(family)) {
      throw new TaskError(
        `unknown task family '${family}'; known: ${taskFamilies().join(', ')} (or 'all'); ` +
          'a family of your own is a YAML file: --task-file FILE (docs/tasks.md)',
      );
    }
    if (rest.length > 0) throw new TaskError(`task '${part}': expected family[:color[:object-or-zone]]`);
    const sel: TaskSelector = { family };
    const scene = familyDef(family).scene;
    if (!scene && ((color ?? '') !== '' || (third ?? '') !== ''))
      throw new TaskError(
        `task '${part}': family '${family}' has fixed instructions, with no colour or object to choose`,
      );
    if (color !== undefined && color !== '') {
      if (!COLOR_NAMES.includes(color as ColorName)) {
        throw new TaskError(`unknown colour '${color}' in task '${part}'; known: ${COLOR_NAMES.join(', ')}`);
      }
      sel.color = color as ColorName;
    }
    if (scene && third !== undefined && third !== '') {
      if (scene.zone) {
        if (!COLOR_NAMES.includes(third as ColorName)) {
          throw new TaskError(`unknown zone colour '${third}' in task '${part}'; known: ${COLOR_NAMES.join(', ')}`);
        }
        if (third === sel.color) {
          throw new TaskError(`task '${part}': the zone colour must differ from the block colour`);
        }
      } else if (!scene.objects.includes(third as ObjectKind)) {
        throw new TaskError(`unknown object '${third}' for '${sel.family}'; known: ${scene.objects.join(', ')}`);
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
      (sel.third === undefined || sel.third === (familyDef(task.family).scene?.zone ? task.zoneColor : task.object)),
  );
}
