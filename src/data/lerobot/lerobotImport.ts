/**
 * `wmrl import lerobot`: a LeRobot dataset (v2.1 or v3.0) as wmrl episodes.
 *
 * A LeRobot episode at the robot's control rate, N frames, becomes a wmrl episode of N observations and
 * N − 1 steps; the last frame's action (wmrl has no observation after it) is kept with the dataset's
 * other particulars in `lerobot_source.json` (lerobotOrigin.ts), so that an export gives it back. A
 * dataset recorded k times faster than the robot's controlHz keeps every k-th frame; another ratio is
 * refused. Joint positions come from `observation.state` in the dataset's units (declared or detected:
 * jointUnits.ts), velocities from `observation.velocity` (or finite differences when there is none),
 * actions from the absolute targets in `action` (actionConversion.ts), progress, success and done from
 * `next.reward` / `next.success` / `next.done`, frames from the camera features named after the robot's
 * cameras (`observation.images.<camera>`), scaled to the robot description's size. A dataset written
 * by `wmrl export lerobot` (it has `meta/wmrl_episodes.jsonl` and `wmrl.action`) imports exactly:
 * the same actions, joint states and episode fields. Everything that does not map is reported.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { concatFloat32 } from '../../core/arrays.ts';
import type { JointUnits, RobotDescription } from '../../core/robotDescription.ts';
import type { Episode, TaskSpec } from '../../core/types.ts';
import { addFamily, familyDef } from '../../tasks/families.ts';
import type { FamilyDef } from '../../tasks/familyDef.ts';
import { parseFamily, textFamilyYaml } from '../../tasks/familyFile.ts';
import { EpisodeStore, storeRobot } from '../episodeStore.ts';
import { actionsFromTargets } from './actionConversion.ts';
import { imageColumn, scalarColumn, vectorColumn } from './frameColumns.ts';
import { assignedTask, taskOfInstruction } from './instructionTasks.ts';
import { mapVector, MappingError, robotSlots, type VectorMapping } from './jointMapping.ts';
import { checkUnits, guessUnits, outsideLimits, toWmrl, unitConversion, type UnitConversion } from './jointUnits.ts';
import type { LerobotFeature } from './lerobotInfo.ts';
import { writeOrigin, type LerobotOrigin } from './lerobotOrigin.ts';
import { LerobotSource, type EpisodeFrames, type LerobotEpisode } from './lerobotSource.ts';
import { writeThenMove } from './outputFolder.ts';
import { decodeImages, decodeVideoFrames } from './videoFrames.ts';
import { readEpisodeFamilies, readEpisodeMeta, type WmrlEpisodeMeta } from './wmrlEpisodeMeta.ts';

export interface ImportOptions {
  /** The LeRobot dataset folder. */
  source: string;
  /** The wmrl dataset folder to create (absent or empty). */
  out: string;
  robot: RobotDescription;
  /** `wmrlName → lerobotName`: a joint (or `gripper`) → a dimension name, a camera → a feature key. */
  map?: Readonly<Record<string, string>>;
  /**
   * `family:colour:object[:zone]` for episodes whose task string no registered family phrases; without it they
   * go under a family of the dataset's own texts (`family`).
   */
  task?: string;
  /** The name of the family of the dataset's own texts (default: the dataset folder's name). */
  family?: string;
  /** The units of the dataset's joints (jointUnits.ts); detected from the values when absent. */
  units?: JointUnits;
  /** The dataset's gripper values when fully closed and fully open (default 0 and 1 in radians, else 0 and 100). */
  gripperRange?: { closed: number; open: number };
  /**
   * What source episodes are called and filed under, by their episode_index (an export giving back a dataset at
   * its own rate reads its source again as the dataset's episodes); the others are left out.
   */
  episodes?: ReadonlyMap<number, { id: string; task: TaskSpec }>;
  onEpisode?: (index: number, episode: Episode) => void;
}

export interface ImportReport {
  version: string;
  episodes: number;
  steps: number;
  /** The units the joints were read in, and how they were chosen. */
  units: { units: JointUnits; how: string };
  /** Every `stride`-th frame was kept (the dataset's fps over the robot's controlHz). */
  stride: number;
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
  /** The dataset's own frame size and codec. */
  source: { width: number; height: number; codec: string | null };
}

