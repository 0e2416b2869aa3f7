/**
 * A robot of the pool, and the pool file (`--robots FILE`, written by `wmrl robot add`):
 * which robots, when they may run, how long an operator needs between episodes, the retry
 * policy and the budget.
 */
import { z } from 'zod';
import { budgetSchema } from './budget.ts';

const WINDOW = /^([01]\d|2[0-3]):[0-5]\d-([01]\d|2[0-4]):[0-5]\d$/;

export const robotConfigSchema = z
  .object({
    name: z
      .string()
      .regex(/^[\w.-]+$/, 'robot names hold only letters, digits, ".", "_" and "-"')
      .describe('unique name in the pool'),
    kind: z
      .enum(['sim', 'rosbridge'])
      .describe('sim: the in-process simulator; rosbridge: a robot (or `wmrl sim-server`) at url'),
    url: z
      .string()
      .regex(/^wss?:\/\//, 'url must start with ws:// or wss://')
      .optional()
      .describe('rosbridge server, e.g. ws://robot1:9090'),
    speed: z
      .union([z.number().positive(), z.literal('max')])
      .default(1)
      .transform((v) => (v === 'max' ? Infinity : v))
      .describe(
        "rosbridge: the robot's speed (a sim-server's --speed; " +
          "'max' for --lockstep); sim: pacing (1 = real time, 'max' = unpaced)",
      ),
    windows: z
      .array(z.string().regex(WINDOW, 'windows look like 08:00-18:00 (UTC)'))
      .default([])
      .describe('daily UTC time ranges when the robot may run episodes; empty = always'),
    resetSeconds: z.number().min(0).default(0).describe('reset / operator time between two episodes'),
    reset: z
      .enum(['service', 'operator'])
      .default('service')
      .describe(
        "rosbridge: who resets the scene before an episode: 'service', the robot's reset service; " +
          "'operator', a person prompted in the viewer and the terminal (docs/operator.md)",
      ),
    taskStatus: z
      .boolean()
      .default(true)
      .describe("rosbridge: the robot has a task-status service (false: outcomes come from the operator's labels)"),
    backoffSeconds: z
      .number()
      .positive()
      .default(30)
      .describe('after a failure the robot rests this long (doubling with each further failure, at most 32×)'),
  })
  .strict()
  .superRefine((r, ctx) => {
    if (r.kind === 'rosbridge' && !r.url)
      ctx.addIssue({ code: 'custom', message: `robot '${r.name}' is kind rosbridge and needs a url` });
    if (r.kind === 'sim' && r.url)
      ctx.addIssue({ code: 'custom', message: `robot '${r.name}' is kind sim and takes no url` });
    if (r.kind === 'sim' && (r.reset === 'operator' || !r.taskStatus))
      ctx.addIssue({
        code: 'custom',
        message: `robot '${r.name}' is kind sim: the simulator resets itself and knows its outcomes`,
      });
  });

export type RobotConfig = z.infer<typeof robotConfigSchema>;

export const poolFileSchema = z
  .object({
    robots: z.array(robotConfigSchema).default([]),
    maxAttempts: z
      .number()
      .int()
      .min(1)
      .default(3)
      .describe('attempts of one episode (on different robots when possible) before it is reported failed'),
    budget: budgetSchema.prefault({}),
  })
  .strict()
  .superRefine((p, ctx) => {
    const seen = new Set<string>();
    for (const r of p.robots) {
      if (seen.has(r.name)) ctx.addIssue({ code: 'custom', message: `robot '${r.name}' appears twice in the pool` });
      seen.add(r.name);
    }
  });

export type PoolFile = z.infer<typeof poolFileSchema>;
