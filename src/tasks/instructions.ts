/** Instruction text: a family's template with the colour, object and zone filled in. */
import { FAMILIES, type TaskFamily } from './families.ts';
import { TaskError } from './taskError.ts';

export function renderInstruction(
  family: TaskFamily,
  template: number,
  color: string,
  object: string,
  zone?: string,
): string {
  const text = FAMILIES[family].templates[template];
  if (text === undefined) throw new TaskError(`family '${family}' has no template ${template}`);
  return text
    .replace('{color}', color)
    .replace('{object}', object)
    .replace('{zone}', zone ?? '');
}
