/**
 * `wmrl export lerobot`: a wmrl dataset as a LeRobot v3.0 dataset, laid out as LeRobot's own writer
 * lays it out (`lerobot/datasets/lerobot_dataset.py`, `utils.py`):
 *
 * ```
 * meta/info.json  meta/stats.json  meta/tasks.parquet  meta/episodes/chunk-000/file-000.parquet
 * data/chunk-000/file-000.parquet  videos/observation.images.<camera>/chunk-000/file-000.mp4
 * meta/wmrl_episodes.jsonl   (wmrl's own: what LeRobot has no field for; LeRobot ignores it)
 * ```
 *
 * Every observation is one frame (`steps + 1` per episode). `observation.state` / `.velocity` are
 * wmrl's qpos / qvel (arm radians, gripper opening in [0, 1]), `observation.environment_state` the
 * simulator's privileged state, `action` the absolute joint targets each action asked for (the last
 * frame holds them), `wmrl.action` the normalised action itself, `next.reward` / `next.success` /
 * `next.done` the progress and success after it. Aborted episodes are left out (they never train).
 * One data file and one video per camera are written; LeRobot reads files of any size.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { loadRobot, type RobotDescription } from '../../core/robotDescription.ts';
import type { Episode } from '../../core/types.ts';
import { EpisodeStore } from '../episodeStore.ts';
import { targetsFromActions } from './actionConversion.ts';
import { channelShaped, StatsAccumulator } from './featureStats.ts';
import { robotSlots } from './jointMapping.ts';
import { formatPath, INFO_PATH, type LerobotFeature } from './lerobotInfo.ts';
import { writeThenMove } from './outputFolder.ts';
import { writeParquet, type ParquetColumn, type ParquetLeaf } from './parquetTable.ts';
import { encodedVideoInfo, VideoEncoder, type VideoQuality } from './videoFrames.ts';
import { episodeMeta, writeEpisodeMeta, type WmrlEpisodeMeta } from './wmrlEpisodeMeta.ts';

export const DATA_PATH = 'data/chunk-{chunk_index:03d}/file-{file_index:03d}.parquet';
export const VIDEO_PATH = 'videos/{video_key}/chunk-{chunk_index:03d}/file-{file_index:03d}.mp4';
const EPISODES_FILE = 'meta/episodes/chunk-000/file-000.parquet';

export interface ExportOptions {
  /** The wmrl dataset folder. */
  source: string;
  /** The LeRobot dataset folder to create (absent or empty). */
  out: string;
  quality?: VideoQuality;
  onEpisode?: (index: number, episode: Episode) => void;
}

export interface ExportReport {
  out: string;
  robot: string;
  episodes: number;
  frames: number;
  tasks: number;
  /** Aborted episodes of the source, left out. */
  aborted: number;
  cameras: string[];
  fps: number;
}

/** A per-frame feature: how it is stored in info.json and the parquet, and its values so far. */
interface FrameFeature {
  key: string;
  leaf: ParquetLeaf;
  /** Stored as a list (shape [dim]) rather than a scalar (shape [1]). */
  vector: boolean;
  dim: number;
  names: string[] | null;
  values: unknown[];
  all: StatsAccumulator;
  episode: StatsAccumulator;
}

function vectorFeature(key: string, dim: number, names: string[] | null): FrameFeature {
  return { key, leaf: 'float32', vector: true, dim, names, values: [], ...accumulators(dim) };
}

function scalarFeature(key: string, leaf: ParquetLeaf): FrameFeature {
  return { key, leaf, vector: false, dim: 1, names: null, values: [], ...accumulators(1) };
}

const accumulators = (dim: number) => ({ all: new StatsAccumulator(dim), episode: new StatsAccumulator(dim) });

/** Appends one frame's value (a vector for dim > 1 or named features, else a scalar). */
function push(feature: FrameFeature, value: ArrayLike<number> | number | bigint | boolean): void {
  const numbers: number[] = typeof value === 'object' ? Array.from(value) : [Number(value)];
  feature.values.push(feature.vector ? numbers : value);
  feature.all.add(numbers, 1);
  feature.episode.add(numbers, 1);
}

interface Layout {
  qposDim: number;
  stateDim: number;
  fps: number;
  cameras: { name: string; width: number; height: number }[];
}

