/**
 * Small LeRobot datasets written by hand in the layouts LeRobot itself writes (not through wmrl's
 * exporter), with mp4s made by the shipped ffmpeg: v3.0 as `LeRobotDataset.save_episode` leaves it
 * (AV1, LeRobot's default codec, episodes packed into one data file and one video per camera) and
 * v2.1 as the v2.1 format kept it (per-episode parquet and h264 mp4, jsonl metadata).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { runFfmpeg } from '../../src/data/lerobot/ffmpegBinary.ts';
import { writeParquet, type ParquetColumn } from '../../src/data/lerobot/parquetTable.ts';

export interface FixtureEpisode {
  task: string;
  /** frames × names.length, row-major */
  state: number[][];
  action: number[][];
  reward: number[];
  success: boolean[];
  /** frames × height × width × 3 */
  pixels: Uint8Array;
}

export interface FixtureOptions {
  fps: number;
  names: string[];
  /** v2.1 datasets of LeRobot's ports name dims as {motors: [...]}. */
  namesAsMotors?: boolean;
  camera: string;
  width: number;
  height: number;
  episodes: FixtureEpisode[];
  /** An extra per-frame feature wmrl has no place for. */
  effort?: boolean;
  /** info.json's robot_type (default fixture_arm). */
  robotType?: string;
  /** Leave out next.reward and next.success (LeRobot's recorder writes neither). */
  noRewards?: boolean;
}

/** A synthetic scene: a coloured square moving over a gradient, different per frame. */
export function syntheticFrames(frames: number, width: number, height: number, seed: number): Uint8Array {
  const out = new Uint8Array(frames * width * height * 3);
  for (let f = 0; f < frames; f++) {
    const cx = (seed * 7 + f * 3) % (width - 16);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const p = ((f * height + y) * width + x) * 3;
        const inside = x >= cx && x < cx + 16 && y >= 20 && y < 36;
        out[p] = inside ? 220 : (x * 3) & 255;
        out[p + 1] = inside ? 40 : (y * 3) & 255;
        out[p + 2] = inside ? 30 : 90;
      }
    }
  }
  return out;
}

async function encode(file: string, pixels: Uint8Array, o: FixtureOptions, codec: 'av1' | 'h264'): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  // LeRobot's encode_video_frames: libsvtav1 (no SVT-AV1 in the shipped build: libaom), yuv420p, g=2.
  const codecArgs =
    codec === 'av1'
      ? ['-c:v', 'libaom-av1', '-strict', 'experimental', '-cpu-used', '8', '-crf', '30', '-b:v', '0']
      : ['-c:v', 'libx264', '-crf', '23'];
  await runFfmpeg(
    [
      ...['-f', 'rawvideo', '-pix_fmt', 'rgb24', '-s', `${o.width}x${o.height}`, '-r', String(o.fps), '-i', 'pipe:0'],
      ...codecArgs,
      ...['-pix_fmt', 'yuv420p', '-g', '2', '-threads', '1', '-y', file],
    ],
    { input: [pixels], what: `fixture ${file}` },
  );
}

const vectorHf = (length: number) => ({ feature: { dtype: 'float32', _type: 'Value' }, length, _type: 'Sequence' });
const valueHf = (dtype: string) => ({ dtype, _type: 'Value' });

function features(o: FixtureOptions, videoInfo: Record<string, unknown>, withFps: boolean) {
  const names = o.namesAsMotors ? { motors: o.names } : o.names;
  const fps = withFps ? { fps: o.fps } : {};
  const scalar = (dtype: string) => ({ dtype, shape: [1], names: null, ...fps });
  return {
    action: { dtype: 'float32', shape: [o.names.length], names, ...fps },
    'observation.state': { dtype: 'float32', shape: [o.names.length], names, ...fps },
    ...(o.effort ? { 'observation.effort': { dtype: 'float32', shape: [o.names.length], names, ...fps } } : {}),
    [`observation.images.${o.camera}`]: {
      dtype: 'video',
      shape: [o.height, o.width, 3],
      names: ['height', 'width', 'channels'],
      info: videoInfo,
    },
    ...(o.noRewards ? {} : { 'next.reward': scalar('float32'), 'next.success': scalar('bool') }),
    timestamp: scalar('float32'),
    frame_index: scalar('int64'),
    episode_index: scalar('int64'),
    index: scalar('int64'),
    task_index: scalar('int64'),
  };
}

