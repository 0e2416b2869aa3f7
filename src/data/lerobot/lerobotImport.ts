/**
 * `wmrl import lerobot`: a LeRobot dataset (v2.1 or v3.0) as wmrl episodes.
 *
 * A LeRobot episode of N frames becomes a wmrl episode of N − 1 steps (wmrl keeps T + 1 observations
 * and T actions; the last frame's action has no observation after it). Joint positions come from
 * `observation.state`, velocities from `observation.velocity` (or finite differences when there is
 * none), actions from the absolute targets in `action` (actionConversion.ts), progress and success
 * from `next.reward` / `next.success`, frames from the camera features named after the robot's
 * cameras (`observation.images.<camera>`), scaled to the robot description's size. A dataset written
 * by `wmrl export lerobot` (it has `meta/wmrl_episodes.jsonl` and `wmrl.action`) imports exactly:
 * the same actions, joint states and episode fields. Everything that does not map is reported.
 */
import { basename } from 'node:path';
import type { RobotDescription } from '../../core/robotDescription.ts';
import type { Episode, TaskSpec } from '../../core/types.ts';
import { EpisodeStore, storeRobot } from '../episodeStore.ts';
import { actionsFromTargets } from './actionConversion.ts';
import { imageColumn, scalarColumn, vectorColumn } from './frameColumns.ts';
import { assignedTask, taskOfInstruction } from './instructionTasks.ts';
import { mapVector, MappingError, robotSlots, type VectorMapping } from './jointMapping.ts';
import type { LerobotFeature } from './lerobotInfo.ts';
import { LerobotSource, type EpisodeFrames, type LerobotEpisode } from './lerobotSource.ts';
import { writeThenMove } from './outputFolder.ts';
import { decodeImages, decodeVideoFrames } from './videoFrames.ts';
import { readEpisodeMeta, type WmrlEpisodeMeta } from './wmrlEpisodeMeta.ts';

export interface ImportOptions {
  /** The LeRobot dataset folder. */
  source: string;
  /** The wmrl dataset folder to create (absent or empty). */
  out: string;
  robot: RobotDescription;
  /** `wmrlName → lerobotName`: a joint (or `gripper`) → a dimension name, a camera → a feature key. */
  map?: Readonly<Record<string, string>>;
  /** `family:colour:object[:zone]` for episodes whose task string is no wmrl instruction. */
  task?: string;
  /** The dataset's arm joints are in degrees (LeRobot's SO-100/Koch robots record degrees). */
  degrees?: boolean;
  /** The dataset's gripper values when fully closed and fully open (default 0 and 1: an opening). */
  gripperRange?: { closed: number; open: number };
  onEpisode?: (index: number, episode: Episode) => void;
}

export interface ImportReport {
  version: string;
  episodes: number;
  steps: number;
  /** Written by `wmrl export lerobot`: restored exactly. */
  exact: boolean;
  /** `wmrl ← lerobot` lines: joints, gripper, cameras. */
  mapped: string[];
  /** Features and dimensions of the dataset that were not imported. */
  unused: string[];
  /** How values were derived or changed, with counts. */
  notes: string[];
}

/** Features every LeRobot dataset has; they carry no data of their own to import. */
const BOOKKEEPING = new Set(['timestamp', 'frame_index', 'episode_index', 'index', 'task_index']);

interface CameraMapping {
  camera: string;
  feature: string;
  kind: 'video' | 'image';
  width: number;
  height: number;
}

/**
 * The (height, width) of an image/video feature: LeRobot stores (h, w, c); some datasets (c, h, w),
 * named `["channel", "height", "width"]` or `["c", "h", "w"]`.
 */
function imageSize(feature: LerobotFeature): { width: number; height: number } {
  const names = Array.isArray(feature.names) ? feature.names : [];
  const [a, b, c] = feature.shape;
  const channelFirst = names[0] === 'c' || names[0]?.startsWith('channel') === true || (a === 3 && c !== 3);
  return channelFirst ? { height: b ?? 0, width: c ?? 0 } : { height: a ?? 0, width: b ?? 0 };
}

