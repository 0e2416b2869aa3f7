/** Helpers shared by the training subcommands: configs, datasets, backends. */
import { resolve } from 'node:path';
import { EpisodeStore, type EpisodeFilter } from '../data/episodeStore.ts';
import type { Episode } from '../core/types.ts';
import type { RobotDescription } from '../core/robotDescription.ts';
import { loadRobotWithTasks } from '../tasks/robotTasks.ts';
import { isBackendName, selectBackend } from '../backend/selectBackend.ts';
import { parseDottedOverrides } from '../core/config.ts';
import { UsageError } from './args.ts';

/** Every complete episode of the given datasets (aborted ones are never served). */
export async function readEpisodes(dirs: string[], filter: EpisodeFilter = {}): Promise<Episode[]> {
  const episodes: Episode[] = [];
  for (const dir of dirs) {
    const store = await EpisodeStore.open(dir);
    let count = 0;
    for await (const e of store.episodes(filter)) {
      episodes.push(e);
      count++;
    }
    if (count === 0) throw new Error(`${dir} holds no complete episodes`);
  }
  return episodes;
}

/**
 * `readEpisodes` that reads each folder once however often it is asked for (as `--data` and `--starts`): the same
 * episodes again, not another copy of them in memory.
 */
export function episodeFolderReader(): (dirs: string[]) => Promise<Episode[]> {
  const read = new Map<string, Episode[]>();
  return async (dirs) => {
    let episodes: Episode[] = [];
    for (const dir of dirs) {
      const key = resolve(dir);
      if (!read.has(key)) read.set(key, await readEpisodes([dir]));
      episodes = episodes.concat(read.get(key)!);
    }
    return episodes;
  };
}

/**
 * The robot the datasets were recorded with, loaded from where they recorded it (a path for a
 * robot outside this package, else its name under robots/). All of them must agree.
 */
export async function datasetRobot(dirs: string[]): Promise<RobotDescription> {
  const refs = new Map<string, string>();
  for (const dir of dirs) refs.set((await EpisodeStore.open(dir)).robotRef, dir);
  if (refs.size !== 1)
    throw new Error(
      `the datasets hold different robots: ${[...refs].map(([ref, dir]) => `${dir}: ${ref}`).join('; ')}`,
    );
  const [[ref, dir]] = [...refs] as [[string, string]];
  try {
    return loadRobotWithTasks(ref);
  } catch (err) {
    throw new Error(`${dir} was recorded with robot ${ref}, which does not load: ${(err as Error).message}`);
  }
}

export async function useBackend(name: string, requiredKernels: string[]): Promise<string> {
  if (!isBackendName(name))
    throw new UsageError(`unknown backend '${name}'; use auto, tensorflow-gpu, tensorflow, wasm or cpu`);
  const chosen = await selectBackend(name, { requiredKernels });
  return chosen.backend;
}

/**
 * Config overrides from argv: dotted keys (`--train.epochs=3`) and top-level config keys
 * (`--members=3`) that are not the command's own flags. Everything else is returned in `rest`.
 */
export function configOverrides(
  argv: string[],
  topLevelKeys: readonly string[],
  commandFlags: readonly string[],
): { overrides: Record<string, string>; rest: string[] } {
  const { overrides, rest: afterDotted } = parseDottedOverrides(argv);
  const rest: string[] = [];
  for (let i = 0; i < afterDotted.length; i++) {
    const arg = afterDotted[i]!;
    const m = /^--([A-Za-z][\w-]*)(?:=(.*))?$/s.exec(arg);
    if (m && topLevelKeys.includes(m[1]!) && !commandFlags.includes(m[1]!)) {
      const value = m[2] ?? afterDotted[++i];
      if (value === undefined) throw new UsageError(`--${m[1]} needs a value`);
      overrides[m[1]!] = value;
    } else rest.push(arg);
  }
  return { overrides, rest };
}