/** The per-frame parquet columns of some episodes, starting at global row `first`. */
function dataColumns(
  o: FixtureOptions,
  episodes: { ep: FixtureEpisode; index: number }[],
  first: number,
  taskOf: (t: string) => number,
) {
  const cols: Record<string, unknown[]> = {};
  const add = (k: string, v: unknown) => {
    cols[k] ??= [];
    cols[k].push(v);
  };
  let row = first;
  for (const { ep, index } of episodes) {
    ep.state.forEach((s, t) => {
      add('action', ep.action[t]);
      add('observation.state', s);
      if (o.effort)
        add(
          'observation.effort',
          s.map(() => 0.5),
        );
      if (!o.noRewards) {
        add('next.reward', ep.reward[t]);
        add('next.success', ep.success[t]);
      }
      add('timestamp', Math.fround(t / o.fps));
      add('frame_index', BigInt(t));
      add('episode_index', BigInt(index));
      add('index', BigInt(row++));
      add('task_index', BigInt(taskOf(ep.task)));
    });
  }
  const leaf = (k: string): ParquetColumn['leaf'] =>
    k === 'next.success'
      ? 'bool'
      : ['frame_index', 'episode_index', 'index', 'task_index'].includes(k)
        ? 'int64'
        : 'float32';
  const columns = Object.entries(cols).map(
    ([name, data]): ParquetColumn => ({ name, leaf: leaf(name), listDepth: Array.isArray(data[0]) ? 1 : 0, data }),
  );
  const hf = Object.fromEntries(
    columns.map((c) => [c.name, c.listDepth ? vectorHf(o.names.length) : valueHf(c.leaf === 'bool' ? 'bool' : c.leaf)]),
  );
  return { columns, kv: { huggingface: JSON.stringify({ info: { features: hf } }) } };
}

function tasksOf(o: FixtureOptions): string[] {
  return [...new Set(o.episodes.map((e) => e.task))];
}

/** Writes a v3.0 dataset to `dir`. */
export async function writeV3Fixture(dir: string, o: FixtureOptions): Promise<void> {
  const tasks = tasksOf(o);
  const key = `observation.images.${o.camera}`;
  const videoInfo = {
    'video.height': o.height,
    'video.width': o.width,
    'video.codec': 'av1',
    'video.pix_fmt': 'yuv420p',
    'video.is_depth_map': false,
    'video.fps': o.fps,
    'video.channels': 3,
    has_audio: false,
  };
  const total = o.episodes.reduce((n, e) => n + e.state.length, 0);
  await mkdir(join(dir, 'meta/episodes/chunk-000'), { recursive: true });
  await mkdir(join(dir, 'data/chunk-000'), { recursive: true });
  await writeFile(
    join(dir, 'meta/info.json'),
    JSON.stringify(
      {
        codebase_version: 'v3.0',
        robot_type: o.robotType ?? 'fixture_arm',
        total_episodes: o.episodes.length,
        total_frames: total,
        total_tasks: tasks.length,
        chunks_size: 1000,
        data_files_size_in_mb: 100,
        video_files_size_in_mb: 500,
        fps: o.fps,
        splits: { train: `0:${o.episodes.length}` },
        data_path: 'data/chunk-{chunk_index:03d}/file-{file_index:03d}.parquet',
        video_path: 'videos/{video_key}/chunk-{chunk_index:03d}/file-{file_index:03d}.mp4',
        features: features(o, videoInfo, true),
      },
      null,
      4,
    ),
  );
  // tasks.parquet: pandas frame indexed by the task strings (index named 'task').
  const pandas = {
    index_columns: ['task'],
    column_indexes: [{ name: null, field_name: null, pandas_type: 'unicode', numpy_type: 'object', metadata: null }],
    columns: [
      { name: 'task_index', field_name: 'task_index', pandas_type: 'int64', numpy_type: 'int64', metadata: null },
      { name: 'task', field_name: 'task', pandas_type: 'unicode', numpy_type: 'object', metadata: null },
    ],
  };
  await writeParquet(
    join(dir, 'meta/tasks.parquet'),
    [
      { name: 'task_index', leaf: 'int64', listDepth: 0, data: tasks.map((_, i) => BigInt(i)) },
      { name: 'task', leaf: 'string', listDepth: 0, data: tasks },
    ],
    { pandas: JSON.stringify(pandas) },
  );
  const { columns, kv } = dataColumns(
    o,
    o.episodes.map((ep, index) => ({ ep, index })),
    0,
    (t) => tasks.indexOf(t),
  );
  await writeParquet(join(dir, 'data/chunk-000/file-000.parquet'), columns, kv);
  const pixels = Buffer.concat(o.episodes.map((e) => e.pixels));
  await encode(join(dir, `videos/${key}/chunk-000/file-000.mp4`), pixels, o, 'av1');
  // meta/episodes: one row per episode, with its row range, video span and stats/ columns.
  let from = 0;
  const rows = o.episodes.map((e, index) => {
    const n = e.state.length;
    const row = {
      episode_index: BigInt(index),
      tasks: [e.task],
      length: BigInt(n),
      'data/chunk_index': 0n,
      'data/file_index': 0n,
      dataset_from_index: BigInt(from),
      dataset_to_index: BigInt(from + n),
      [`videos/${key}/chunk_index`]: 0n,
      [`videos/${key}/file_index`]: 0n,
      [`videos/${key}/from_timestamp`]: from / o.fps,
      [`videos/${key}/to_timestamp`]: (from + n) / o.fps,
      'stats/observation.state/min': e.state[0]!.map((_, i) => Math.min(...e.state.map((s) => s[i]!))),
      'stats/observation.state/count': [BigInt(n)],
      'meta/episodes/chunk_index': 0n,
      'meta/episodes/file_index': 0n,
    };
    from += n;
    return row;
  });
  const names = Object.keys(rows[0]!);
  await writeParquet(
    join(dir, 'meta/episodes/chunk-000/file-000.parquet'),
    names.map((name): ParquetColumn => {
      const data = rows.map((r) => (r as Record<string, unknown>)[name]);
      if (name === 'tasks') return { name, leaf: 'string', listDepth: 1, data };
      if (name.endsWith('/count')) return { name, leaf: 'int64', listDepth: 1, data };
      if (name.startsWith('stats/')) return { name, leaf: 'float64', listDepth: 1, data };
      return { name, leaf: typeof data[0] === 'bigint' ? 'int64' : 'float64', listDepth: 0, data };
    }),
  );
}