function split(
  robot: RobotDescription,
  map: Readonly<Record<string, string>>,
): { joints: Record<string, string>; cameras: Record<string, string> } {
  const slots = robotSlots(robot);
  const cameraNames = robot.cameras.map((c) => c.name);
  const joints: Record<string, string> = {};
  const cameras: Record<string, string> = {};
  for (const [name, target] of Object.entries(map)) {
    if (slots.includes(name)) joints[name] = target;
    else if (cameraNames.includes(name)) cameras[name] = target;
    else {
      throw new MappingError(
        `--map ${name}=${target}: '${name}' is neither a joint nor a camera of robot '${robot.name}' ` +
          `(joints ${slots.join(', ')}; cameras ${cameraNames.join(', ')})`,
      );
    }
  }
  return { joints, cameras };
}

/** Imports `source` into a new wmrl dataset at `out`. */
export async function importLerobot(options: ImportOptions): Promise<ImportReport> {
  const { robot } = options;
  const src = await LerobotSource.open(options.source);
  const sidecar = await readEpisodeMeta(options.source);
  const features = src.info.features;
  const exact = sidecar !== null && features['wmrl.action'] !== undefined;
  const slots = robotSlots(robot);
  const overrides = split(robot, options.map ?? {});
  const notes: string[] = [];
  const unused: string[] = [];
  const used = new Set<string>();

  if (exact) {
    const robots = new Set([...sidecar.values()].map((m) => m.robot));
    if (!robots.has(robot.name) || robots.size > 1) {
      throw new MappingError(
        `${options.source} was exported from robot ${[...robots].join(', ')}; import it with --robot ${[...robots][0]}`,
      );
    }
  }

  const vector = (feature: string, required: boolean): VectorMapping | null => {
    const names = src.names(feature);
    if (!names) {
      if (required)
        throw new MappingError(
          `${options.source}: no '${feature}' feature (it has ${Object.keys(features).join(', ')})`,
        );
      return null;
    }
    used.add(feature);
    const mapping = mapVector(feature, names, slots, overrides.joints);
    if (mapping.unused.length > 0) unused.push(`${feature}: ${mapping.unused.join(', ')}`);
    return mapping;
  };
  const state = vector('observation.state', true)!;
  const actionFeature = exact ? 'wmrl.action' : 'action';
  const action = vector(actionFeature, true)!;
  if (exact) used.add('action'); // the same actions as absolute targets
  let velocity: VectorMapping | null = null;
  try {
    velocity = vector('observation.velocity', false);
  } catch (err) {
    if (!(err instanceof MappingError)) throw err;
    notes.push(`observation.velocity does not map (${err.message}): qvel from finite differences instead`);
  }
  if (!velocity)
    notes.push('qvel: finite differences of observation.state (the dataset has no usable observation.velocity)');
  const envState = exact && features['observation.environment_state'] ? 'observation.environment_state' : null;
  if (envState) used.add(envState);

  const cameras: CameraMapping[] = [];
  for (const cam of robot.cameras) {
    const wanted = overrides.cameras[cam.name];
    const key = wanted ?? `observation.images.${cam.name}`;
    const feature = features[key];
    if (!feature || (feature.dtype !== 'video' && feature.dtype !== 'image')) {
      if (wanted)
        throw new MappingError(`--map ${cam.name}=${wanted}: the dataset has no video or image feature '${wanted}'`);
      continue;
    }
    used.add(key);
    const size = imageSize(feature);
    if (size.width !== cam.width || size.height !== cam.height) {
      notes.push(
        `${key}: ${size.width}×${size.height} frames scaled to camera ${cam.name}'s ${cam.width}×${cam.height}`,
      );
    }
    cameras.push({ camera: cam.name, feature: key, kind: feature.dtype, width: cam.width, height: cam.height });
  }
  if (cameras.length === 0)
    notes.push('no camera feature maps to a robot camera: episodes carry no frames (--map CAMERA=KEY)');
  for (const key of ['next.reward', 'next.success', 'next.done']) if (features[key]) used.add(key);
  for (const [key, f] of Object.entries(features)) {
    if (!used.has(key) && !BOOKKEEPING.has(key)) unused.push(`${key} (${f.dtype} ${JSON.stringify(f.shape)})`);
  }
  if (!features['next.reward']) notes.push('no next.reward: progress stored as 0');
  if (!features['next.success'] && !exact)
    notes.push('no next.success: success unknown, episodes stored unlabelled (label them: wmrl label DIR)');
  if (!exact) notes.push('the last frame of each episode has no next observation: its action is dropped');

  // Tasks first: an instruction that maps nowhere stops the import before anything is written.
  const taskOf = new Map<number, TaskSpec>();
  const unmatched = new Set<string>();
  let assigned = 0;
  for (const ep of src.episodes) {
    const meta = sidecar?.get(ep.index);
    const text = ep.tasks[0] ?? '';
    const spec = meta?.task ?? taskOfInstruction(text);
    if (spec) taskOf.set(ep.index, spec);
    else if (options.task) {
      taskOf.set(ep.index, assignedTask(options.task, text || options.task));
      assigned++;
    } else unmatched.add(text);
  }
  if (unmatched.size > 0) {
    const shown = [...unmatched].slice(0, 5).map((t) => JSON.stringify(t));
    throw new MappingError(
      `${unmatched.size} task string${unmatched.size > 1 ? 's are' : ' is'} no wmrl instruction ` +
        `(${shown.join(', ')}${unmatched.size > 5 ? ', …' : ''}); pass --task family:colour:object to assign one`,
    );
  }
  if (assigned > 0) notes.push(`${assigned} episodes assigned --task ${options.task} (their own task text kept)`);

  const counts = { clipped: 0, outsideLimits: 0, rewardClamped: 0 };
  const mapped = [...state.pairs, ...cameras.map((c) => `${c.camera} ← ${c.feature}`)];
  let steps = 0;
  const convert: EpisodeConverter = {
    src,
    robot,
    options,
    state,
    action,
    velocity,
    envState,
    cameras,
    exact,
    counts,
  };
  await writeThenMove(options.out, async (dir) => {
    const store = await EpisodeStore.create(dir, storeRobot(robot));
    try {
      for (const [n, ep] of src.episodes.entries()) {
        const episode = await toEpisode(convert, ep, taskOf.get(ep.index)!, sidecar?.get(ep.index));
        await store.append(episode);
        steps += episode.steps;
        options.onEpisode?.(n, episode);
      }
    } finally {
      await store.close();
    }
  });
  if (counts.clipped > 0) {
    notes.push(
      `${counts.clipped} arm action values clipped to ±1: the target moved more than the joint's maxStep in a tick`,
    );
  }
  if (counts.outsideLimits > 0) {
    notes.push(`${counts.outsideLimits} joint positions lie outside robot '${robot.name}' limits (kept as recorded)`);
  }
  if (counts.rewardClamped > 0) notes.push(`${counts.rewardClamped} next.reward values clamped into [0, 1]`);
  return { version: src.version, episodes: src.episodes.length, steps, exact, mapped, unused, notes };
}

