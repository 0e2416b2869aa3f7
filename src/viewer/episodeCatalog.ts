/**
 * The episodes the viewer can show: those of --data datasets and a run's anchors. Only
 * summaries stay in memory (episodes carry camera frames); an episode is read back from its
 * chunk file when opened, and the last few opened are cached.
 */
import { addTasksBeside } from '../tasks/families.ts';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Episode } from '../core/types.ts';
import { ChunkReader } from '../data/chunkFile.ts';
import { chunkFileName, listChunkFiles } from '../data/chunkNames.ts';
import { MANIFEST_FILE } from '../data/datasetManifest.ts';
import { EpisodeStore } from '../data/episodeStore.ts';
import type { EpisodeSummary } from './messages.ts';

interface Located {
  summary: EpisodeSummary;
  dir: string;
  chunk: number;
}

export interface CatalogSource {
  dir: string;
  origin: EpisodeSummary['origin'];
  /** Anchors: the training step of the n-th kept episode in storage order (null when unknown). */
  stepOf?: (index: number) => number | null;
  /** Anchors: only these ids count (a killed step's partial anchors do not). */
  keep?: (id: string) => boolean;
}

const CACHE = 4;

export class EpisodeCatalog {
  #byId = new Map<string, Located>();
  #order: string[] = [];
  #cache = new Map<string, Episode>();
  /** Closed chunks never change: each is decoded once. Key: `${dir}#${number}`. */
  #closed = new Map<string, Located[]>();

  /** Summaries in listing order (datasets first, then anchors by step). */
  get summaries(): EpisodeSummary[] {
    return this.#order.map((id) => this.#byId.get(id)!.summary);
  }

  get size(): number {
    return this.#order.length;
  }

  /** Rebuild the listing from the sources (only new or still-open chunks are read). */
  async scan(sources: CatalogSource[]): Promise<void> {
    const found: Located[] = [];
    for (const s of sources) found.push(...(await this.#scanSource(s)));
    found.sort((a, b) => rank(a.summary) - rank(b.summary));
    this.#byId.clear();
    this.#order = [];
    for (const l of found) {
      if (this.#byId.has(l.summary.id)) continue;
      this.#byId.set(l.summary.id, l);
      this.#order.push(l.summary.id);
    }
  }

  has(id: string): boolean {
    return this.#byId.has(id);
  }

  /** The folder (dataset or anchor store) an episode is listed from. */
  dirOf(id: string): string | undefined {
    return this.#byId.get(id)?.dir;
  }

  /** Read one episode back from its chunk. */
  async load(id: string): Promise<Episode> {
    const cached = this.#cache.get(id);
    if (cached) return cached;
    const where = this.#byId.get(id);
    if (!where) throw new Error(`no episode '${id}' in this viewer's datasets or run`);
    const episode = (await readFromChunk(where, id)) ?? (await readFromStore(where.dir, id));
    if (!episode) throw new Error(`episode '${id}' is no longer in ${where.dir}`);
    this.#cache.set(id, episode);
    if (this.#cache.size > CACHE) this.#cache.delete(this.#cache.keys().next().value!);
    return episode;
  }

  async #scanSource(source: CatalogSource): Promise<Located[]> {
    if (!existsSync(join(source.dir, MANIFEST_FILE))) return [];
    // The families its episodes were recorded under travel with a dataset (tasks/): known before they decode.
    addTasksBeside(source.dir);
    const entries: Located[] = [];
    for (const chunk of await listChunkFiles(source.dir)) {
      const key = `${source.dir}#${chunk.number}`;
      let located = chunk.open ? undefined : this.#closed.get(key);
      if (!located) {
        located = await readChunkSummaries(source, chunk.path, chunk.number, chunk.open);
        if (!chunk.open) this.#closed.set(key, located);
      }
      entries.push(...located);
    }
    const kept = entries.filter((l) => !source.keep || source.keep(l.summary.id));
    return kept.map((l, i) => ({ ...l, summary: { ...l.summary, step: source.stepOf?.(i) ?? null } }));
  }
}

function rank(s: EpisodeSummary): number {
  return s.origin === 'data' ? -1 : (s.step ?? Number.MAX_SAFE_INTEGER);
}

async function readChunkSummaries(
  source: CatalogSource,
  file: string,
  chunk: number,
  open: boolean,
): Promise<Located[]> {
  const out: Located[] = [];
  try {
    // A live writer's `.tmp` chunk is read up to its last whole record, silently: it is still growing.
    const reader = await ChunkReader.open(file, { recoverTruncated: open, onIssue: () => {} });
    for await (const r of reader.records())
      if (r.episode.status !== 'aborted')
        out.push({ dir: source.dir, chunk, summary: summarize(r.episode, source.origin) });
  } catch (err) {
    // A `.tmp` chunk closed (renamed) since the listing: the next scan finds it under its closed name.
    if (!open || (err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  return out;
}

function summarize(e: Episode, origin: EpisodeSummary['origin']): EpisodeSummary {
  return {
    id: e.id,
    origin,
    step: null,
    instruction: e.task.instruction,
    family: e.task.family,
    split: e.task.split,
    // Recorded without success information: no outcome to list until someone labels it.
    ...(e.successUnknown ? {} : { success: e.success }),
    steps: e.steps,
    policy: e.policy,
    source: e.source,
  };
}

async function readFromChunk(where: Located, id: string): Promise<Episode | undefined> {
  for (const open of [false, true]) {
    const file = join(where.dir, chunkFileName(where.chunk, open));
    if (!existsSync(file)) continue;
    try {
      const reader = await ChunkReader.open(file, { recoverTruncated: open, onIssue: () => {} });
      for await (const r of reader.records()) if (r.episode.id === id) return r.episode;
    } catch (err) {
      // Renamed from .tmp to closed between the check and the open: try the other name.
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  return undefined;
}

async function readFromStore(dir: string, id: string): Promise<Episode | undefined> {
  for await (const e of (await EpisodeStore.open(dir)).episodes({ onIssue: () => {} })) if (e.id === id) return e;
  return undefined;
}
