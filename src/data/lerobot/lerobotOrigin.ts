/**
 * `lerobot_source.json` in a wmrl dataset imported from LeRobot: what the import read the dataset as (its
 * folder, robot_type, fps and the stride kept, units, the names of the dimensions it took, its cameras'
 * features and sizes) and, per episode, what a wmrl episode has no place for: the source episode, the
 * frames kept, and the absolute action targets as recorded (the last frame's included). `wmrl export
 * lerobot` reads it to give back the dataset's names, robot_type, units, fps, targets and camera size.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { JOINT_UNITS } from '../../core/robotDescription.ts';
import { parseJson, readTextIfAny } from './lerobotInfo.ts';

export const ORIGIN_FILE = 'lerobot_source.json';

const originSchema = z
  .object({
    /** The LeRobot dataset folder, absolute. */
    source: z.string().min(1),
    codebaseVersion: z.string(),
    robotType: z.string().nullable(),
    /** The dataset's fps; wmrl keeps every `stride`-th frame (fps / stride = the robot's control rate). */
    fps: z.number().positive(),
    stride: z.int().min(1),
    units: z.enum(JOINT_UNITS),
    /** The dataset's gripper value closed and open. */
    gripper: z.object({ closed: z.number(), open: z.number() }).strict(),
    /** Names of the dimensions taken for the arm joints and gripper, per feature. */
    stateNames: z.array(z.string()),
    actionNames: z.array(z.string()),
    /** Per robot camera: the dataset's feature, its size and codec. */
    cameras: z.array(
      z
        .object({
          camera: z.string(),
          feature: z.string(),
          kind: z.enum(['video', 'image']),
          width: z.int().min(1),
          height: z.int().min(1),
          codec: z.string().nullable(),
        })
        .strict(),
    ),
    episodes: z.array(
      z
        .object({
          /** The wmrl episode's id. */
          id: z.string(),
          sourceEpisode: z.int().min(0),
          /** Frames in the source episode; wmrl kept frames 0, stride, 2 × stride, … (`kept` of them). */
          length: z.int().min(1),
          kept: z.int().min(1),
          /** The action targets of the kept frames, as recorded (dataset units, `actionNames` order). */
          targets: z.array(z.array(z.number())),
        })
        .strict(),
    ),
  })
  .strict();
export type LerobotOrigin = z.infer<typeof originSchema>;

export async function writeOrigin(dir: string, origin: LerobotOrigin): Promise<void> {
  await writeFile(join(dir, ORIGIN_FILE), `${JSON.stringify(origin)}\n`);
}

/** The origin of a wmrl dataset, or null when it was not imported from LeRobot. */
export async function readOrigin(dir: string): Promise<LerobotOrigin | null> {
  const file = join(dir, ORIGIN_FILE);
  const text = await readTextIfAny(file);
  return text === null ? null : parseJson(file, text, originSchema);
}
