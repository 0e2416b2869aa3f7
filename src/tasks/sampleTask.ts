/** Drawing a concrete, seeded task for a selector and split. */
import type { Rng } from '../core/rng.ts';
import type { Split, TaskSpec } from '../core/types.ts';
import { FAMILIES } from './families.ts';
import { renderInstruction } from './instructions.ts';
import type { TaskSelector } from './selectors.ts';
import { splitOf } from './splits.ts';
import { TaskError } from './taskError.ts';
import { COLOR_NAMES, type ColorName, type ObjectKind } from './vocabulary.ts';

/**
 * Draw a task of the given split that matches the selector. Train draws train combinations with
 * train templates; test draws held-out colours (any template) or train colours with the held-out
 * paraphrase, half and half. The order of the draws is part of every seeded plan: keep it.
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
    if (split === 'train') template = rng.int(heldOutTemplate);
    else template = colorHeldOut ? rng.int(def.templates.length) : heldOutTemplate;
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
  const object =
    selector.family === 'reach' ? ((selector.third as ObjectKind | undefined) ?? rng.pick(def.objects)) : 'block';
  const zoneColor =
    selector.family === 'push'
      ? ((selector.third as ColorName | undefined) ?? rng.pick(COLOR_NAMES.filter((c) => c !== color)))
      : undefined;
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