function layoutOf(robot: RobotDescription, episode: Episode): Layout {
  const slots = robotSlots(robot);
  if (episode.qposDim !== slots.length || episode.actionDim !== slots.length) {
    throw new Error(
      `episode ${episode.id}: qposDim ${episode.qposDim} / actionDim ${episode.actionDim} do not match ` +
        `robot '${robot.name}' (${slots.length}: arm joints + gripper)`,
    );
  }
  if (!Number.isInteger(episode.controlHz)) {
    throw new Error(`episode ${episode.id}: control rate ${episode.controlHz} Hz is not a whole fps, as LeRobot needs`);
  }
  const cameras = Object.entries(episode.cameras)
    .map(([name, c]) => ({ name, width: c.width, height: c.height }))
    .sort((a, b) => a.name.localeCompare(b.name));
  return {
    qposDim: episode.qposDim,
    stateDim: episode.state.length ? episode.stateDim : 0,
    fps: episode.controlHz,
    cameras,
  };
}

function checkLayout(layout: Layout, episode: Episode, robot: RobotDescription): void {
  const other = layoutOf(robot, episode);
  const same =
    other.stateDim === layout.stateDim &&
    other.fps === layout.fps &&
    JSON.stringify(other.cameras) === JSON.stringify(layout.cameras);
  if (!same) {
    throw new Error(
      `episode ${episode.id} differs from the first episode ` +
        `(privileged state ${other.stateDim} vs ${layout.stateDim}, ${other.fps} vs ${layout.fps} Hz, ` +
        `cameras ${JSON.stringify(other.cameras)} vs ${JSON.stringify(layout.cameras)}); ` +
        'a LeRobot dataset has one set of features',
    );
  }
}

const hfValue = (leaf: ParquetLeaf) => ({ dtype: leaf === 'bool' ? 'bool' : leaf, _type: 'Value' });

