/**
 * A dataset folder of episodes: `dataset.json` plus chunk files.
 *
 * ```ts
 * const store = await EpisodeStore.openForAppend('data/sim-reach', { robot: 'arm6' });
 * await store.append(episode);
 * await store.close();
 * for await (const ep of store.episodes({ split: 'train' })) ...
 * ```
 *
 * Aborted episodes are stored (for the record) but never served unless asked for with
 * `includeAborted: true`. Closed chunks are read strictly; `.tmp` chunks (a crash, or a
 * writer still at work) are read up to their last complete record and the cut-off tail is
 * reported, never thrown.
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { atomicTempTarget, writeFileAtomic } from '../core/durableFs.ts';
import { join } from 'node:path';
import { robotRef, type RobotDescription } from '../core/robotDescription.ts';
import type { Episode, Split } from '../core/types.ts';
import { addTasksBeside, BUILT_IN, familyYaml, type TaskFamily } from '../tasks/families.ts';
import { ChunkReader, CorruptEpisodeFileError, type ChunkIssue } from './chunkFile.ts';
import { chunkFileName, listChunkFiles, type ChunkFileRef } from './chunkNames.ts';
import {
  DatasetError,
  MANIFEST_FILE,
  newManifest,
  readManifest,
  writeManifest,
  type DatasetManifest,
} from './datasetManifest.ts';
import { SummaryCounter, type DatasetSummary } from './datasetSummary.ts';
import { EpisodeWriter } from './episodeWriter.ts';

export interface StoreOptions {
  /** Episodes per chunk file (default 32). */
  episodesPerChunk?: number;
}

export interface CreateOptions extends StoreOptions {
  robot: string;
  /** Where the robot's description lives when it is not this package's robots/<robot> (see storeRobot). */
  robotPath?: string;
  /** Default: a random UUID. */
  datasetId?: string;
}

export interface ReadOptions {
  /** Skip records that fail their checksum or do not decode (reported through `onIssue`) instead of throwing. */
  skipCorrupt?: boolean;
  /** Receives truncated tails and skipped records. Default: a process warning per issue. */
  onIssue?: (issue: ChunkIssue) => void;
}

export interface EpisodeFilter extends ReadOptions {
  /** Serve aborted episodes too. Never set this for training or calibration data. */
  includeAborted?: boolean;
  split?: Split;
  family?: TaskFamily;
}

export interface StoredEpisode {
  episode: Episode;
  file: string;
  /** Byte offset of the episode's record in `file`. */
  offset: number;
}

/** The robot fields a dataset of `robot`'s episodes records, so that later commands can load it again. */
export function storeRobot(robot: RobotDescription): Pick<CreateOptions, 'robot' | 'robotPath'> {
  const ref = robotRef(robot);
  return ref === robot.name ? { robot: robot.name } : { robot: robot.name, robotPath: ref };
}

const warnIssue = (issue: ChunkIssue) => process.emitWarning(issue.message, 'WmrlEpisodeStoreWarning');

