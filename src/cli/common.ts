/** Helpers shared by the training subcommands: configs, datasets, backends. */
import { EpisodeStore, type EpisodeFilter } from '../data/episodeStore.ts';
import type { Episode } from '../core/types.ts';
import { isBackendName, selectBackend } from '../backend/selectBackend.ts';
import { UsageError } from './args.ts';

/** Every complete episode of a dataset (aborted ones are never served). */
export async function readEpisodes(dir: string, filter: EpisodeFilter = {}): Promise<{ store: EpisodeStore; episodes: Episode[] }> {
  const store = await EpisodeStore.open(dir);
  const episodes: Episode[] = [];
  for await (const e of store.episodes(filter)) episodes.push(e);
  if (episodes.length === 0) throw new Error(`${dir} holds no complete episodes`);
  return { store, episodes };
}

export async function useBackend(name: string, requiredKernels: string[]): Promise<string> {
  if (!isBackendName(name)) throw new UsageError(`unknown backend '${name}'; use auto, tensorflow-gpu, tensorflow, wasm or cpu`);
  const chosen = await selectBackend(name, { requiredKernels });
  return chosen.backend;
}