/**
 * Every how-many-th frame of a dataset at `fps` the robot's control rate keeps: a whole ratio, or an
 * error naming both rates and the fix.
 */
export function frameStride(fps: number, robot: RobotDescription): number {
  const ratio = fps / robot.controlHz;
  const stride = Math.round(ratio);
  if (stride >= 1 && Math.abs(ratio - stride) < 1e-6) return stride;
  throw new MappingError(
    `the dataset runs at ${fps} fps, robot '${robot.name}' at controlHz ${robot.controlHz}: ` +
      `${fps}/${robot.controlHz} is not a whole number, so frames cannot be kept at the robot's rate. ` +
      `Record or resample the dataset at a whole multiple of ${robot.controlHz} fps, or import onto a robot ` +
      `description whose controlHz divides ${fps} (a copy of robots/${robot.name} with controlHz changed, via --robot)`,
  );
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
  readEpisodeFamilies(options.source);
  const sidecar = await readEpisodeMeta(options.source);
  const features = src.info.features;
  const exact = sidecar !== null && features['wmrl.action'] !== undefined;
  const slots = robotSlots(robot);
  const aliases = robot.lerobot?.names ?? [];
  const stride = frameStride(src.info.fps, robot);
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
    const mapping = mapVector(feature, names, slots, overrides.joints, aliases);
    if (mapping.unused.length > 0) unused.push(`${feature}: ${mapping.unused.join(', ')}`);
    return mapping;
  };
  // wmrl's exports keep radians, velocities and privileged state under wmrl.* (older ones: observation.*).
  const wmrlOr = (key: string, old: string) => (exact && features[key] ? key : old);
  const stateFeature = wmrlOr('wmrl.state', 'observation.state');
  if (stateFeature !== 'observation.state') used.add('observation.state');
  const state = vector(stateFeature, true)!;
  const actionFeature = exact ? 'wmrl.action' : 'action';
  const action = vector(actionFeature, true)!;
  if (exact) used.add('action'); // the same actions as absolute targets
  const velocityFeature = wmrlOr('wmrl.velocity', 'observation.velocity');
  let velocity: VectorMapping | null = null;
  try {
    velocity = vector(velocityFeature, false);
  } catch (err) {
    if (!(err instanceof MappingError)) throw err;
    notes.push(`${velocityFeature} does not map (${err.message}): qvel from finite differences instead`);
  }
  if (!velocity)
    notes.push('qvel: finite differences of observation.state (the dataset has no usable observation.velocity)');
  const envFeature = wmrlOr('wmrl.environment_state', 'observation.environment_state');
  const envState = exact && features[envFeature] ? envFeature : null;
  if (envState) used.add(envState);
  if (stride > 1) {
    notes.push(
      `${src.info.fps} fps dataset, robot '${robot.name}' at ${robot.controlHz} Hz: 1 frame in ${stride} kept ` +
        '(actions are the targets recorded at the kept frames; the frames between are not imported)',
    );
  }

  // Units: declared, else detected from the positions; positions the units contradict stop the import.
  const rawStates: Float32Array[] = [];
  for (const ep of src.episodes) rawStates.push(pickRaw(await src.frames(ep), src, state));
  const raw = concatFloat32(rawStates);
  const guess = exact ? { units: 'radians' as const, reason: 'written by wmrl' } : guessUnits(robot, raw, slots.length);
  if (!options.units && 'ambiguous' in guess && guess.ambiguous)
    throw new MappingError(
      `cannot tell the joints' units of ${options.source} (${guess.reason}): pass --units range100 for data ` +
        'LeRobot recorded on its calibrated ±100 range (its SO-100/SO-101 robots before use_degrees, Feb 2026), ' +
        '--units degrees for data recorded in degrees (docs/lerobot.md)',
    );
  const units = options.units ?? guess.units;
  const conversion = unitConversion(robot, units, options.gripperRange);
  if (!exact) {
    const qpos = new Float32Array(raw);
    toWmrl(conversion, qpos, slots.length, 'position');
    checkUnits(robot, conversion, qpos, slots.length, raw);
  }
  const how = options.units ? 'declared (--units)' : `detected: ${guess.reason}`;
  const { closed, open } = conversion.gripper;
  notes.push(`joints read as ${units}, ${how}; gripper ${closed} closed … ${open} open`);

  const cameras: CameraMapping[] = [];
  const imageKeys = Object.keys(features).filter((k) => ['video', 'image'].includes(features[k]!.dtype));
  const cameraChoices =
    `the dataset's image and video features: ${imageKeys.join(', ') || 'none'}; ` +
    `robot '${robot.name}''s cameras: ${robot.cameras.map((c) => c.name).join(', ')}`;
  for (const cam of robot.cameras) {
    const wanted = overrides.cameras[cam.name];
    const key = wanted ?? `observation.images.${cam.name}`;
    const feature = features[key];
    if (!feature || (feature.dtype !== 'video' && feature.dtype !== 'image')) {
      if (wanted)
        throw new MappingError(
          `--map ${cam.name}=${wanted}: the dataset has no video or image feature '${wanted}' (${cameraChoices})`,
        );
      continue;
    }
    used.add(key);
    const size = imageSize(feature);
    if (size.width !== cam.width || size.height !== cam.height) {
      notes.push(
        `${key}: ${size.width}×${size.height} frames scaled to camera ${cam.name}'s ${cam.width}×${cam.height}`,
      );
    }
    const codec = feature.info?.['video.codec'];
    cameras.push({
      camera: cam.name,
      feature: key,
      kind: feature.dtype,
      width: cam.width,
      height: cam.height,
      source: { ...size, codec: typeof codec === 'string' ? codec : null },
    });
  }
  if (cameras.length === 0 && imageKeys.length > 0) {
    throw new MappingError(
      `no camera feature is named after a robot camera (observation.images.<camera>): ${cameraChoices}. ` +
        `Name one with --map ${robot.cameras[0]!.name}=${imageKeys[0]}`,
    );
  }
  if (cameras.length === 0) notes.push('the dataset has no camera features: episodes carry no frames');
  for (const key of ['next.reward', 'next.success', 'next.done']) if (features[key]) used.add(key);
  for (const [key, f] of Object.entries(features)) {
    if (!used.has(key) && !BOOKKEEPING.has(key)) unused.push(`${key} (${f.dtype} ${JSON.stringify(f.shape)})`);
  }
  if (!features['next.reward']) notes.push('no next.reward: progress stored as 0');
  if (!features['next.success'] && !exact)
    notes.push('no next.success: success unknown, episodes stored unlabelled (label them: wmrl label DIR)');
  if (features['next.done']) used.add('next.done');

  // Tasks first: any text is a task. One a registered family phrases is that family's; --task assigns the others
  // a family of wmrl's, else they go under a family of the dataset's own texts, declared in the dataset's tasks/.
  const taskOf = new Map<number, TaskSpec>();
  const unmatched = new Map<number, string>();
  let assigned = 0;
  for (const ep of src.episodes) {
    const meta = sidecar?.get(ep.index);
    const given = options.episodes?.get(ep.index);
    if (given) taskOf.set(ep.index, given.task);
    if (options.episodes) continue;
    const text = (ep.tasks[0] ?? '').trim().slice(0, 500);
    // --task maps a text onto a family the simulator can set up, ahead of a family of fixed texts phrasing it.
    const found = taskOfInstruction(text);
    const spec = meta?.task ?? (found && (familyDef(found.family).scene || !options.task) ? found : undefined);
    if (spec) taskOf.set(ep.index, spec);
    else if (options.task) {
      taskOf.set(ep.index, assignedTask(options.task, text || options.task));
      assigned++;
    } else if (!text) {
      throw new MappingError(
        `episode ${ep.index} of ${options.source} carries no task text: name its task with --task family:colour:object`,
      );
    } else unmatched.set(ep.index, text);
  }
  if (assigned > 0) notes.push(`${assigned} episodes assigned --task ${options.task} (their own task text kept)`);
  // A split is the family's declaration; an episode it files under test is said so, never cloned in silence.
  const held = [...taskOf.values()].filter((t) => t.split === 'test');
  if (held.length > 0) {
    const families = [...new Set(held.map((t) => familyDef(t.family).file))].join(', ');
    notes.push(
      `${held.length} episodes fall in the test split as ${families} declares it (a held-out colour or phrasing): ` +
        'evaluation data, never cloned',
    );
  }
  const ownTexts = ownTextFamily(options, src.episodes, unmatched, src.info.fps);
  if (ownTexts) {
    for (const [index, text] of unmatched)
      taskOf.set(index, {
        family: ownTexts.def.name,
        template: ownTexts.def.templates.indexOf(text),
        split: 'train',
        instruction: text,
      });
    notes.push(
      `${unmatched.size} episodes under task family '${ownTexts.def.name}', the dataset's own ` +
        `${ownTexts.def.templates.length} text${ownTexts.def.templates.length > 1 ? 's' : ''}, ` +
        `${ownTexts.def.seconds} s long (its longest episode), declared in tasks/${ownTexts.def.name}.yaml; ` +
        'every text is in the train split (to hold some out, declare the family yourself and import with ' +
        '--task-file FILE)',
    );
  }

  const counts = { clipped: 0, outsideLimits: 0, rewardClamped: 0, earlyDone: 0, noDone: 0, tail: 0 };
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
    conversion,
    stride,
  };
  const origin: LerobotOrigin = {
    source: resolve(options.source),
    codebaseVersion: src.version,
    robotType: src.info.robot_type ?? null,
    fps: src.info.fps,
    stride,
    units,
    gripper: conversion.gripper,
    stateNames: state.indices.map((i) => src.names(state.feature)![i]!),
    actionNames: action.indices.map((i) => src.names(action.feature)![i]!),
    cameras: cameras.map((c) => ({ camera: c.camera, feature: c.feature, kind: c.kind, ...c.source })),
    episodes: [],
  };
  await writeThenMove(options.out, async (dir) => {
    const store = await EpisodeStore.create(dir, storeRobot(robot));
    if (ownTexts) {
      await mkdir(join(dir, 'tasks'), { recursive: true });
      await writeFile(join(dir, 'tasks', `${ownTexts.def.name}.yaml`), ownTexts.yaml);
    }
    try {
      for (const [n, ep] of src.episodes.entries()) {
        if (options.episodes && !options.episodes.has(ep.index)) continue;
        const { episode, targets } = await toEpisode(convert, ep, taskOf.get(ep.index)!, sidecar?.get(ep.index));
        await store.append(episode);
        const kept = episode.steps + 1;
        origin.episodes.push({ id: episode.id, sourceEpisode: ep.index, length: ep.length, kept, targets });
        steps += episode.steps;
        options.onEpisode?.(n, episode);
      }
    } finally {
      await store.close();
    }
    if (!exact) await writeOrigin(dir, origin);
  });
  if (!exact)
    notes.push("the last frame's action and the dataset's names, units and sizes kept in lerobot_source.json");
  if (counts.tail > 0) {
    notes.push(`${counts.tail} frames at episode ends past the last whole ${stride}-frame step not imported`);
  }
  if (counts.noDone > 0) notes.push(`${counts.noDone} episodes have no next.done at their last frame`);
  if (counts.earlyDone > 0) {
    notes.push(`${counts.earlyDone} episodes have next.done before their last frame (all frames kept)`);
  }
  if (counts.clipped > 0) {
    notes.push(
      `${counts.clipped} arm action values clipped to ±1: the target moved more than the joint's maxStep in a tick`,
    );
  }
  if (counts.outsideLimits > 0) {
    notes.push(`${counts.outsideLimits} joint positions lie outside robot '${robot.name}' limits (kept as recorded)`);
  }
  if (counts.rewardClamped > 0) notes.push(`${counts.rewardClamped} next.reward values clamped into [0, 1]`);
  const report = { version: src.version, episodes: src.episodes.length, steps, exact, mapped, unused, notes };
  return { ...report, units: { units, how }, stride };
}

