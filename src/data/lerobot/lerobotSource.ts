/**
 * Reads a LeRobot dataset folder, v2.1 (and v2.0) or v3.0, into one shape: its info, tasks and, per
 * episode, the frames' rows and where each video's frames lie.
 *
 * - v2.1: `meta/episodes.jsonl` and `meta/tasks.jsonl`; one parquet per episode under
 *   `data/chunk-{episode_chunk}` and one mp4 per episode and camera, starting at 0 s.
 * - v3.0: `meta/episodes/chunk-*\/file-*.parquet` (one row per episode: its data file, its row range
 *   `dataset_from_index`..`dataset_to_index`, and per camera its video file and
 *   `from_timestamp`..`to_timestamp`) and `meta/tasks.parquet` (task strings as the pandas index).
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { featureNames, formatPath, LerobotFormatError, readLerobotInfo, type LerobotInfo } from './lerobotInfo.ts';
import { readParquet, type ParquetRow, type ParquetTable } from './parquetTable.ts';

export const EPISODES_JSONL = 'meta/episodes.jsonl';
export const TASKS_JSONL = 'meta/tasks.jsonl';
export const TASKS_PARQUET = 'meta/tasks.parquet';
export const EPISODES_DIR = 'meta/episodes';

export interface VideoSegment {
  file: string;
  fromSeconds: number;
}

export interface LerobotEpisode {
  index: number;
  length: number;
  tasks: string[];
  /** The parquet file holding this episode's frames. */
  dataFile: string;
  /** v3.0: the episode's global row range [from, to). */
  rows?: { from: number; to: number };
  /** Per video feature. */
  videos: Record<string, VideoSegment>;
}

/** One episode's frames, sorted by frame_index: the value of every column per frame. */
export interface EpisodeFrames {
  file: string;
  rows: ParquetRow[];
}

const legacyEpisodeSchema = z
  .object({ episode_index: z.int().min(0), tasks: z.array(z.string()), length: z.int().min(1) })
  .passthrough();
const legacyTaskSchema = z.object({ task_index: z.int().min(0), task: z.string() }).passthrough();

async function readJsonl<S extends z.ZodType>(file: string, schema: S): Promise<z.infer<S>[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new LerobotFormatError(file, null, 'not found');
    throw err;
  }
  return text
    .split('\n')
    .map((line, i) => ({ line: line.trim(), i }))
    .filter(({ line }) => line.length > 0)
    .map(({ line, i }) => {
      let raw: unknown;
      try {
        raw = JSON.parse(line);
      } catch (err) {
        throw new LerobotFormatError(`${file}:${i + 1}`, null, `not valid JSON (${(err as Error).message})`);
      }
      const parsed = schema.safeParse(raw);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new LerobotFormatError(`${file}:${i + 1}`, issue?.path.join('.') || '(root)', issue?.message ?? '');
      }
      return parsed.data;
    });
}

const asInt = (v: unknown): number | undefined =>
  typeof v === 'bigint' ? Number(v) : typeof v === 'number' && Number.isInteger(v) ? v : undefined;

/** An integer cell of a metadata row, or an error naming the file and column. */
function intCell(table: ParquetTable, row: ParquetRow, column: string, at: number): number {
  const value = asInt(row[column]);
  if (value === undefined)
    throw new LerobotFormatError(table.file, column, `row ${at}: ${String(row[column])} is not an integer`);
  return value;
}

function numberCell(table: ParquetTable, row: ParquetRow, column: string, at: number): number {
  const v = row[column];
  const value = typeof v === 'bigint' ? Number(v) : v;
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new LerobotFormatError(table.file, column, `row ${at}: ${String(v)} is not a number`);
  }
  return value;
}

export class LerobotSource {
  #cached: ParquetTable | null = null;

  private constructor(
    readonly dir: string,
    readonly info: LerobotInfo,
    readonly tasks: Map<number, string>,
    readonly episodes: LerobotEpisode[],
  ) {}

  get version(): LerobotInfo['codebase_version'] {
    return this.info.codebase_version;
  }

  /** Feature keys stored as mp4 (`dtype: video`). */
  get videoKeys(): string[] {
    return Object.entries(this.info.features)
      .filter(([, f]) => f.dtype === 'video')
      .map(([k]) => k);
  }

  /** The names of a vector feature's dimensions, or null when the dataset has no such feature. */
  names(feature: string): string[] | null {
    const f = this.info.features[feature];
    return f ? featureNames(f) : null;
  }

  static async open(dir: string): Promise<LerobotSource> {
    const info = await readLerobotInfo(dir);
    if (info.codebase_version === 'v3.0') return LerobotSource.openV3(dir, info);
    return LerobotSource.openV2(dir, info);
  }

  private static async openV2(dir: string, info: LerobotInfo): Promise<LerobotSource> {
    const tasks = new Map<number, string>();
    for (const t of await readJsonl(join(dir, TASKS_JSONL), legacyTaskSchema)) tasks.set(t.task_index, t.task);
    const rows = await readJsonl(join(dir, EPISODES_JSONL), legacyEpisodeSchema);
    const videoKeys = Object.keys(info.features).filter((k) => info.features[k]!.dtype === 'video');
    const episodes = rows
      .sort((a, b) => a.episode_index - b.episode_index)
      .map((e): LerobotEpisode => {
        const chunk = Math.floor(e.episode_index / info.chunks_size);
        const values = { episode_chunk: chunk, episode_index: e.episode_index };
        const videos: Record<string, VideoSegment> = {};
        for (const key of videoKeys) {
          if (!info.video_path) throw new LerobotFormatError(join(dir, 'meta/info.json'), 'video_path', 'missing');
          videos[key] = { file: join(dir, formatPath(info.video_path, { ...values, video_key: key })), fromSeconds: 0 };
        }
        return {
          index: e.episode_index,
          length: e.length,
          tasks: e.tasks,
          dataFile: join(dir, formatPath(info.data_path, values)),
          videos,
        };
      });
    return new LerobotSource(dir, info, tasks, episodes);
  }