interface EpisodeConverter {
  src: LerobotSource;
  robot: RobotDescription;
  options: ImportOptions;
  state: VectorMapping;
  action: VectorMapping;
  velocity: VectorMapping | null;
  envState: string | null;
  cameras: CameraMapping[];
  exact: boolean;
  counts: { clipped: number; outsideLimits: number; rewardClamped: number };
}

/** Picks the mapped dimensions of a `rows × names` column and converts them to wmrl's units. */
function pick(
  c: EpisodeConverter,
  frames: EpisodeFrames,
  mapping: VectorMapping,
  rows: number,
  kind: 'position' | 'rate' | 'raw',
): Float32Array {
  const width = c.src.names(mapping.feature)!.length;
  const all = vectorColumn(frames, mapping.feature, width);
  const dim = mapping.indices.length;
  const out = new Float32Array(rows * dim);
  const { closed, open } = c.options.gripperRange ?? { closed: 0, open: 1 };
  const toRad = c.options.degrees && kind !== 'raw' ? Math.PI / 180 : 1;
  for (let t = 0; t < rows; t++) {
    for (let i = 0; i < dim; i++) {
      const v = all[t * width + mapping.indices[i]!]!;
      if (kind === 'raw') out[t * dim + i] = v;
      else if (i === dim - 1)
        out[t * dim + i] = kind === 'position' ? (v - closed) / (open - closed) : v / (open - closed);
      else out[t * dim + i] = v * toRad;
    }
  }
  return out;
}