/** Exports `source` to `out`. */
export async function exportLerobot(options: ExportOptions): Promise<ExportReport> {
  const store = await EpisodeStore.open(options.source);
  const robot = loadRobot(store.robotRef);
  const slots = robotSlots(robot);
  return writeThenMove(options.out, async (dir) => {
    let layout: Layout | null = null;
    let features: FrameFeature[] = [];
    const encoders = new Map<string, VideoEncoder>();
    const cameraStats = new Map<string, { all: StatsAccumulator; episode: StatsAccumulator }>();
    const taskIndex = new Map<string, number>();
    const episodeRows: Record<string, unknown>[] = [];
    const metas: WmrlEpisodeMeta[] = [];
    let aborted = 0;
    let frames = 0;
    try {
      for await (const { episode } of store.records()) {
        if (episode.status === 'aborted') {
          aborted++;
          continue;
        }
        if (!layout) {
          layout = layoutOf(robot, episode);
          features = [
            vectorFeature('observation.state', slots.length, slots),
            vectorFeature('observation.velocity', slots.length, slots),
            ...(layout.stateDim ? [vectorFeature('observation.environment_state', layout.stateDim, null)] : []),
            vectorFeature('action', slots.length, slots),
            vectorFeature('wmrl.action', slots.length, slots),
            scalarFeature('next.reward', 'float32'),
            scalarFeature('next.success', 'bool'),
            scalarFeature('next.done', 'bool'),
            scalarFeature('timestamp', 'float32'),
            scalarFeature('frame_index', 'int64'),
            scalarFeature('episode_index', 'int64'),
            scalarFeature('index', 'int64'),
            scalarFeature('task_index', 'int64'),
          ];
          for (const cam of layout.cameras) {
            const key = `observation.images.${cam.name}`;
            const file = join(dir, formatPath(VIDEO_PATH, { video_key: key, chunk_index: 0, file_index: 0 }));
            await mkdir(dirname(file), { recursive: true });
            const size = { width: cam.width, height: cam.height };
            encoders.set(cam.name, new VideoEncoder(file, { size, fps: layout.fps, quality: options.quality }));
            cameraStats.set(cam.name, { all: new StatsAccumulator(3), episode: new StatsAccumulator(3) });
          }
        } else checkLayout(layout, episode, robot);
        const k = metas.length;
        const fps = layout.fps;
        const byKey = new Map(features.map((f) => [f.key, f]));
        const f = (key: string) => byKey.get(key)!;
        for (const feature of features) feature.episode = new StatsAccumulator(feature.dim);
        const task = taskIndex.get(episode.task.instruction) ?? taskIndex.size;
        taskIndex.set(episode.task.instruction, task);
        const targets = targetsFromActions(robot, episode);
        const T = episode.steps;
        const d = slots.length;
        const hold = new Float32Array(d);
        hold[d - 1] = T > 0 ? episode.actions[T * d - 1]! : -1;
        for (let t = 0; t <= T; t++) {
          push(f('observation.state'), episode.qpos.subarray(t * d, (t + 1) * d));
          push(f('observation.velocity'), episode.qvel.subarray(t * d, (t + 1) * d));
          if (layout.stateDim) {
            const s = layout.stateDim;
            push(f('observation.environment_state'), episode.state.subarray(t * s, (t + 1) * s));
          }
          push(f('action'), targets.subarray(t * d, (t + 1) * d));
          push(f('wmrl.action'), t < T ? episode.actions.subarray(t * d, (t + 1) * d) : hold);
          const after = Math.min(t + 1, T);
          push(f('next.reward'), episode.progress[after]!);
          push(f('next.success'), episode.successes[after] === 1);
          push(f('next.done'), t >= T - 1);
          push(f('timestamp'), Math.fround(t / fps));
          push(f('frame_index'), BigInt(t));
          push(f('episode_index'), BigInt(k));
          push(f('index'), BigInt(frames + t));
          push(f('task_index'), BigInt(task));
        }
        const row: Record<string, unknown> = {
          episode_index: BigInt(k),
          tasks: [episode.task.instruction],
          length: BigInt(T + 1),
          'data/chunk_index': 0n,
          'data/file_index': 0n,
          dataset_from_index: BigInt(frames),
          dataset_to_index: BigInt(frames + T + 1),
        };
        for (const cam of layout.cameras) {
          const key = `observation.images.${cam.name}`;
          const encoder = encoders.get(cam.name)!;
          const stats = cameraStats.get(cam.name)!;
          stats.episode = new StatsAccumulator(3);
          const pixels = episode.cameras[cam.name]!.frames;
          row[`videos/${key}/chunk_index`] = 0n;
          row[`videos/${key}/file_index`] = 0n;
          row[`videos/${key}/from_timestamp`] = encoder.frames / fps;
          await encoder.write(pixels);
          row[`videos/${key}/to_timestamp`] = encoder.frames / fps;
          stats.all.addFrames(pixels, cam.width * cam.height);
          stats.episode.addFrames(pixels, cam.width * cam.height);
          for (const [stat, value] of Object.entries(channelShaped(stats.episode.stats()))) {
            row[`stats/${key}/${stat}`] = value;
          }
        }
        for (const feature of features) {
          for (const [stat, value] of Object.entries(feature.episode.stats()))
            row[`stats/${feature.key}/${stat}`] = value;
        }
        row['meta/episodes/chunk_index'] = 0n;
        row['meta/episodes/file_index'] = 0n;
        episodeRows.push(row);
        metas.push(episodeMeta(episode, k));
        frames += T + 1;
        options.onEpisode?.(k, episode);
      }
      for (const encoder of encoders.values()) await encoder.close();
    } catch (err) {
      for (const encoder of encoders.values()) encoder.kill();
      throw err;
    }
    if (!layout) throw new Error(`${options.source} holds no complete episode to export`);

    await mkdir(join(dir, 'data/chunk-000'), { recursive: true });
    await mkdir(join(dir, 'meta/episodes/chunk-000'), { recursive: true });
    const hfFeatures = Object.fromEntries(
      features.map((f) => [
        f.key,
        f.vector ? { feature: hfValue(f.leaf), length: f.dim, _type: 'Sequence' } : hfValue(f.leaf),
      ]),
    );
    await writeParquet(
      join(dir, formatPath(DATA_PATH, { chunk_index: 0, file_index: 0 })),
      features.map((f): ParquetColumn => ({ name: f.key, leaf: f.leaf, listDepth: f.vector ? 1 : 0, data: f.values })),
      { huggingface: JSON.stringify({ info: { features: hfFeatures } }) },
    );
    await writeEpisodesParquet(join(dir, EPISODES_FILE), episodeRows);
    await writeTasksParquet(join(dir, 'meta/tasks.parquet'), [...taskIndex.keys()]);

    const stats: Record<string, unknown> = {};
    for (const f of features) stats[f.key] = f.all.stats();
    for (const [name, s] of cameraStats) stats[`observation.images.${name}`] = channelShaped(s.all.stats());
    await writeFile(join(dir, 'meta/stats.json'), `${JSON.stringify(stats, null, 4)}\n`);
    await writeEpisodeMeta(dir, metas);

    const fps = layout.fps;
    const infoFeatures: Record<string, LerobotFeature> = {};
    for (const f of features) {
      infoFeatures[f.key] = { dtype: f.leaf, shape: [f.dim], names: f.names, fps };
    }
    for (const cam of layout.cameras) {
      const size = { width: cam.width, height: cam.height };
      infoFeatures[`observation.images.${cam.name}`] = {
        dtype: 'video',
        shape: [cam.height, cam.width, 3],
        names: ['height', 'width', 'channels'],
        info: encodedVideoInfo({ size, fps, quality: options.quality }),
      };
    }
    const info = {
      codebase_version: 'v3.0',
      robot_type: robot.name,
      total_episodes: metas.length,
      total_frames: frames,
      total_tasks: taskIndex.size,
      chunks_size: 1000,
      data_files_size_in_mb: 100,
      video_files_size_in_mb: 500,
      fps,
      splits: { train: `0:${metas.length}` },
      data_path: DATA_PATH,
      video_path: layout.cameras.length ? VIDEO_PATH : null,
      features: infoFeatures,
    };
    // info.json last: a folder without it is no LeRobot dataset.
    await writeFile(join(dir, INFO_PATH), `${JSON.stringify(info, null, 4)}\n`);
    return {
      out: options.out,
      robot: robot.name,
      episodes: metas.length,
      frames,
      tasks: taskIndex.size,
      aborted,
      cameras: layout.cameras.map((c) => c.name),
      fps,
    };
  });
}

