/**
 * The whole state of a `wmrl train` run, saved atomically after every step so `--resume`
 * continues exactly where a killed run stopped: policy, optimizer moments, world model,
 * calibration map and anchor-weight state, counters, and which anchor episodes count.
 * Layout: <run>/checkpoint/{policy,optimizer,worldmodel,state.json}. A save is built in
 * checkpoint.next/ and swapped in by renames; a crash at any point leaves one whole checkpoint.
 */
import * as tf from '@tensorflow/tfjs';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile, open } from 'node:fs/promises';
import { join } from 'node:path';
import { loadCheckpoint, saveCheckpoint } from '../../core/checkpoint.ts';
import { syncDir } from '../../core/durableFs.ts';
import { loadPolicy, savePolicy } from '../../policy/policyFiles.ts';
import type { VlaPolicy } from '../../policy/vlaPolicy.ts';
import { loadWorldModel, saveWorldModel } from '../../worldmodel/worldModelFiles.ts';
import type { WorldModel } from '../../worldmodel/worldModel.ts';
import type { AnchorWeightState } from '../corrections/denoisingWeights.ts';
import type { IsotonicState } from '../corrections/isotonicCalibrator.ts';
import type { StoredPpiWindow } from '../estimates/ppiWindow.ts';
import type { LearningState, TrainingProgress } from '../step/trainer.ts';

/** state.json: a run's counters and calibration state, as a checkpoint stores them. */
export interface TrainerState extends TrainingProgress {
  calibrator: IsotonicState;
  anchorWeight: AnchorWeightState;
  /** The PPI window's anchor groups (absent in checkpoints written before it existed). */
  ppiWindow?: StoredPpiWindow;
}

const OPTIMIZER_FORMAT = 'wmrl-optimizer';

export function checkpointDir(runDir: string): string {
  return join(runDir, 'checkpoint');
}

/** The learning state as state.json holds it (counters, calibration map, anchor weight, PPI window). */
export function trainerState(learning: LearningState): TrainerState {
  const { progress } = learning;
  return {
    ...progressOf(progress),
    calibrator: learning.calibrator.toJSON(),
    anchorWeight: learning.anchorWeight.toJSON(),
    ppiWindow: learning.ppiWindow.toJSON(),
  };
}

/**
 * The progress counters alone, from the trainer's progress or a stored state: the one list of them that
 * saving and resuming share, so a new counter is added here once.
 */
export function progressOf(p: TrainingProgress): TrainingProgress {
  return {
    step: p.step,
    robotSeconds: p.robotSeconds,
    computeSeconds: p.computeSeconds,
    realEpisodes: p.realEpisodes,
    anchorEpisodeIds: p.anchorEpisodeIds,
  };
}

/** Save the whole learning state (policy, optimizer moments, world model, state.json). */
export async function saveTrainCheckpoint(runDir: string, parts: LearningState): Promise<void> {
  const final = checkpointDir(runDir);
  const next = `${final}.next`;
  const old = `${final}.old`;
  await rm(next, { recursive: true, force: true });
  await mkdir(next, { recursive: true });
  await savePolicy(parts.policy, join(next, 'policy'));
  if (parts.worldModel) await saveWorldModel(parts.worldModel, join(next, 'worldmodel'));
  const weights = await parts.optimizer.getWeights();
  // getWeights makes the iteration count a new scalar each call (the moments are the optimizer's own variables).
  const made = weights.map((w) => w.tensor).filter((t) => !(t instanceof tf.Variable));
  try {
    await saveCheckpoint(join(next, 'optimizer'), {
      format: OPTIMIZER_FORMAT,
      formatVersion: 1,
      kind: 'adam',
      config: { count: weights.length },
      extra: {},
      // Moments follow the variable order of every update (tfjs matches them by position).
      tensors: {
        ...Object.fromEntries(weights.map((w, i) => [String(i).padStart(4, '0'), w.tensor])),
        ...adamPowers(parts.optimizer),
      },
    });
  } finally {
    tf.dispose(made);
  }
  const fh = await open(join(next, 'state.json'), 'w');
  try {
    await fh.writeFile(JSON.stringify(trainerState(parts)) + '\n');
    await fh.sync();
  } finally {
    await fh.close();
  }
  await syncDir(next);
  await rm(old, { recursive: true, force: true });
  if (existsSync(final)) await rename(final, old);
  await rename(next, final);
  await syncDir(runDir);
  await rm(old, { recursive: true, force: true });
}

/**
 * tfjs's Adam keeps β₁ᵗ and β₂ᵗ as running products, but setWeights recomputes them with pow():
 * float32 rounding then differs in the last digits. Saving them makes a resume bit-exact.
 */
function adamPowers(optimizer: tf.Optimizer): Record<string, tf.Variable> {
  const o = optimizer as unknown as { accBeta1?: tf.Variable; accBeta2?: tf.Variable };
  return o.accBeta1 && o.accBeta2 ? { accBeta1: o.accBeta1, accBeta2: o.accBeta2 } : {};
}

/** True when the run folder holds a checkpoint (or one interrupted mid-swap). */
export function hasTrainCheckpoint(runDir: string): boolean {
  const final = checkpointDir(runDir);
  return existsSync(join(final, 'state.json')) || existsSync(join(`${final}.old`, 'state.json'));
}

export async function loadTrainCheckpoint(
  runDir: string,
  optimizer: tf.Optimizer,
): Promise<{ state: TrainerState; policy: VlaPolicy; worldModel?: WorldModel }> {
  const final = checkpointDir(runDir);
  // A crash between the two renames of a save leaves only checkpoint.old: it is whole.
  if (!existsSync(join(final, 'state.json')) && existsSync(join(`${final}.old`, 'state.json'))) {
    await rm(final, { recursive: true, force: true });
    await rename(`${final}.old`, final);
  }
  await rm(`${final}.next`, { recursive: true, force: true });
  const state = JSON.parse(await readFile(join(final, 'state.json'), 'utf8')) as TrainerState;
  const policy = await loadPolicy(join(final, 'policy'));
  const worldModel = existsSync(join(final, 'worldmodel'))
    ? await loadWorldModel(join(final, 'worldmodel'))
    : undefined;
  const { manifest, tensors } = await loadCheckpoint(join(final, 'optimizer'), {
    format: OPTIMIZER_FORMAT,
    formatVersion: 1,
  });
  const names = Object.keys(tensors)
    .filter((n) => /^\d+$/.test(n))
    .sort();
  if (names.length !== (manifest.config as { count: number }).count)
    throw new Error(
      `optimizer checkpoint in ${final} holds ${names.length} ` +
        `of ${(manifest.config as { count: number }).count} tensors`,
    );
  if (names.length > 0) await optimizer.setWeights(names.map((name) => ({ name, tensor: tensors[name]! })));
  const powers = adamPowers(optimizer);
  for (const [name, v] of Object.entries(powers)) if (tensors[name]) v.assign(tensors[name]);
  tf.dispose(Object.values(tensors));
  return { state, policy, ...(worldModel ? { worldModel } : {}) };
}

/** Keep only the metrics records of completed steps (a killed run may have logged part of the next). */
export async function truncateMetrics(file: string, lastStep: number): Promise<void> {
  if (!existsSync(file)) return;
  const lines = (await readFile(file, 'utf8')).split('\n').filter((l) => l.trim());
  const kept = lines.filter((l) => {
    try {
      const r = JSON.parse(l) as { step?: number };
      return r.step === undefined || r.step <= lastStep;
    } catch {
      return false;
    }
  });
  await writeFile(file, kept.map((l) => l + '\n').join(''));
}
