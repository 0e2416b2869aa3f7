/** The reset service's request ({task: TaskSpec as JSON text, seed}), validated field by field. */
import { z } from 'zod';
import type { TaskSpec } from '../../src/core/types.ts';
import { COLOR_NAMES, FAMILIES, TASK_FAMILIES } from '../../src/tasks/taskSuite.ts';

const taskSchema = z
  .object({
    family: z.enum(TASK_FAMILIES as [TaskSpec['family'], ...TaskSpec['family'][]]),
    color: z.enum(COLOR_NAMES as [string, ...string[]]),
    object: z.string(),
    zoneColor: z.enum(COLOR_NAMES as [string, ...string[]]).optional(),
    template: z.number().int().min(0),
    split: z.enum(['train', 'test']),
    instruction: z.string().min(1).max(500),
  })
  .strict()
  .refine((t) => (FAMILIES[t.family].objects as readonly string[]).includes(t.object), { message: 'object is not one of the family’s objects' })
  .refine((t) => t.template < FAMILIES[t.family].templates.length, { message: 'template index is out of range for the family' })
  .refine((t) => (t.family === 'push') === (t.zoneColor !== undefined) && t.zoneColor !== t.color, { message: 'push tasks need a zoneColor different from color; other families have none' });

const requestSchema = z.object({ task: z.string().max(4096), seed: z.number().int().min(0).max(2 ** 32 - 1) }).strict();

/** Parse a reset request; throws an Error naming the bad field. */
export function parseResetRequest(args: unknown): { task: TaskSpec; seed: number } {
  const request = requestSchema.safeParse(args);
  if (!request.success) throw new Error(`reset request must be {task: "<TaskSpec JSON>", seed: integer}: ${describe(request.error)}`);
  let raw: unknown;
  try {
    raw = JSON.parse(request.data.task);
  } catch {
    throw new Error('reset request: task is not JSON text of a TaskSpec');
  }
  const task = taskSchema.safeParse(raw);
  if (!task.success) throw new Error(`reset request: invalid task: ${describe(task.error)}`);
  return { task: task.data as TaskSpec, seed: request.data.seed };
}

function describe(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
}