/** The mapped dimensions of a vector feature, every frame, in the dataset's units. */
function pickRaw(frames: EpisodeFrames, src: LerobotSource, mapping: VectorMapping): Float32Array {
  const width = src.names(mapping.feature)!.length;
  const all = vectorColumn(frames, mapping.feature, width);
  const dim = mapping.indices.length;
  const out = new Float32Array(frames.rows.length * dim);
  for (let t = 0; t < frames.rows.length; t++) {
    for (let i = 0; i < dim; i++) out[t * dim + i] = all[t * width + mapping.indices[i]!]!;
  }
  return out;
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
  counts: {
    clipped: number;
    outsideLimits: number;
    rewardClamped: number;
    earlyDone: number;
    noDone: number;
    tail: number;
  };
  conversion: UnitConversion;
  stride: number;
}

/** The mapped dimensions of the kept frames (`keep`), converted to wmrl's units unless `raw`. */
function pick(
  c: EpisodeConverter,
  frames: EpisodeFrames,
  mapping: VectorMapping,
  keep: readonly number[],
  kind: 'position' | 'rate' | 'raw',
): Float32Array {
  const all = pickRaw(frames, c.src, mapping);
  const dim = mapping.indices.length;
  const out = new Float32Array(keep.length * dim);
  keep.forEach((f, t) => out.set(all.subarray(f * dim, (f + 1) * dim), t * dim));
  if (kind !== 'raw' && !c.exact) toWmrl(c.conversion, out, dim, kind);
  return out;
}

