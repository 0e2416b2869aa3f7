/**
 * The one schema of a TaskSpec from outside (episode files, the sim server's reset request): a registered family;
 * for a family with a scene, known colours, an object the scene has and a zone colour exactly when the scene has a
 * zone (and different from the target's); for a family of fixed texts, none of those; a template the family has.
 */
import { z } from 'zod';
import type { TaskSpec } from '../core/types.ts';
import { familyDef, isTaskFamily, taskFamilies } from './families.ts';
import { COLOR_NAMES } from './vocabulary.ts';

// Field order is the order decoded tasks carry their keys in: keep it.
const fields = {
  family: z.string().refine(isTaskFamily, {
    error: (i) =>
      `unknown task family '${String(i.input)}'; known: ${taskFamilies().join(', ')} (--task-file FILE adds one)`,
    abort: true,
  }),
  color: z.enum(COLOR_NAMES).optional(),
  object: z.string().optional(),
  zoneColor: z.enum(COLOR_NAMES).optional(),
  template: z.int().min(0),
  split: z.enum(['train', 'test']),
  instruction: z.string().min(1).max(500),
} satisfies Record<keyof TaskSpec, z.ZodType>;

// Refinements run only once the fields above parsed, so the family is registered.
export const taskSpecSchema = z
  .object(fields)
  .strict()
  .refine((t) => t.template < familyDef(t.family).templates.length, {
    message: 'template index is out of range for the family',
    path: ['template'],
  })
  .refine(
    (t) => {
      const scene = familyDef(t.family).scene;
      if (!scene) return t.color === undefined && t.object === undefined && t.zoneColor === undefined;
      return t.color !== undefined && t.object !== undefined && (scene.objects as readonly string[]).includes(t.object);
    },
    {
      message: 'a family with a scene needs a colour and one of its objects; one of fixed texts has neither',
      path: ['object'],
    },
  )
  .refine(
    (t) =>
      (familyDef(t.family).scene?.zone === true) === (t.zoneColor !== undefined) &&
      (t.zoneColor === undefined || t.zoneColor !== t.color),
    {
      message: 'a family with a zone needs a zoneColor different from color; other families have none',
      path: ['zoneColor'],
    },
  ) satisfies z.ZodType<TaskSpec>;
