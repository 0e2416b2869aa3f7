/** Instruction text: a family's template with the colour, object and zone filled in (a fixed text as it is). */
import { familyDef } from './families.ts';
import { TaskError } from './taskError.ts';

export function renderInstruction(
  family: string,
  template: number,
  color?: string,
  object?: string,
  zone?: string,
): string {
  const text = familyDef(family).templates[template];
  if (text === undefined) throw new TaskError(`family '${family}' has no template ${template}`);
  return text
    .replace('{color}', color ?? '')
    .replace('{object}', object ?? '')
    .replace('{zone}', zone ?? '');
}
