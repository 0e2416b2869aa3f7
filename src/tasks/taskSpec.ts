/**
 * The one schema of a TaskSpec from outside (episode files, the sim server's reset request):
 * a registered family, known colours, an object and template the family has, and a zone colour
 * exactly when the family is push (and different from the target's).
 */
import { z } from 'zod';
import type { TaskSpec } from '../core/types.ts';
import { FAMILIES, TASK_FAMILIES, type TaskFamily } from './families.ts';
import { COLOR_NAMES } from './vocabulary.ts';

// Field order is the order decoded tasks carry their keys in: keep it.
const fields = {
  family: z.enum(TASK_FAMILIES as [TaskFamily, ...TaskFamily[]]),
  color: z.enum(COLOR_NAMES),
  object: z.string(),
  zoneColor: z.enum(COLOR_NAMES).optional(),
  template: z.int().min(0),
  split: z.enum(['train', 'test']),
  instruction: z.string().min(1).max(500),
} satisfies Record<keyof TaskSpec, z.ZodType>;

// Refinements run only once the fields above parsed, so `FAMILIES[t.family]` exists.
export const taskSpecSchema = z
  .object(fields)
  .strict()
  .refine((t) => (FAMILIES[t.family].objects as readonly string[]).includes(t.object), {
    message: 'object is not one of the family’s objects',
    path: ['object'],
  })
  .refine((t) => t.template < FAMILIES[t.family].templates.length, {
    message: 'template index is out of range for the family',
    path: ['template'],
  })
  .refine((t) => (t.family === 'push') === (t.zoneColor !== undefined) && t.zoneColor !== t.color, {
    message: 'push tasks need a zoneColor different from color; other families have none',
    path: ['zoneColor'],
  }) satisfies z.ZodType<TaskSpec>;