async function toEpisode(
  c: EpisodeConverter,
  ep: LerobotEpisode,
  task: TaskSpec,
  meta: WmrlEpisodeMeta | undefined,
): Promise<Episode> {
  const frames = await c.src.frames(ep);
  const n = frames.rows.length;
  const T = n - 1;
  const dim = c.state.indices.length;
  const fps = c.src.info.fps;
  const qpos = pick(c, frames, c.state, n, 'position');
  const joints = c.robot.arm.joints;
  for (let t = 0; t < n; t++) {
    joints.forEach((j, i) => {
      const v = qpos[t * dim + i]!;
      if (v < j.lower || v > j.upper) c.counts.outsideLimits++;
    });
  }
  let qvel: Float32Array;
  if (c.velocity) qvel = pick(c, frames, c.velocity, n, 'rate');
  else {
    qvel = new Float32Array(n * dim);
    for (let t = 1; t < n; t++) {
      for (let i = 0; i < dim; i++) qvel[t * dim + i] = (qpos[t * dim + i]! - qpos[(t - 1) * dim + i]!) * fps;
    }
  }
  let actions: Float32Array;
  if (c.exact) actions = pick(c, frames, c.action, T, 'raw');
  else {
    const targets = pick(c, frames, c.action, T, 'position');
    const converted = actionsFromTargets(c.robot, { steps: T, qpos, qposDim: dim, targets });
    actions = converted.actions;
    c.counts.clipped += converted.clipped;
  }
  const state = c.envState ? vectorColumn(frames, c.envState, c.src.names(c.envState)!.length) : new Float32Array(0);
  const progress = new Float32Array(n);
  const successes = new Uint8Array(n);
  progress[0] = meta?.progress0 ?? 0;
  successes[0] = meta?.success0 ? 1 : 0;
  const features = c.src.info.features;
  if (features['next.reward']) {
    const reward = scalarColumn(frames, 'next.reward');
    for (let t = 0; t < T; t++) {
      const r = reward[t]!;
      if (r < 0 || r > 1) c.counts.rewardClamped++;
      progress[t + 1] = Math.min(1, Math.max(0, r));
    }
  }
  if (features['next.success']) {
    const success = scalarColumn(frames, 'next.success');
    for (let t = 0; t < T; t++) successes[t + 1] = success[t]! > 0 ? 1 : 0;
  }
  const cameras: Episode['cameras'] = {};
  for (const cam of c.cameras) {
    const size = { width: cam.width, height: cam.height };
    if (cam.kind === 'video') {
      const segment = ep.videos[cam.feature]!;
      const first = features.timestamp ? scalarColumn(frames, 'timestamp')[0]! : 0;
      const pixels = await decodeVideoFrames(segment.file, {
        fromSeconds: segment.fromSeconds + first,
        count: n,
        fps,
        size,
      });
      cameras[cam.camera] = { ...size, frames: pixels };
    } else {
      const pixels = await decodeImages(imageColumn(frames, cam.feature), size, `${frames.file} ${cam.feature}`);
      cameras[cam.camera] = { ...size, frames: pixels };
    }
  }
  const name = basename(c.options.source);
  return {
    id: meta?.id ?? `lerobot-${name}-${ep.index}`,
    robot: c.robot.name,
    task,
    seed: meta?.seed ?? ep.index,
    source: meta?.source ?? 'robot',
    policy: meta?.policy ?? `lerobot:${name}`,
    status: 'complete',
    success: meta?.success ?? successes.includes(1),
    // Nothing says whether it succeeded: unlabelled until a person labels it (wmrl label).
    ...(!meta && !features['next.success'] ? { successUnknown: true as const } : {}),
    controlHz: fps,
    steps: T,
    createdAt: meta?.createdAt ?? new Date().toISOString(),
    qposDim: dim,
    stateDim: c.envState ? state.length / n : 0,
    actionDim: dim,
    qpos,
    qvel,
    state,
    actions,
    progress,
    successes,
    cameras,
  };
}