  private static async openV3(dir: string, info: LerobotInfo): Promise<LerobotSource> {
    const tasksTable = await readParquet(join(dir, TASKS_PARQUET));
    // pandas keeps the task strings as the frame's index: a `task` column (LeRobot names the index),
    // or `__index_level_0__` (an unnamed index).
    const textColumn = ['task', '__index_level_0__'].find((c) => tasksTable.columns.includes(c));
    if (!textColumn || !tasksTable.columns.includes('task_index')) {
      throw new LerobotFormatError(
        tasksTable.file,
        null,
        `expected columns task_index and task (the task strings); it has ${tasksTable.columns.join(', ')}`,
      );
    }
    const tasks = new Map<number, string>();
    tasksTable.rows.forEach((row, i) => {
      const text = row[textColumn];
      if (typeof text !== 'string') throw new LerobotFormatError(tasksTable.file, textColumn, `row ${i}: not a string`);
      tasks.set(intCell(tasksTable, row, 'task_index', i), text);
    });

    const episodesDir = join(dir, EPISODES_DIR);
    const files: string[] = [];
    for (const chunk of (await readdir(episodesDir).catch(() => [])).filter((c) => c.startsWith('chunk-')).sort()) {
      for (const f of (await readdir(join(episodesDir, chunk))).filter((n) => n.endsWith('.parquet')).sort()) {
        files.push(join(episodesDir, chunk, f));
      }
    }
    if (files.length === 0) throw new LerobotFormatError(episodesDir, null, 'no chunk-*/file-*.parquet episode files');
    const videoKeys = Object.keys(info.features).filter((k) => info.features[k]!.dtype === 'video');
    const episodes: LerobotEpisode[] = [];
    for (const file of files) {
      const table = await readParquet(file, (name) => !name.startsWith('stats/'));
      table.rows.forEach((row, at) => {
        const values = {
          chunk_index: intCell(table, row, 'data/chunk_index', at),
          file_index: intCell(table, row, 'data/file_index', at),
        };
        const videos: Record<string, VideoSegment> = {};
        for (const key of videoKeys) {
          if (!info.video_path) throw new LerobotFormatError(join(dir, 'meta/info.json'), 'video_path', 'missing');
          const where = {
            video_key: key,
            chunk_index: intCell(table, row, `videos/${key}/chunk_index`, at),
            file_index: intCell(table, row, `videos/${key}/file_index`, at),
          };
          videos[key] = {
            file: join(dir, formatPath(info.video_path, where)),
            fromSeconds: numberCell(table, row, `videos/${key}/from_timestamp`, at),
          };
        }
        const tasksCell = row.tasks;
        if (!Array.isArray(tasksCell) || !tasksCell.every((t) => typeof t === 'string')) {
          throw new LerobotFormatError(file, 'tasks', `row ${at}: expected a list of task strings`);
        }
        episodes.push({
          index: intCell(table, row, 'episode_index', at),
          length: intCell(table, row, 'length', at),
          tasks: tasksCell as string[],
          dataFile: join(dir, formatPath(info.data_path, values)),
          rows: {
            from: intCell(table, row, 'dataset_from_index', at),
            to: intCell(table, row, 'dataset_to_index', at),
          },
          videos,
        });
      });
    }
    episodes.sort((a, b) => a.index - b.index);
    return new LerobotSource(dir, info, tasks, episodes);
  }

  /** The episode's frames, in frame order; checked against the episode's length and row range. */
  async frames(episode: LerobotEpisode): Promise<EpisodeFrames> {
    if (this.#cached?.file !== episode.dataFile) this.#cached = await readParquet(episode.dataFile);
    const table = this.#cached;
    for (const column of ['episode_index', 'frame_index']) {
      if (!table.columns.includes(column)) {
        throw new LerobotFormatError(table.file, column, `missing (the file has ${table.columns.join(', ')})`);
      }
    }
    const rows = table.rows
      .filter((row) => asInt(row.episode_index) === episode.index)
      .sort((a, b) => (asInt(a.frame_index) ?? 0) - (asInt(b.frame_index) ?? 0));
    if (rows.length !== episode.length) {
      throw new LerobotFormatError(
        table.file,
        'episode_index',
        `episode ${episode.index} has ${rows.length} rows, its metadata says length ${episode.length}`,
      );
    }
    rows.forEach((row, i) => {
      if (asInt(row.frame_index) !== i) {
        throw new LerobotFormatError(table.file, 'frame_index', `episode ${episode.index}: frame ${i} is missing`);
      }
      if (episode.rows && row.index !== undefined && asInt(row.index) !== episode.rows.from + i) {
        throw new LerobotFormatError(
          table.file,
          'index',
          `episode ${episode.index} frame ${i} has index ${String(row.index)}, ` +
            `meta/episodes says rows ${episode.rows.from}..${episode.rows.to}`,
        );
      }
    });
    return { file: table.file, rows };
  }
}
