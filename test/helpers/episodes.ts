/**
 * Synthetic, seeded episodes for tests.
 */
import type { Episode, EpisodeSource, EpisodeStatus, Split } from '../../src/core/types.ts';
import type { TaskFamily } from '../../src/tasks/families.ts';

export interface TestEpisodeOptions {
  /** Seeds every random value; the same options give the same episode. Default 1. */
  seed?: number;
  steps?: number;
  width?: number;
  height?: number;
  /** Camera names (default `['scene']`; `[]` for none). */
  cameras?: string[];
  robot?: string;
  id?: string;
  status?: EpisodeStatus;
  success?: boolean;
  family?: TaskFamily;
  split?: Split;
  source?: EpisodeSource;
  qposDim?: number;
  /** 0 gives an empty `state` array. */
  stateDim?: number;
  actionDim?: number;
}

/** mulberry32: small, fast, seeded. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function makeTestEpisode(opts: TestEpisodeOptions = {}): Episode {
  const seed = opts.seed ?? 1;
  const steps = opts.steps ?? 5;
  const width = opts.width ?? 8;
  const height = opts.height ?? 8;
  const qposDim = opts.qposDim ?? 7;
  const stateDim = opts.stateDim ?? 10;
  const actionDim = opts.actionDim ?? 7;
  const family = opts.family ?? 'reach';
  const n = steps + 1;
  const rand = rng(seed);
  const floats = (len: number, scale = 1) => Float32Array.from({ length: len }, () => (rand() * 2 - 1) * scale);
  const bytes = (len: number) => Uint8Array.from({ length: len }, () => Math.floor(rand() * 256));
  const success = opts.success ?? rand() < 0.5;
  const progress = Float32Array.from({ length: n }, (_, i) => (steps === 0 ? 0 : (i / steps) * (success ? 1 : 0.6)));
  const successes = Uint8Array.from({ length: n }, (_, i) => (success && i === steps ? 1 : 0));
  const cameras: Episode['cameras'] = {};
  for (const name of opts.cameras ?? ['scene'])
    cameras[name] = { width, height, frames: bytes(n * width * height * 3) };
  const split = opts.split ?? 'train';
  return {
    id: opts.id ?? `test-${seed}`,
    robot: opts.robot ?? 'test-arm',
    task: {
      family,
      color: 'red',
      object: 'block',
      ...(family === 'push' ? { zoneColor: 'blue' } : {}),
      template: seed % 3,
      split,
      instruction: `${family} the red block (seed ${seed})`,
    },
    seed,
    source: opts.source ?? 'sim',
    policy: 'expert',
    status: opts.status ?? 'complete',
    success,
    controlHz: 10,
    steps,
    createdAt: new Date(Date.UTC(2025, 0, 1, 0, 0, seed % 60)).toISOString(),
    qposDim,
    stateDim,
    actionDim,
    qpos: floats(n * qposDim, 3),
    qvel: floats(n * qposDim),
    state: floats(n * stateDim),
    actions: floats(steps * actionDim),
    progress,
    successes,
    cameras,
  };
}
