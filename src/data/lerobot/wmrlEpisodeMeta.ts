/**
 * `meta/wmrl_episodes.jsonl`: what a wmrl episode carries that LeRobot's format has no place for
 * (its id, task spec, seed, source, policy, the progress and success before the first action), one
 * line per exported episode in episode_index order. LeRobot's tools ignore the file; `wmrl import
 * lerobot` reads it back so that an exported dataset imports as the same episodes.
 */
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { Episode } from '../../core/types.ts';
import { addTaskFiles, BUILT_IN, familyYaml } from '../../tasks/families.ts';
import { taskSpecSchema } from '../../tasks/taskSpec.ts';
import { parseJson, readTextIfAny } from './lerobotInfo.ts';

export const WMRL_EPISODES_PATH = 'meta/wmrl_episodes.jsonl';

const metaSchema = z
  .object({
    episode_index: z.int().min(0),
    id: z.string().min(1),
    robot: z.string().min(1),
    task: taskSpecSchema,
    seed: z.int(),
    source: z.enum(['sim', 'rosbridge', 'robot', 'imagined']),
    policy: z.string().min(1),
    success: z.boolean(),
    createdAt: z.string().min(1),
    /** progress[0] and successes[0]: LeRobot's next.reward / next.success start after the first action. */
    progress0: z.number().min(0).max(1),
    success0: z.boolean(),
    /** The episode's recording said nothing of success (Episode.successUnknown). */
    successUnknown: z.literal(true).optional(),
  })
  .strict();
export type WmrlEpisodeMeta = Omit<z.infer<typeof metaSchema>, 'task'> & { task: Episode['task'] };

export function episodeMeta(episode: Episode, index: number): WmrlEpisodeMeta {
  return {
    episode_index: index,
    id: episode.id,
    robot: episode.robot,
    task: episode.task,
    seed: episode.seed,
    source: episode.source,
    policy: episode.policy,
    success: episode.success,
    createdAt: episode.createdAt,
    progress0: episode.progress[0]!,
    success0: episode.successes[0] === 1,
    ...(episode.successUnknown ? { successUnknown: true as const } : {}),
  };
}

export async function writeEpisodeMeta(dir: string, metas: readonly WmrlEpisodeMeta[]): Promise<void> {
  await writeFile(join(dir, WMRL_EPISODES_PATH), metas.map((m) => `${JSON.stringify(m)}\n`).join(''));
}

/** The sidecar's lines by episode_index, or null when the dataset has none (it was not written by wmrl). */
export async function readEpisodeMeta(dir: string): Promise<Map<number, WmrlEpisodeMeta> | null> {
  const file = join(dir, WMRL_EPISODES_PATH);
  const text = await readTextIfAny(file);
  if (text === null) return null;
  const out = new Map<number, WmrlEpisodeMeta>();
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    const meta = parseJson(`${file}:${i + 1}`, line, metaSchema);
    out.set(meta.episode_index, meta);
  });
  return out;
}

/** Where an export keeps the files of the task families its episodes were recorded under that are not built in. */
export const WMRL_TASKS_DIR = 'meta/wmrl_tasks';

/** Writes the file of each family of `metas` that is not built in into `dir`'s WMRL_TASKS_DIR. */
export async function writeEpisodeFamilies(dir: string, metas: readonly WmrlEpisodeMeta[]): Promise<void> {
  const own = [...new Set(metas.map((m) => m.task.family))].filter((f) => !(BUILT_IN as readonly string[]).includes(f));
  if (own.length === 0) return;
  await mkdir(join(dir, WMRL_TASKS_DIR), { recursive: true });
  for (const family of own) await writeFile(join(dir, WMRL_TASKS_DIR, `${family}.yaml`), familyYaml(family));
}

/** Registers the families an export kept (WMRL_TASKS_DIR), so that its sidecar's tasks parse. */
export function readEpisodeFamilies(dir: string): void {
  const folder = join(dir, WMRL_TASKS_DIR);
  if (existsSync(folder)) addTaskFiles(folder);
}