async function entriesOf(dir: string): Promise<string[] | null> {
  try {
    return await readdir(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    if (code === 'ENOTDIR') throw new DatasetError(dir, `${dir} is a file, not a dataset folder`);
    throw err;
  }
}

export class EpisodeStore {
  private writer: EpisodeWriter | null = null;

  /** Families whose file this dataset's tasks/ folder is known to hold. */
  #familyFiles = new Set<string>();

  private constructor(
    readonly dir: string,
    readonly manifest: DatasetManifest,
    private readonly options: StoreOptions,
  ) {
    // The families a dataset's episodes were recorded under travel with it (tasks/, copied there on append).
    addTasksBeside(dir);
  }

  get robot(): string {
    return this.manifest.robot;
  }

  /** What loadRobot takes to load this dataset's robot: its recorded path, or its name under robots/. */
  get robotRef(): string {
    return this.manifest.robotPath ?? this.manifest.robot;
  }

  /** Creates a dataset in `dir`, which must be absent or empty. */
  static async create(dir: string, options: CreateOptions): Promise<EpisodeStore> {
    const entries = await entriesOf(dir);
    if (entries && entries.length > 0) {
      throw new DatasetError(dir, `cannot create a dataset in ${dir}: the folder is not empty`);
    }
    await mkdir(dir, { recursive: true });
    const manifest = newManifest(options.robot, options.datasetId, options.robotPath);
    await writeManifest(dir, manifest);
    return new EpisodeStore(dir, manifest, options);
  }

  /** Opens an existing dataset. */
  static async open(dir: string, options: StoreOptions = {}): Promise<EpisodeStore> {
    const entries = await entriesOf(dir);
    if (entries === null) throw new DatasetError(dir, `${dir} does not exist`);
    const manifest = await readManifest(dir);
    if (!manifest) throw new DatasetError(dir, `${dir} is not a wmrl dataset (no ${MANIFEST_FILE})`);
    return new EpisodeStore(dir, manifest, options);
  }

  /**
   * Opens `dir` for appending `robot`'s episodes: creates the dataset when the folder is
   * absent or empty, appends when it holds a wmrl dataset of the same robot, and otherwise
   * throws a `DatasetError` without changing anything.
   */
  static async openForAppend(dir: string, options: CreateOptions): Promise<EpisodeStore> {
    const entries = await entriesOf(dir);
    if (entries === null || entries.length === 0) return EpisodeStore.create(dir, options);
    const manifest = await readManifest(dir);
    if (!manifest && entries.every((e) => atomicTempTarget(e) === MANIFEST_FILE)) {
      // Killed while creating the dataset, before its manifest's rename: nothing was ever stored.
      for (const e of entries) await rm(join(dir, e), { force: true });
      return EpisodeStore.create(dir, options);
    }
    if (!manifest) {
      const shown = entries.slice(0, 5).join(', ') + (entries.length > 5 ? `, … (${entries.length} entries)` : '');
      throw new DatasetError(
        dir,
        `refusing to write episodes to ${dir}: it is not empty and is ` +
          `not a wmrl dataset (no ${MANIFEST_FILE}); it holds ${shown}`,
      );
    }
    if (manifest.robot !== options.robot) {
      throw new DatasetError(
        dir,
        `refusing to append robot '${options.robot}' episodes ` +
          `to ${dir}: it holds a dataset of robot '${manifest.robot}'`,
      );
    }
    if (manifest.robotPath !== options.robotPath) {
      const from = (path: string | undefined) => path ?? 'robots/ of this package';
      throw new DatasetError(
        dir,
        `refusing to append robot '${options.robot}' (from ${from(options.robotPath)}) episodes to ${dir}: ` +
          `it holds robot '${manifest.robot}' from ${from(manifest.robotPath)}, another description`,
      );
    }
    return new EpisodeStore(dir, manifest, options);
  }

  /** Validates and appends one episode (its robot must be the dataset's). */
  async append(episode: Episode): Promise<void> {
    if (episode.robot !== this.robot) {
      throw new DatasetError(
        this.dir,
        `episode ${episode.id} is for robot '${episode.robot}', this dataset holds robot '${this.robot}'`,
      );
    }
    this.writer ??= new EpisodeWriter(
      this.dir,
      { schema: 1, robot: this.robot, createdAt: new Date().toISOString(), datasetId: this.manifest.datasetId },
      this.options.episodesPerChunk,
    );
    await this.#keepFamilyFile(episode.task.family);
    await this.writer.append(episode);
  }

  /** A family not built in gets its file copied into the dataset's tasks/, so the dataset says what its tasks are. */
  async #keepFamilyFile(family: TaskFamily): Promise<void> {
    if (this.#familyFiles.has(family) || (BUILT_IN as readonly string[]).includes(family)) return;
    const target = join(this.dir, 'tasks', `${family}.yaml`);
    if (!existsSync(target)) {
      await mkdir(join(this.dir, 'tasks'), { recursive: true });
      await writeFileAtomic(target, familyYaml(family));
    }
    this.#familyFiles.add(family);
  }

  /** Closes the chunk being written, if any. The store can append again afterwards. */
  async close(): Promise<void> {
    const writer = this.writer;
    this.writer = null;
    await writer?.close();
  }

  /** Chunk files, in order. */
  chunkFiles(): Promise<ChunkFileRef[]> {
    return listChunkFiles(this.dir);
  }

  /** Every stored record in order (aborted ones included), with where it lives. */
  async *records(options: ReadOptions = {}): AsyncGenerator<StoredEpisode> {
    const onIssue = options.onIssue ?? warnIssue;
    for (const chunk of await this.chunkFiles()) {
      const reader = await this.openChunk(chunk, { skipCorrupt: options.skipCorrupt ?? false, onIssue });
      const header = reader.header;
      if (header && (header.robot !== this.robot || header.datasetId !== this.manifest.datasetId)) {
        throw new CorruptEpisodeFileError(
          reader.file,
          0,
          null,
          `chunk belongs to robot '${header.robot}' dataset ${header.datasetId}, ` +
            `not to this dataset (robot '${this.robot}', ${this.manifest.datasetId})`,
        );
      }
      for await (const r of reader.records()) yield { episode: r.episode, file: reader.file, offset: r.offset };
    }
  }

  private async openChunk(chunk: ChunkFileRef, options: ReadOptions): Promise<ChunkReader> {
    try {
      return await ChunkReader.open(chunk.path, { ...options, recoverTruncated: chunk.open });
    } catch (err) {
      // A live writer may have closed (renamed) this `.tmp` since the folder was listed.
      if (!chunk.open || (err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      return ChunkReader.open(join(this.dir, chunkFileName(chunk.number, false)), options);
    }
  }

  /** Episodes in storage order. Aborted episodes are left out unless `includeAborted` is set. */
  async *episodes(filter: EpisodeFilter = {}): AsyncGenerator<Episode> {
    for await (const { episode } of this.records(filter)) {
      if (episode.status === 'aborted' && !filter.includeAborted) continue;
      if (filter.split !== undefined && episode.task.split !== filter.split) continue;
      if (filter.family !== undefined && episode.task.family !== filter.family) continue;
      yield episode;
    }
  }

  /** Reads the whole dataset and counts it (see `DatasetSummary`). */
  async summary(options: ReadOptions = {}): Promise<DatasetSummary> {
    const issues: ChunkIssue[] = [];
    const counter = new SummaryCounter();
    const onIssue = (issue: ChunkIssue) => {
      issues.push(issue);
      options.onIssue?.(issue);
    };
    for await (const { episode } of this.records({ ...options, onIssue })) counter.add(episode);
    const chunks = await this.chunkFiles();
    let bytesOnDisk = 0;
    for (const name of await readdir(this.dir)) {
      const s = await stat(join(this.dir, name));
      if (s.isFile()) bytesOnDisk += s.size;
    }
    return {
      dir: this.dir,
      robot: this.robot,
      datasetId: this.manifest.datasetId,
      createdAt: this.manifest.createdAt,
      ...counter.counts(),
      chunks: chunks.filter((c) => !c.open).length,
      openChunks: chunks.filter((c) => c.open).length,
      bytesOnDisk,
      issues,
    };
  }
}
