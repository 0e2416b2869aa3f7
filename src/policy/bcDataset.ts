/**
 * Behaviour-cloning samples (frame, proprio, tokens, action) cut from episodes. With
 * `shiftAugment`, four 1-pixel-shifted copies of every training frame are added (small
 * camera-pose changes the policy must tolerate).
 */
import type { Episode } from '../core/types.ts';
import { requireComplete } from '../data/completeEpisodes.ts';
import { framesToFloat } from '../vision/frames.ts';
import { loadRobot, type RobotDescription } from '../core/robotDescription.ts';
import { projectToImage, type FixedCamera } from '../vision/cameraProjection.ts';
import { recordedGoal } from '../../sim/privilegedState.ts';
import { episodeProprio } from './policyInputs.ts';
import type { Tokenizer } from './tokenizer.ts';
import { AUX_DIM, IMAGE_TARGET_HEADS } from './vlaPolicy.ts';

export interface BcSamples {
  count: number;
  imageSize: number;
  /** [count, S, S, 3] floats in [0,1]. */
  frames: Float32Array;
  proprioDim: number;
  actionDim: number;
  maxTokens: number;
  proprio: Float32Array;
  tokens: Int32Array;
  actions: Float32Array;
  /** Auxiliary targets (target object xyz, goal xyz, ×10) where episodes carry privileged state. */
  aux?: Float32Array;
  /** With privileged state and a world-fixed camera: where the instructed object and the goal
   * appear in the image ([count, 2·IMAGE_TARGET_HEADS]), and each one's weight (0 for a goal
   * that is not on the table, e.g. a lift point in the air). */
  imageTargets?: Float32Array;
  imageWeights?: Float32Array;
}

const SHIFTS: [number, number][] = [
  [1, 0],
  [-1, 0],
  [0, 1],
  [0, -1],
];

/**
 * `actionChunk` > 1: each sample's target is the next `actionChunk`
 * actions (the last one repeated past the episode's end).
 */
export function buildBcSamples(
  tokenizer: Tokenizer,
  episodes: Episode[],
  options: {
    camera: string;
    imageSize: number;
    shiftAugment: boolean;
    actionChunk?: number;
    /** The episodes' robot, for its camera poses (default: robots/<their recorded name>). */
    robot?: RobotDescription;
  },
): BcSamples {
  requireComplete(episodes, 'behaviour cloning');
  const chunk = options.actionChunk ?? 1;
  const S = options.imageSize;
  const frameSize = S * S * 3;
  const copies = options.shiftAugment ? 1 + SHIFTS.length : 1;
  const steps = episodes.reduce((n, e) => n + e.steps, 0);
  if (steps === 0) throw new Error('no steps to clone');
  const first = episodes[0]!;
  const P = 2 * first.qposDim;
  const A1 = first.actionDim;
  const A = A1 * chunk;
  const L = tokenizer.maxTokens;
  const count = steps * copies;
  const frames = new Float32Array(count * frameSize);
  const proprio = new Float32Array(count * P);
  const tokens = new Int32Array(count * L);
  const actions = new Float32Array(count * A);
  const withState = episodes.every((e) => e.stateDim >= 6);
  const aux = withState ? new Float32Array(count * AUX_DIM) : undefined;
  const camera = withState ? fixedCamera(options.robot ?? loadRobot(first.robot), options.camera) : undefined;
  const imageTargets = camera ? new Float32Array(count * 2 * IMAGE_TARGET_HEADS) : undefined;
  const imageWeights = camera ? new Float32Array(count * IMAGE_TARGET_HEADS) : undefined;
  let row = 0;
  for (const e of episodes) {
    const cam = e.cameras[options.camera];
    if (!cam) throw new Error(`episode ${e.id} has no '${options.camera}' camera`);
    const all = framesToFloat(cam.frames.subarray(0, e.steps * cam.width * cam.height * 3), cam.width, cam.height, S);
    const prop = episodeProprio(e);
    const ids = tokenizer.encode(e.task.instruction);
    for (let c = 0; c < copies; c++) {
      for (let t = 0; t < e.steps; t++, row++) {
        const frame = all.subarray(t * frameSize, (t + 1) * frameSize);
        if (c === 0) frames.set(frame, row * frameSize);
        else shiftFrame(frame, S, SHIFTS[c - 1]!, frames.subarray(row * frameSize, (row + 1) * frameSize));
        proprio.set(prop.subarray(t * P, (t + 1) * P), row * P);
        tokens.set(ids, row * L);
        for (let c = 0; c < chunk; c++) {
          const s = Math.min(t + c, e.steps - 1);
          actions.set(e.actions.subarray(s * A1, (s + 1) * A1), row * A + c * A1);
        }
        if (aux) auxTargets(e, t, aux.subarray(row * AUX_DIM, (row + 1) * AUX_DIM));
        if (camera) {
          const targets = imageTargets!.subarray(row * 2 * IMAGE_TARGET_HEADS, (row + 1) * 2 * IMAGE_TARGET_HEADS);
          imageTargetsOf(
            e,
            t,
            camera,
            targets,
            imageWeights!.subarray(row * IMAGE_TARGET_HEADS, (row + 1) * IMAGE_TARGET_HEADS),
          );
          // A shifted frame shows everything shifted: so are its image targets ([-1, 1] spans S pixels).
          if (c > 0)
            for (let h = 0; h < IMAGE_TARGET_HEADS; h++) {
              targets[2 * h]! += (2 * SHIFTS[c - 1]![0]) / S;
              targets[2 * h + 1]! += (2 * SHIFTS[c - 1]![1]) / S;
            }
        }
      }
    }
  }
  return {
    count,
    imageSize: S,
    frames,
    proprioDim: P,
    actionDim: A,
    maxTokens: L,
    proprio,
    tokens,
    actions,
    ...(aux ? { aux } : {}),
    ...(camera ? { imageTargets, imageWeights } : {}),
  };
}

