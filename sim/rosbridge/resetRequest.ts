/** The reset service's request ({task: TaskSpec as JSON text, seed}), validated field by field. */
import { z } from 'zod';
import type { TaskSpec } from '../../src/core/types.ts';
import { taskSpecSchema } from '../../src/tasks/taskSpec.ts';

const requestSchema = z
  .object({
    task: z.string().max(4096),
    seed: z
      .number()
      .int()
      .min(0)
      .max(2 ** 32 - 1),
  })
  .strict();

/** Parse a reset request; throws an Error naming the bad field. */
export function parseResetRequest(args: unknown): { task: TaskSpec; seed: number } {
  const request = requestSchema.safeParse(args);
  if (!request.success) {
    throw new Error(`reset request must be {task: "<TaskSpec JSON>", seed: integer}: ${describe(request.error)}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(request.data.task);
  } catch {
    throw new Error('reset request: task is not JSON text of a TaskSpec');
  }
  const task = taskSpecSchema.safeParse(raw);
  if (!task.success) throw new Error(`reset request: invalid task: ${describe(task.error)}`);
  return { task: task.data, seed: request.data.seed };
}

function describe(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
}
