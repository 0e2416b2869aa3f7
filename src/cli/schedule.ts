/** `wmrl schedule status`: the anchor queue, the budget spent and left, per-robot utilisation and health. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { AnchorQueue, QueueSummary } from '../scheduler/anchorQueue.ts';
import { utcDay } from '../scheduler/anchorQueue.ts';
import type { Budget } from '../scheduler/budget.ts';
import { readPoolFile } from '../scheduler/poolFile.ts';
import { RedisQueue } from '../scheduler/redisQueue.ts';
import { SqliteQueue } from '../scheduler/sqliteQueue.ts';
import { parseFlags, UsageError } from './args.ts';

const HELP =
  `usage: wmrl schedule status (--run DIR | --db FILE | ` +
  `--queue redis://host:port [--name Q]) [--pool FILE] [--json]

  --run DIR     a \`wmrl train --robots\` run folder (its schedule.db)
  --db FILE     a schedule store file
  --queue URL   a Redis (BullMQ) queue, with --name (default wmrl-anchors)
  --pool FILE   the pool file, for the budget left
  --json        machine-readable output`;

export const command = {
  summary: 'anchor queue status: budget spent and left, robot utilisation and health',
  async run(argv: string[]): Promise<number> {
    const { values, positionals } = parseFlags(
      argv,
      {
        run: { type: 'string' },
        db: { type: 'string' },
        queue: { type: 'string' },
        name: { type: 'string' },
        pool: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      true,
    );
    if (values.help) {
      console.log(HELP);
      return 0;
    }
    if (positionals[0] !== 'status' || positionals.length !== 1)
      throw new UsageError(`usage: wmrl schedule status …\n\n${HELP}`);
    const sources = [values.run, values.db, values.queue].filter((v) => v !== undefined).length;
    if (sources !== 1) throw new UsageError(`give exactly one of --run, --db or --queue\n\n${HELP}`);
    let queue: AnchorQueue;
    if (values.queue)
      queue = await RedisQueue.open({ url: values.queue, ...(values.name ? { name: values.name } : {}) });
    else {
      const file = values.db ?? join(values.run!, 'schedule.db');
      if (!existsSync(file))
        throw new Error(`${file} does not exist: no schedule has run there (train with --robots to create one)`);
      queue = SqliteQueue.open(file);
    }
    try {
      const summary = await queue.summary();
      const today = await queue.spent({ day: utcDay(Date.now()) });
      const budget = values.pool ? readPoolFile(values.pool).budget : undefined;
      const status = {
        ...summary,
        today,
        budget: budget ?? null,
        dayLeft: budget ? dayLeft(budget, today) : null,
        utilisation: utilisation(summary),
      };
      if (values.json) console.log(JSON.stringify(status, null, 2));
      else print(status);
      return 0;
    } finally {
      await queue.close();
    }
  },
};

function dayLeft(b: Budget, today: { episodes: number; robotSeconds: number }) {
  return {
    episodes: b.episodesPerDay === undefined ? null : Math.max(0, b.episodesPerDay - today.episodes),
    robotSeconds: b.robotSecondsPerDay === undefined ? null : Math.max(0, b.robotSecondsPerDay - today.robotSeconds),
  };
}

/** Robot seconds over the wall time from its first episode's start to its last's end. */
function utilisation(s: QueueSummary): Record<string, number | null> {
  return Object.fromEntries(
    Object.entries(s.robots).map(([name, r]) => [
      name,
      r.firstStart !== null && r.lastEnd !== null && r.lastEnd > r.firstStart
        ? r.robotSeconds / ((r.lastEnd - r.firstStart) / 1000)
        : null,
    ]),
  );
}

function print(
  s: QueueSummary & {
    today: { episodes: number; robotSeconds: number };
    budget: Budget | null;
    dayLeft: ReturnType<typeof dayLeft> | null;
    utilisation: Record<string, number | null>;
  },
): void {
  const c = s.counts;
  console.log(`queue: ${c.queued} queued, ${c.running} running, ${c.done} done, ${c.failed} failed`);
  console.log(
    `spent: ${s.total.episodes} episodes, ${s.total.robotSeconds.toFixed(1)} robot-s in all; ` +
      `today ${s.today.episodes} episodes, ${s.today.robotSeconds.toFixed(1)} robot-s`,
  );
  if (s.dayLeft)
    console.log(
      `left today: ${s.dayLeft.episodes ?? 'unlimited'} ` +
        `episodes, ${s.dayLeft.robotSeconds?.toFixed(1) ?? 'unlimited'} robot-s`,
    );
  if (s.meanQueueDelayMs !== null) console.log(`mean queueing delay: ${(s.meanQueueDelayMs / 1000).toFixed(2)} s`);
  for (const [name, r] of Object.entries(s.robots)) {
    const u = s.utilisation[name];
    const h = r.health;
    const health =
      !h || h.healthy
        ? 'healthy'
        : `UNHEALTHY (${h.failures} failures, retry after ${new Date(h.retryAt).toISOString()}): ${h.lastError}`;
    console.log(
      `  ${name.padEnd(12)} ${String(r.episodes).padStart(5)} ` +
        `episodes ${r.robotSeconds.toFixed(1).padStart(8)} robot-s  ` +
        `utilisation ${u === null || u === undefined ? '-' : (100 * u).toFixed(0) + '%'}  ${health}`,
    );
  }
}