async function toEpisode(
  c: EpisodeConverter,
  ep: LerobotEpisode,
  task: TaskSpec,
  meta: WmrlEpisodeMeta | undefined,
): Promise<{ episode: Episode; targets: number[][] }> {
  const frames = await c.src.frames(ep);
  const n = frames.rows.length;
  const s = c.stride;
  // Frames 0, s, 2s, …: step t runs from kept frame t to t + 1; frames past the last whole step are left.
  const keep = Array.from({ length: Math.floor((n - 1) / s) + 1 }, (_, k) => k * s);
  c.counts.tail += n - 1 - keep.at(-1)!;
  const K = keep.length;
  const T = K - 1;
  const dim = c.state.indices.length;
  const fps = c.src.info.fps;
  const qpos = pick(c, frames, c.state, keep, 'position');
  c.counts.outsideLimits += outsideLimits(c.robot, qpos, dim);
  let qvel: Float32Array;
  if (c.velocity) qvel = pick(c, frames, c.velocity, keep, 'rate');
  else {
    qvel = new Float32Array(K * dim);
    for (let t = 1; t < K; t++) {
      for (let i = 0; i < dim; i++) qvel[t * dim + i] = ((qpos[t * dim + i]! - qpos[(t - 1) * dim + i]!) * fps) / s;
    }
  }
  const recorded = pick(c, frames, c.action, keep, 'raw');
  const targets = Array.from({ length: K }, (_, t) => Array.from(recorded.subarray(t * dim, (t + 1) * dim)));
  let actions: Float32Array;
  if (c.exact) actions = recorded.subarray(0, T * dim);
  else {
    const wmrlTargets = pick(c, frames, c.action, keep.slice(0, T), 'position');
    const converted = actionsFromTargets(c.robot, { steps: T, qpos, qposDim: dim, targets: wmrlTargets });
    actions = converted.actions;
    c.counts.clipped += converted.clipped;
  }
  const envWidth = c.envState ? c.src.names(c.envState)!.length : 0;
  const envAll = c.envState ? vectorColumn(frames, c.envState, envWidth) : new Float32Array(0);
  const state = new Float32Array(K * envWidth);
  keep.forEach((f, t) => state.set(envAll.subarray(f * envWidth, (f + 1) * envWidth), t * envWidth));
  const progress = new Float32Array(K);
  const successes = new Uint8Array(K);
  progress[0] = meta?.progress0 ?? 0;
  successes[0] = meta?.success0 ? 1 : 0;
  const features = c.src.info.features;
  // next.* of step t: the value after its last source frame, (t + 1)·s − 1.
  if (features['next.reward']) {
    const reward = scalarColumn(frames, 'next.reward');
    for (let t = 0; t < T; t++) {
      const r = reward[(t + 1) * s - 1]!;
      if (r < 0 || r > 1) c.counts.rewardClamped++;
      progress[t + 1] = Math.min(1, Math.max(0, r));
    }
  }
  if (features['next.success']) {
    const success = scalarColumn(frames, 'next.success');
    for (let t = 0; t < T; t++) successes[t + 1] = success[(t + 1) * s - 1]! > 0 ? 1 : 0;
  }
  if (features['next.done']) {
    const done = scalarColumn(frames, 'next.done');
    if (!(done[n - 1]! > 0)) c.counts.noDone++;
    if (done.subarray(0, n - 1).some((d) => d > 0)) c.counts.earlyDone++;
  }
  const cameras: Episode['cameras'] = {};
  for (const cam of c.cameras) {
    const size = { width: cam.width, height: cam.height };
    let pixels: Uint8Array;
    if (cam.kind === 'video') {
      const segment = ep.videos[cam.feature]!;
      const first = features.timestamp ? scalarColumn(frames, 'timestamp')[0]! : 0;
      pixels = await decodeVideoFrames(segment.file, {
        fromSeconds: segment.fromSeconds + first,
        count: n,
        fps,
        size,
      });
    } else {
      pixels = await decodeImages(imageColumn(frames, cam.feature), size, `${frames.file} ${cam.feature}`);
    }
    const frameBytes = cam.width * cam.height * 3;
    const kept = new Uint8Array(K * frameBytes);
    keep.forEach((f, t) => kept.set(pixels.subarray(f * frameBytes, (f + 1) * frameBytes), t * frameBytes));
    cameras[cam.camera] = { ...size, frames: kept };
  }
  const name = basename(c.options.source);
  const episode: Episode = {
    id: c.options.episodes?.get(ep.index)?.id ?? meta?.id ?? `lerobot-${name}-${ep.index}`,
    robot: c.robot.name,
    task,
    seed: meta?.seed ?? ep.index,
    source: meta?.source ?? 'robot',
    policy: meta?.policy ?? `lerobot:${name}`,
    status: 'complete',
    success: meta?.success ?? successes.includes(1),
    // Nothing says whether it succeeded: unlabelled until a person labels it (wmrl label).
    ...((meta ? meta.successUnknown : !features['next.success']) ? { successUnknown: true as const } : {}),
    controlHz: fps / s,
    steps: T,
    createdAt: meta?.createdAt ?? new Date().toISOString(),
    qposDim: dim,
    stateDim: envWidth,
    actionDim: dim,
    qpos,
    qvel,
    state,
    actions,
    progress,
    successes,
    cameras,
  };
  return { episode, targets };
}