/** The camera as a world-fixed one, or undefined (e.g. a wrist camera, which moves). */
function fixedCamera(robot: RobotDescription, name: string): FixedCamera | undefined {
  const c = robot.cameras.find((cam) => cam.name === name);
  return c?.pos && c.lookAt ? { pos: c.pos, lookAt: c.lookAt, fovy: c.fovy } : undefined;
}

/** Image positions of the instructed object (the first object of the state) and of the goal. */
function imageTargetsOf(
  e: Episode,
  t: number,
  camera: FixedCamera,
  targets: Float32Array,
  weights: Float32Array,
): void {
  const s = e.state.subarray(t * e.stateDim, (t + 1) * e.stateDim);
  const goal = recordedGoal(e.state, e.stateDim, t)!;
  targets.set([...projectToImage(camera, s.subarray(0, 3)), ...projectToImage(camera, goal)]);
  weights.set([1, Math.abs(goal[2]!) < 0.01 ? 1 : 0]);
}

/** Target object position (first object of the state) and goal, ×10. */
function auxTargets(e: Episode, t: number, out: Float32Array): void {
  const s = e.state.subarray(t * e.stateDim, (t + 1) * e.stateDim);
  out.set([...s.subarray(0, 3), ...recordedGoal(e.state, e.stateDim, t)!].map((v) => 10 * v));
}

/** Shift an S×S×3 frame by (dx, dy) pixels, repeating the edge. */
function shiftFrame(src: Float32Array, S: number, [dx, dy]: [number, number], out: Float32Array): void {
  for (let y = 0; y < S; y++) {
    const sy = Math.min(S - 1, Math.max(0, y - dy));
    for (let x = 0; x < S; x++) {
      const sx = Math.min(S - 1, Math.max(0, x - dx));
      const o = (y * S + x) * 3;
      const i = (sy * S + sx) * 3;
      out[o] = src[i]!;
      out[o + 1] = src[i + 1]!;
      out[o + 2] = src[i + 2]!;
    }
  }
}
