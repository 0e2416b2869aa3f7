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
 * Every observation is one frame (`steps + 1` per episode). `observation.state` is wmrl's qpos and `action`
 * the absolute joint targets each action asked for (the last frame holds them), named and scaled as LeRobot
 * names and scales the robot (its description's `lerobot` section: robot_type, `.pos` names, units), else
 * radians with the gripper an opening in [0, 1]. Only they and the cameras start with `observation.` or
 * `action`, the prefixes LeRobot's `dataset_to_policy_features` makes policy inputs and outputs of;
 * what wmrl's exact re-import needs besides is under `wmrl.`: `wmrl.action` (the normalised action),
 * `wmrl.velocity` (qvel), `wmrl.environment_state` (the simulator's privileged state) and, when the
 * state is not in radians, `wmrl.state`. `next.reward` / `next.success` are the progress and success after the
 * frame's action (left out for recordings that say nothing of success), `next.done` marks the last frame. A
 * dataset imported from LeRobot (`lerobot_source.json`) is given back with its own names, robot_type, units,
 * recorded targets (the last frame's included) and, while its source videos are where the import read them,
 * frames re-encoded from them at their own size. Aborted episodes are left out (they never train). One data file
 * and one video per camera are written; LeRobot reads files of any size.
 */
import { existsSync } from 'node:fs';
import { access, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { loadRobot, type RobotDescription } from '../../core/robotDescription.ts';
import type { Episode, TaskSpec } from '../../core/types.ts';
import { EpisodeStore } from '../episodeStore.ts';
import { targetsFromActions } from './actionConversion.ts';
import { aggregateStats, channelShaped, episodeStats, imageStats, type FeatureStats } from './featureStats.ts';
import { fromWmrl, unitConversion, type UnitConversion } from './jointUnits.ts';
import { importLerobot } from './lerobotImport.ts';
import { readOrigin, type LerobotOrigin } from './lerobotOrigin.ts';
import { LerobotSource, type LerobotEpisode } from './lerobotSource.ts';
import { robotSlots } from './jointMapping.ts';
import { formatPath, INFO_PATH, type LerobotFeature } from './lerobotInfo.ts';
import { writeThenMove } from './outputFolder.ts';
import { writeParquet, type ParquetColumn, type ParquetLeaf } from './parquetTable.ts';
import { decodeVideoFrames, encodedVideoInfo, VideoEncoder, type VideoQuality } from './videoFrames.ts';
import { episodeMeta, writeEpisodeFamilies, writeEpisodeMeta, type WmrlEpisodeMeta } from './wmrlEpisodeMeta.ts';

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

/** How an export is written: with wmrl's own columns (`wmrl.*`), or as LeRobot's alone (a give-back). */
interface ExportMode {
  wmrlColumns: boolean;
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
  /** What was given back from the LeRobot dataset the wmrl dataset was imported from, or could not be. */
  notes: string[];
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
  /** The current episode's values, row-major, and the statistics of the episodes before. */
  episodeValues: number[];
  episodes: FeatureStats[];
}

function vectorFeature(key: string, dim: number, names: string[] | null): FrameFeature {
  return { key, leaf: 'float32', vector: true, dim, names, values: [], episodeValues: [], episodes: [] };
}

function scalarFeature(key: string, leaf: ParquetLeaf): FrameFeature {
  return { key, leaf, vector: false, dim: 1, names: null, values: [], episodeValues: [], episodes: [] };
}

/** Appends one frame's value (a vector for dim > 1 or named features, else a scalar). */
function push(feature: FrameFeature, value: ArrayLike<number> | number | bigint | boolean): void {
  const numbers: number[] = typeof value === 'object' ? Array.from(value, Number) : [Number(value)];
  // float32 columns hold float32 values: statistics of what LeRobot will read.
  const stored = feature.leaf === 'float32' ? numbers.map(Math.fround) : numbers;
  feature.values.push(feature.vector ? stored : feature.leaf === 'float32' ? stored[0] : value);
  feature.episodeValues.push(...stored);
}

/** Closes the episode's statistics of a feature. */
function endEpisode(feature: FrameFeature): FeatureStats {
  const stats = episodeStats(feature.episodeValues, feature.dim);
  feature.episodes.push(stats);
  feature.episodeValues = [];
  return stats;
}

/** How an export names and scales joints: as the imported LeRobot source, the robot's LeRobot driver, or wmrl. */
interface JointLayout {
  stateNames: string[];
  actionNames: string[];
  conversion: UnitConversion;
  /** Not radians with a [0, 1] gripper: the radians go along as wmrl.state. */
  converted: boolean;
  robotType: string;
}

function jointLayout(robot: RobotDescription, origin: LerobotOrigin | null): JointLayout {
  const slots = robotSlots(robot);
  const conversion = origin
    ? unitConversion(robot, origin.units, origin.gripper)
    : unitConversion(robot, robot.lerobot?.units ?? 'radians');
  const names = robot.lerobot?.names ?? slots;
  const { closed, open } = conversion.gripper;
  return {
    stateNames: origin?.stateNames ?? names,
    actionNames: origin?.actionNames ?? names,
    conversion,
    converted: conversion.units !== 'radians' || closed !== 0 || open !== 1,
    robotType: origin?.robotType ?? robot.lerobot?.robotType ?? robot.name,
  };
}

/** Where to re-read a camera at its own size: the source's video segment of an episode, when still there. */
interface SourceVideo {
  file: string;
  fromSeconds: number;
  width: number;
  height: number;
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
  const origin = await readOrigin(options.source);
  if (origin && origin.stride > 1) {
    const notes: string[] = [];
    const given = await giveBackAtSourceRate(options, origin, notes);
    if (given) return given;
    return exportAtRobotRate(options, { wmrlColumns: true }, notes);
  }
  return exportAtRobotRate(options, { wmrlColumns: true });
}

/**
 * A dataset imported from LeRobot at a stride (30 fps onto a 10 Hz robot) is given back at the source's own rate:
 * the source is read again, every frame, as this dataset's episodes (their ids and tasks) into a scratch dataset at
 * the source's fps, which exports as a dataset recorded at its robot's rate does: the recorded targets, the
 * source's names, units and camera size. LeRobot's columns alone: `wmrl.*` would hold actions normalised at the
 * source's rate, which a re-import at the robot's must not take. Null (and a note) when the source is gone or no
 * longer holds the dataset's episodes: then the export is at the robot's rate.
 */
async function giveBackAtSourceRate(
  options: ExportOptions,
  origin: LerobotOrigin,
  notes: string[],
): Promise<ExportReport | null> {
  const store = await EpisodeStore.open(options.source);
  const robot = loadRobot(store.robotRef);
  const ids = new Map(origin.episodes.map((e) => [e.id, e.sourceEpisode]));
  const episodes = new Map<number, { id: string; task: TaskSpec }>();
  for await (const { episode } of store.records()) {
    if (episode.status === 'aborted') continue;
    const index = ids.get(episode.id);
    if (index === undefined) {
      notes.push(`episode ${episode.id} is not ${origin.source}'s: exported at the robot's rate, with the others`);
      return null;
    }
    episodes.set(index, { id: episode.id, task: episode.task });
  }
  if (!existsSync(join(origin.source, 'meta', 'info.json'))) {
    notes.push(`${origin.source} is gone: exported at the robot's rate (${origin.fps / origin.stride} fps)`);
    return null;
  }
  const slots = robotSlots(robot);
  const map: Record<string, string> = Object.fromEntries([
    ...slots.map((slot, i) => [slot, origin.stateNames[i]!]),
    ...origin.cameras.map((c) => [c.camera, c.feature]),
  ]);
  const scratch = await mkdtemp(join(tmpdir(), 'wmrl-give-back-'));
  try {
    const full = join(scratch, 'dataset');
    await importLerobot({
      source: origin.source,
      out: full,
      robot: { ...robot, controlHz: origin.fps },
      map,
      units: origin.units,
      gripperRange: origin.gripper,
      episodes,
    });
    const report = await exportAtRobotRate({ ...options, source: full }, { wmrlColumns: false }, notes);
    notes.push(`given back at ${origin.fps} fps, every frame read again from ${origin.source}`);
    return report;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** Exports `source` to `out` at the rate its episodes were recorded at. */
async function exportAtRobotRate(
  options: ExportOptions,
  mode: ExportMode,
  notes: string[] = [],
): Promise<ExportReport> {
  const store = await EpisodeStore.open(options.source);
  const robot = loadRobot(store.robotRef);
  const slots = robotSlots(robot);
  const origin = await readOrigin(options.source);
  const joints = jointLayout(robot, origin);
  const sourceVideos = await originVideos(origin, notes);
  return writeThenMove(options.out, async (dir) => {
    let layout: Layout | null = null;
    let features: FrameFeature[] = [];
    const encoders = new Map<string, VideoEncoder>();
    const cameraStats = new Map<string, FeatureStats[]>();
    const videoSize = new Map<string, { width: number; height: number }>();
    const taskIndex = new Map<string, number>();
    const episodeRows: Record<string, unknown>[] = [];
    const metas: WmrlEpisodeMeta[] = [];
    let aborted = 0;
    let frames = 0;
    let outcomes = true;
    /** Episodes whose outcome the export's columns cannot say (known where the first had none, or the reverse). */
    let mismatched = 0;
    try {
      for await (const { episode } of store.records()) {
        if (episode.status === 'aborted') {
          aborted++;
          continue;
        }
        if (!layout) {
          layout = layoutOf(robot, episode);
          // A recording that says nothing of success (imported without next.success) exports none either.
          outcomes = !episode.successUnknown;
          features = [
            vectorFeature('observation.state', slots.length, joints.stateNames),
            vectorFeature('action', slots.length, joints.actionNames),
            ...(mode.wmrlColumns
              ? [
                  ...(joints.converted ? [vectorFeature('wmrl.state', slots.length, slots)] : []),
                  vectorFeature('wmrl.velocity', slots.length, slots),
                  ...(layout.stateDim ? [vectorFeature('wmrl.environment_state', layout.stateDim, null)] : []),
                  vectorFeature('wmrl.action', slots.length, slots),
                ]
              : []),
            ...(outcomes ? [scalarFeature('next.reward', 'float32'), scalarFeature('next.success', 'bool')] : []),
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
            const source = sourceVideos?.cameras.get(cam.name);
            const size = source ?? { width: cam.width, height: cam.height };
            videoSize.set(cam.name, size);
            encoders.set(cam.name, new VideoEncoder(file, { size, fps: layout.fps, quality: options.quality }));
            cameraStats.set(cam.name, []);
          }
        } else checkLayout(layout, episode, robot);
        if (outcomes === Boolean(episode.successUnknown)) mismatched++;
        const k = metas.length;
        const fps = layout.fps;
        const byKey = new Map(features.map((f) => [f.key, f]));
        const f = (key: string) => byKey.get(key)!;
        const task = taskIndex.get(episode.task.instruction) ?? taskIndex.size;
        taskIndex.set(episode.task.instruction, task);
        const T = episode.steps;
        const d = slots.length;
        const recorded = origin?.episodes.find((e) => e.id === episode.id && e.kept === T + 1);
        const targets = recorded
          ? recorded.targets.flat()
          : fromWmrl(joints.conversion, targetsFromActions(robot, episode), d, 'position');
        const conv = joints.conversion;
        const hold = new Float32Array(d);
        hold[d - 1] = T > 0 ? episode.actions[T * d - 1]! : -1;
        for (let t = 0; t <= T; t++) {
          const qpos = episode.qpos.subarray(t * d, (t + 1) * d);
          push(f('observation.state'), joints.converted ? fromWmrl(conv, qpos, d, 'position') : qpos);
          push(f('action'), targets.slice(t * d, (t + 1) * d));
          if (mode.wmrlColumns && joints.converted) push(f('wmrl.state'), qpos);
          if (mode.wmrlColumns) push(f('wmrl.velocity'), episode.qvel.subarray(t * d, (t + 1) * d));
          if (mode.wmrlColumns && layout.stateDim) {
            const s = layout.stateDim;
            push(f('wmrl.environment_state'), episode.state.subarray(t * s, (t + 1) * s));
          }
          if (mode.wmrlColumns) push(f('wmrl.action'), t < T ? episode.actions.subarray(t * d, (t + 1) * d) : hold);
          const after = Math.min(t + 1, T);
          if (outcomes) {
            push(f('next.reward'), episode.progress[after]!);
            push(f('next.success'), episode.successes[after] === 1);
          }
          push(f('next.done'), t === T);
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
          const size = videoSize.get(cam.name)!;
          const pixels =
            (await sourceFrames(sourceVideos, cam.name, episode.id, T + 1)) ?? episode.cameras[cam.name]!.frames;
          row[`videos/${key}/chunk_index`] = 0n;
          row[`videos/${key}/file_index`] = 0n;
          row[`videos/${key}/from_timestamp`] = encoder.frames / fps;
          await encoder.write(pixels);
          row[`videos/${key}/to_timestamp`] = encoder.frames / fps;
          const stats = imageStats(pixels, size.width, size.height);
          cameraStats.get(cam.name)!.push(stats);
          for (const [stat, value] of Object.entries(channelShaped(stats))) row[`stats/${key}/${stat}`] = value;
        }
        for (const feature of features) {
          for (const [stat, value] of Object.entries(endEpisode(feature))) row[`stats/${feature.key}/${stat}`] = value;
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
        // LeRobot's get_hf_features_from_features: a fixed-size datasets.List (pyarrow fixed_size_list).
        f.vector ? { feature: hfValue(f.leaf), length: f.dim, _type: 'List' } : hfValue(f.leaf),
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
    for (const f of features) stats[f.key] = aggregateStats(f.episodes);
    for (const [name, s] of cameraStats) stats[`observation.images.${name}`] = channelShaped(aggregateStats(s));
    await writeFile(join(dir, 'meta/stats.json'), `${JSON.stringify(stats, null, 4)}\n`);
    await writeEpisodeMeta(dir, metas);
    await writeEpisodeFamilies(dir, metas);

    const fps = layout.fps;
    const infoFeatures: Record<string, LerobotFeature> = {};
    for (const f of features) {
      infoFeatures[f.key] = { dtype: f.leaf, shape: [f.dim], names: f.names, fps };
    }
    for (const cam of layout.cameras) {
      const size = videoSize.get(cam.name)!;
      infoFeatures[`observation.images.${cam.name}`] = {
        dtype: 'video',
        shape: [size.height, size.width, 3],
        names: ['height', 'width', 'channels'],
        info: encodedVideoInfo({ size, fps, quality: options.quality }),
      };
    }
    const info = {
      codebase_version: 'v3.0',
      robot_type: joints.robotType,
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
    if (!outcomes) notes.push('no next.reward or next.success: the recordings say nothing of success');
    if (mismatched > 0)
      notes.push(
        outcomes
          ? `${mismatched} episodes recorded without success information exported with next.success false`
          : `${mismatched} episodes' recorded outcomes not exported: the first episode had none, so no column does`,
      );
    return {
      out: options.out,
      robot: robot.name,
      episodes: metas.length,
      frames,
      tasks: taskIndex.size,
      aborted,
      cameras: layout.cameras.map((c) => c.name),
      fps,
      notes,
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

interface OriginVideos {
  /** Per camera, the source's frame size. */
  cameras: Map<string, { width: number; height: number }>;
  /** Per wmrl episode id and camera, where its frames lie in the source. */
  segments: Map<string, Map<string, SourceVideo & { stride: number; fps: number }>>;
}

/**
 * The source videos of a dataset imported from LeRobot, when every one is still where the import read
 * it; null (and a note) otherwise, and then the wmrl frames, at the robot camera's size, are exported.
 */
async function originVideos(origin: LerobotOrigin | null, notes: string[]): Promise<OriginVideos | null> {
  const videos = origin?.cameras.filter((c) => c.kind === 'video') ?? [];
  if (!origin || videos.length === 0) return null;
  let src: LerobotSource;
  try {
    src = await LerobotSource.open(origin.source);
  } catch (err) {
    notes.push(`source ${origin.source} unreadable (${(err as Error).message}): frames at the robot camera's size`);
    return null;
  }
  const byIndex = new Map<number, LerobotEpisode>(src.episodes.map((e) => [e.index, e]));
  const segments: OriginVideos['segments'] = new Map();
  for (const ep of origin.episodes) {
    const source = byIndex.get(ep.sourceEpisode);
    const perCamera = new Map<string, SourceVideo & { stride: number; fps: number }>();
    for (const cam of videos) {
      const segment = source?.videos[cam.feature];
      const there = segment
        ? await access(segment.file).then(
            () => true,
            () => false,
          )
        : false;
      if (!segment || !there) {
        notes.push(`source video of episode ${ep.id} (${cam.feature}) missing: frames at the robot camera's size`);
        return null;
      }
      const first = (await src.frames(source!)).rows[0]?.timestamp;
      const fromSeconds = segment.fromSeconds + (typeof first === 'number' ? first : 0);
      perCamera.set(cam.camera, {
        ...segment,
        fromSeconds,
        width: cam.width,
        height: cam.height,
        stride: origin.stride,
        fps: origin.fps,
      });
    }
    segments.set(ep.id, perCamera);
  }
  notes.push(`frames re-encoded from ${origin.source}'s videos at their own size`);
  return { cameras: new Map(videos.map((c) => [c.camera, { width: c.width, height: c.height }])), segments };
}

/** An episode's frames of `camera` from the source videos (every stride-th), or null to use wmrl's. */
async function sourceFrames(
  videos: OriginVideos | null,
  camera: string,
  id: string,
  count: number,
): Promise<Uint8Array | null> {
  const segment = videos?.segments.get(id)?.get(camera);
  if (!segment) return null;
  const { width, height } = segment;
  return decodeVideoFrames(segment.file, {
    fromSeconds: segment.fromSeconds,
    count,
    fps: segment.fps,
    stride: segment.stride,
    size: { width, height },
  });
}