/** Writes a v2.1 dataset to `dir`. */
export async function writeV21Fixture(dir: string, o: FixtureOptions): Promise<void> {
  const tasks = tasksOf(o);
  const key = `observation.images.${o.camera}`;
  const videoInfo = {
    'video.fps': o.fps,
    'video.height': o.height,
    'video.width': o.width,
    'video.channels': 3,
    'video.codec': 'h264',
    'video.pix_fmt': 'yuv420p',
    'video.is_depth_map': false,
    has_audio: false,
  };
  await mkdir(join(dir, 'meta'), { recursive: true });
  await writeFile(
    join(dir, 'meta/info.json'),
    JSON.stringify({
      codebase_version: 'v2.1',
      robot_type: 'aloha',
      total_episodes: o.episodes.length,
      total_frames: o.episodes.reduce((n, e) => n + e.state.length, 0),
      total_tasks: tasks.length,
      total_videos: o.episodes.length,
      total_chunks: 1,
      chunks_size: 1000,
      fps: o.fps,
      splits: { train: `0:${o.episodes.length}` },
      data_path: 'data/chunk-{episode_chunk:03d}/episode_{episode_index:06d}.parquet',
      video_path: 'videos/chunk-{episode_chunk:03d}/{video_key}/episode_{episode_index:06d}.mp4',
      features: features(o, videoInfo, false),
    }),
  );
  await writeFile(
    join(dir, 'meta/tasks.jsonl'),
    tasks.map((task, i) => `${JSON.stringify({ task_index: i, task })}\n`).join(''),
  );
  await writeFile(
    join(dir, 'meta/episodes.jsonl'),
    o.episodes
      .map((e, i) => `${JSON.stringify({ episode_index: i, tasks: [e.task], length: e.state.length })}\n`)
      .join(''),
  );
  let first = 0;
  for (const [index, ep] of o.episodes.entries()) {
    const file = join(dir, `data/chunk-000/episode_${String(index).padStart(6, '0')}.parquet`);
    await mkdir(dirname(file), { recursive: true });
    const { columns, kv } = dataColumns(o, [{ ep, index }], first, (t) => tasks.indexOf(t));
    await writeParquet(file, columns, kv);
    await encode(
      join(dir, `videos/chunk-000/${key}/episode_${String(index).padStart(6, '0')}.mp4`),
      ep.pixels,
      o,
      'h264',
    );
    first += ep.state.length;
  }
}
