/** Drawing a concrete, seeded task for a selector and split. */
import type { Rng } from '../core/rng.ts';
import type { Split, TaskSpec } from '../core/types.ts';
import { familyDef } from './families.ts';
import { renderInstruction } from './instructions.ts';
import type { TaskSelector } from './selectors.ts';
import { splitOf } from './splits.ts';
import { TaskError } from './taskError.ts';
import { COLOR_NAMES, type ColorName, type ObjectKind } from './vocabulary.ts';

/**
 * Draw a task of the given split that matches the selector. Train draws train colours with train templates; test
 * draws held-out colours (any template) or train colours with a held-out template, half and half. The order of the
 * draws is part of every seeded plan: keep it.
 */
export function sampleTask(selector: TaskSelector, split: Split, rng: Rng): TaskSpec {
  const def = familyDef(selector.family);
  const family = def.name;
  const all = def.templates.map((_, i) => i);
  const trainTemplates = all.filter((i) => !def.heldOutTemplates.includes(i));
  const heldOut = def.heldOutTemplates;
  const drawHeldOut = (): number => {
    if (heldOut.length === 0)
      throw new TaskError(
        `'${family}' holds no instruction out (split.templates in ${def.file}): it has no test split`,
      );
    return heldOut.length === 1 ? heldOut[0]! : rng.pick(heldOut);
  };
  const drawTrain = (): number => {
    if (trainTemplates.length === 0) throw new TaskError(`'${family}' has no train instruction (${def.file})`);
    return rng.pick(trainTemplates);
  };
  const scene = def.scene;
  if (!scene) {
    const template = split === 'train' ? drawTrain() : drawHeldOut();
    return { family, template, split, instruction: def.templates[template]! };
  }
  const trainColors = COLOR_NAMES.filter((c) => !def.heldOutColors.includes(c));
  let color: ColorName;
  let template: number;
  if (selector.color !== undefined) {
    color = selector.color;
    const colorHeldOut = def.heldOutColors.includes(color);
    if (split === 'train' && colorHeldOut) {
      throw new TaskError(`'${family}' with colour '${color}' is held out: it exists only in the test split`);
    }
    if (split === 'train') template = drawTrain();
    else template = colorHeldOut ? rng.int(def.templates.length) : drawHeldOut();
  } else if (split === 'train') {
    color = rng.pick(trainColors);
    template = drawTrain();
  } else if (def.heldOutColors.length > 0 && (heldOut.length === 0 || rng.next() < 0.5)) {
    color = rng.pick(def.heldOutColors);
    template = rng.int(def.templates.length);
  } else {
    color = rng.pick(trainColors);
    template = drawHeldOut();
  }
  // The selector's third part is the zone's colour in a family with a zone, else the object.
  const chosenObject = scene.zone ? undefined : (selector.third as ObjectKind | undefined);
  const object: ObjectKind = scene.objects.length > 1 ? (chosenObject ?? rng.pick(scene.objects)) : scene.objects[0]!;
  const zoneColor = scene.zone
    ? ((selector.third as ColorName | undefined) ?? rng.pick(COLOR_NAMES.filter((c) => c !== color)))
    : undefined;
  const spec: TaskSpec = {
    family,
    color,
    object,
    template,
    split: splitOf(family, color, template),
    instruction: renderInstruction(family, template, color, object, zoneColor),
  };
  if (zoneColor !== undefined) spec.zoneColor = zoneColor;
  return spec;
}
