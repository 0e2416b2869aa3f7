/**
 * The language-conditioned task suite: families, colours, instruction templates and the
 * train/test split. Held out for `test` only: some colour/family combinations (every
 * paraphrase) and one paraphrase per family (every combination).
 */
import type { Split, TaskFamily, TaskSpec } from '../core/types.ts';
import type { Rng } from '../core/rng.ts';

/** Colours, with the RGB the renderer shows (distinct in hue at 32×32). */
export const COLORS = {
  red: [0.85, 0.12, 0.1],
  green: [0.1, 0.7, 0.2],
  blue: [0.12, 0.3, 0.9],
  yellow: [0.95, 0.85, 0.1],
  purple: [0.6, 0.2, 0.8],
  orange: [1.0, 0.5, 0.05],
} as const satisfies Record<string, readonly [number, number, number]>;
export type ColorName = keyof typeof COLORS;
export const COLOR_NAMES = Object.keys(COLORS) as ColorName[];

export const OBJECT_KINDS = ['block', 'ball', 'cylinder'] as const;
export type ObjectKind = (typeof OBJECT_KINDS)[number];

export const TASK_FAMILIES: readonly TaskFamily[] = ['reach', 'push', 'pick'];

interface FamilyDef {
  /** Object kinds the target may be. */
  objects: readonly ObjectKind[];
  /** Templates: `{color}`, `{object}`, `{zone}` are filled in. The last is test-only. */
  templates: readonly string[];
  /** Target colours whose every instruction is test-only. */
  heldOutColors: readonly ColorName[];
  /** Control ticks before the episode ends. */
  horizon: number;
}

export const FAMILIES: Record<TaskFamily, FamilyDef> = {
  reach: {
    objects: OBJECT_KINDS,
    templates: ['reach the {color} {object}', 'move the gripper to the {color} {object}', 'touch the {color} {object}', 'go over to the {color} {object}'],
    heldOutColors: ['purple'],
    horizon: 40,
  },
  push: {
    objects: ['block'],
    templates: [
      'push the {color} block into the {zone} zone',
      'slide the {color} block onto the {zone} zone',
      'move the {color} block to the {zone} area',
      'shove the {color} block over to the {zone} target',
    ],
    heldOutColors: ['orange'],
    horizon: 70,
  },
  pick: {
    objects: ['block'],
    templates: ['pick up the {color} block', 'grasp the {color} block and lift it', 'lift the {color} block', 'raise the {color} block off the table'],
    heldOutColors: ['yellow'],
    horizon: 50,
  },
};

export class TaskError extends Error {
  override name = 'TaskError';
}

/** The split a (family, colour, template) combination belongs to. */
export function splitOf(family: TaskFamily, color: ColorName, template: number): Split {
  const def = FAMILIES[family];
  if (def.heldOutColors.includes(color)) return 'test';
  return template === def.templates.length - 1 ? 'test' : 'train';
}

export function renderInstruction(family: TaskFamily, template: number, color: string, object: string, zone?: string): string {
  const text = FAMILIES[family].templates[template];
  if (text === undefined) throw new TaskError(`family '${family}' has no template ${template}`);
  return text.replace('{color}', color).replace('{object}', object).replace('{zone}', zone ?? '');
}

/** A partial choice of task, as given on the command line (`pick`, `reach:red`, `push:blue:green`). */
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
    if (!TASK_FAMILIES.includes(family as TaskFamily)) {
      throw new TaskError(`unknown task family '${family}'; known: ${TASK_FAMILIES.join(', ')} (or 'all')`);
    }
    if (rest.length > 0) throw new TaskError(`task '${part}': expected family[:color[:object-or-zone]]`);
    const sel: TaskSelector = { family: family as TaskFamily };
    if (color !== undefined && color !== '') {
      if (!COLOR_NAMES.includes(color as ColorName)) throw new TaskError(`unknown colour '${color}' in task '${part}'; known: ${COLOR_NAMES.join(', ')}`);
      sel.color = color as ColorName;
    }
    if (third !== undefined && third !== '') {
      if (sel.family === 'push') {
        if (!COLOR_NAMES.includes(third as ColorName)) throw new TaskError(`unknown zone colour '${third}' in task '${part}'; known: ${COLOR_NAMES.join(', ')}`);
        if (third === sel.color) throw new TaskError(`task '${part}': the zone colour must differ from the block colour`);
      } else if (!FAMILIES[sel.family].objects.includes(third as ObjectKind)) {
        throw new TaskError(`unknown object '${third}' for '${sel.family}'; known: ${FAMILIES[sel.family].objects.join(', ')}`);
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

/**
 * Draw a task of the given split that matches the selector. Train draws train combinations with
 * train templates; test draws held-out colours (any template) or train colours with the held-out
 * paraphrase, half and half.
 */
export function sampleTask(selector: TaskSelector, split: Split, rng: Rng): TaskSpec {
  const def = FAMILIES[selector.family];
  const heldOutTemplate = def.templates.length - 1;
  const trainColors = COLOR_NAMES.filter((c) => !def.heldOutColors.includes(c));
  let color: ColorName;
  let template: number;
  if (selector.color !== undefined) {
    color = selector.color;
    const colorHeldOut = def.heldOutColors.includes(color);
    if (split === 'train' && colorHeldOut) {
      throw new TaskError(`'${selector.family}' with colour '${color}' is held out: it exists only in the test split`);
    }
    template = split === 'train' ? rng.int(heldOutTemplate) : colorHeldOut ? rng.int(def.templates.length) : heldOutTemplate;
  } else if (split === 'train') {
    color = rng.pick(trainColors);
    template = rng.int(heldOutTemplate);
  } else if (rng.next() < 0.5) {
    color = rng.pick(def.heldOutColors);
    template = rng.int(def.templates.length);
  } else {
    color = rng.pick(trainColors);
    template = heldOutTemplate;
  }
  const object = selector.family === 'reach' ? ((selector.third as ObjectKind | undefined) ?? rng.pick(def.objects)) : 'block';
  const zoneColor = selector.family === 'push' ? ((selector.third as ColorName | undefined) ?? rng.pick(COLOR_NAMES.filter((c) => c !== color))) : undefined;
  const spec: TaskSpec = {
    family: selector.family,
    color,
    object,
    template,
    split: splitOf(selector.family, color, template),
    instruction: renderInstruction(selector.family, template, color, object, zoneColor),
  };
  if (zoneColor !== undefined) spec.zoneColor = zoneColor;
  return spec;
}

/** Every (family, colour, template) combination with its split, for `wmrl tasks`. */
export function enumerateInstructions(): { family: TaskFamily; color: ColorName; template: number; split: Split; example: string }[] {
  const rows = [];
  for (const family of TASK_FAMILIES) {
    const def = FAMILIES[family];
    for (const color of COLOR_NAMES) {
      for (let template = 0; template < def.templates.length; template++) {
        const zone = family === 'push' ? COLOR_NAMES.find((c) => c !== color) : undefined;
        rows.push({ family, color, template, split: splitOf(family, color, template), example: renderInstruction(family, template, color, def.objects[0]!, zone) });
      }
    }
  }
  return rows;
}