/**
 * The family of the dataset's own texts that no registered family phrases (registered here; its file is written
 * into the new dataset's tasks/), or undefined when every episode's text found a family.
 */
function ownTextFamily(
  options: ImportOptions,
  episodes: readonly LerobotEpisode[],
  unmatched: ReadonlyMap<number, string>,
  fps: number,
): { def: FamilyDef; yaml: string } | undefined {
  if (unmatched.size === 0) return undefined;
  const folder = basename(resolve(options.source));
  const name =
    options.family ??
    (folder
      .toLowerCase()
      .replace(/[^a-z0-9_-]+/g, '-')
      .replace(/^[^a-z]+/, '') ||
      'recorded');
  if (!/^[a-z][a-z0-9_-]*$/.test(name))
    throw new MappingError(`--family ${name}: a family name is lower-case letters, digits, _ and -`);
  const texts = [...new Set(unmatched.values())];
  const longest = Math.max(...episodes.filter((e) => unmatched.has(e.index)).map((e) => e.length));
  const seconds = Math.max(1, Math.ceil(longest / fps));
  const yaml = textFamilyYaml(texts, seconds, `The task texts of the LeRobot dataset ${folder}, as recorded.`);
  addFamily(parseFamily(yaml, join(resolve(options.out), 'tasks', `${name}.yaml`)));
  return { def: familyDef(name), yaml };
}