/** Column types of an episodes row's cells: ints, floats, task lists, stats lists (1 or 3 deep). */
function episodeColumn(name: string, values: unknown[]): ParquetColumn {
  const sample = values[0];
  if (name === 'tasks') return { name, leaf: 'string', listDepth: 1, data: values };
  if (typeof sample === 'bigint') return { name, leaf: 'int64', listDepth: 0, data: values };
  if (typeof sample === 'number') return { name, leaf: 'float64', listDepth: 0, data: values };
  let depth = 0;
  for (let v: unknown = sample; Array.isArray(v); v = v[0]) depth++;
  const leaf: ParquetLeaf = name.endsWith('/count') ? 'int64' : 'float64';
  const data = leaf === 'int64' ? values.map((v) => (v as number[]).map((x) => BigInt(x))) : values;
  return { name, leaf, listDepth: depth, data };
}

async function writeEpisodesParquet(file: string, rows: Record<string, unknown>[]): Promise<void> {
  const names = Object.keys(rows[0]!);
  await writeParquet(
    file,
    names.map((name) =>
      episodeColumn(
        name,
        rows.map((r) => r[name]),
      ),
    ),
  );
}

/** `meta/tasks.parquet` as pandas writes LeRobot's task frame: a task_index column indexed by the task strings. */
async function writeTasksParquet(file: string, tasks: string[]): Promise<void> {
  const pandas = {
    index_columns: ['task'],
    column_indexes: [
      { name: null, field_name: null, pandas_type: 'unicode', numpy_type: 'object', metadata: { encoding: 'UTF-8' } },
    ],
    columns: [
      { name: 'task_index', field_name: 'task_index', pandas_type: 'int64', numpy_type: 'int64', metadata: null },
      { name: 'task', field_name: 'task', pandas_type: 'unicode', numpy_type: 'object', metadata: null },
    ],
    creator: { library: 'wmrl', version: '1' },
    pandas_version: '2.2.3',
  };
  await writeParquet(
    file,
    [
      { name: 'task_index', leaf: 'int64', listDepth: 0, data: tasks.map((_, i) => BigInt(i)) },
      { name: 'task', leaf: 'string', listDepth: 0, data: tasks },
    ],
    { pandas: JSON.stringify(pandas) },
  );
}
