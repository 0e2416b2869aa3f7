/**
 * The world model WMRL imagines in: ensemble dynamics over [joint positions, joint velocities,
 * the policy's perception latent]. The perception (patch encoder + language-grounded
 * attention) is frozen after behaviour cloning, so the latent of a camera frame under an
 * instruction is fixed, the policy acts on imagined latents directly and imagination never
 * renders pixels (DESIGN.md §2: the VLA's encoder is shared with the world model). It is the
 * `state` world-model kind trained on episodes whose state is that latent.
 */
import * as tf from '@tensorflow/tfjs';
import type { Episode, Observation, TaskFamily } from '../core/types.ts';
import { framesToFloat, observationFrames } from '../vision/frames.ts';
import type { VlaPolicy } from '../policy/vlaPolicy.ts';
import { WorldModel, type TrainHooks } from '../worldmodel/worldModel.ts';
import type { WorldModelConfig } from '../worldmodel/worldModelConfig.ts';
import { CONTEXT_DIM, familyOneHot, stateVector } from '../worldmodel/transitionData.ts';
import type { ImaginationPolicy, ImaginationStarts, ImaginedRollouts } from '../worldmodel/imagine.ts';

/** Episodes with their state replaced by the policy's perception latents ((T+1) × Z). */
export function perceptionEpisodes(policy: VlaPolicy, episodes: Episode[], chunk = 256): Episode[] {
  const camera = policy.config.encoder.camera;
  const S = policy.config.encoder.imageSize;
  return episodes.map((e) => {
    const cam = e.cameras[camera];
    if (!cam) throw new Error(`episode ${e.id} has no '${camera}' camera, which the policy sees`);
    const frames = framesToFloat(cam.frames.subarray(0, (e.steps + 1) * cam.width * cam.height * 3), cam.width, cam.height, S);
    const count = e.steps + 1;
    const Z = policy.latentDim;
    const latents = new Float32Array(count * Z);
    const ids = policy.tokenizer.encode(e.task.instruction);
    for (let i = 0; i < count; i += chunk) {
      const m = Math.min(chunk, count - i);
      const z = tf.tidy(() => {
        const tokens = tf.tensor2d(Int32Array.from({ length: m * ids.length }, (_, j) => ids[j % ids.length]!), [m, ids.length], 'int32');
        return policy.perceive(tf.tensor4d(frames.subarray(i * S * S * 3, (i + m) * S * S * 3), [m, S, S, 3]), tokens).dataSync() as Float32Array;
      });
      latents.set(z, i * Z);
    }
    return { ...e, state: latents, stateDim: Z };
  });
}

/** Train the dynamics on the perception latents of `episodes`. */
export async function trainPerceptionWorldModel(policy: VlaPolicy, episodes: Episode[], config: WorldModelConfig, hooks: TrainHooks = {}): Promise<WorldModel> {
  if (config.kind !== 'state') throw new Error(`the perception world model uses the 'state' kind over perception latents; got kind '${config.kind}'`);
  const { model } = await WorldModel.train(perceptionEpisodes(policy, episodes), config, hooks);
  return model;
}

/** Imagination starts (B rows) from real observations: their perception latents. */
export function perceptionStarts(policy: VlaPolicy, model: WorldModel, observations: Observation[], families: TaskFamily[]): ImaginationStarts {
  const B = observations.length;
  const S = policy.config.encoder.imageSize;
  const pixels = observationFrames(observations, policy.config.encoder.camera, S, 'the policy');
  const latents = tf.tidy(() => {
    const tokens = tf.tensor2d(concatInt(observations.map((o) => policy.tokenizer.encode(o.instruction))), [B, policy.tokenizer.maxTokens], 'int32');
    return policy.perceive(tf.tensor4d(pixels, [B, S, S, 3]), tokens).dataSync() as Float32Array;
  });
  const D = model.meta.dims.state;
  const Z = policy.latentDim;
  const states = new Float32Array(B * D);
  observations.forEach((o, i) => {
    const v = stateVector(o.qpos, o.qvel, latents.subarray(i * Z, (i + 1) * Z));
    if (v.length !== D) throw new Error(`perception state has ${v.length} values; the world model expects ${D} (was it trained with this policy?)`);
    states.set(v, i * D);
  });
  const context = new Float32Array(B * CONTEXT_DIM);
  families.forEach((f, i) => context.set(familyOneHot(f), i * CONTEXT_DIM));
  return { states, stateDim: D, context, instructions: observations.map((o) => o.instruction) };
}

/**
 * The world model's score r̂(τ) of real trajectories: each episode's recorded actions replayed
 * open loop from its first observation (what the model would have predicted for exactly this
 * trajectory), ensemble mean of the best success probability. Episodes must share a length
 * bound: shorter ones are padded with zero actions after their end and scored up to it.
 */
export function scoreTrajectories(policy: VlaPolicy, model: WorldModel, episodes: Episode[]): { score: Float32Array; variance: Float32Array } {
  if (episodes.length === 0) return { score: new Float32Array(0), variance: new Float32Array(0) };
  const first = perceptionEpisodes(policy, episodes.map((e) => ({ ...e, steps: 0 })));
  const B = episodes.length;
  const D = model.meta.dims.state;
  const states = new Float32Array(B * D);
  first.forEach((e, i) => states.set(stateVector(e.qpos.subarray(0, e.qposDim), e.qvel.subarray(0, e.qposDim), e.state.subarray(0, e.stateDim)), i * D));
  const context = new Float32Array(B * CONTEXT_DIM);
  episodes.forEach((e, i) => context.set(familyOneHot(e.task.family), i * CONTEXT_DIM));
  const H = Math.max(...episodes.map((e) => e.steps));
  const A = episodes[0]!.actionDim;
  const replay: ImaginationPolicy = {
    act: (obs) =>
      tf.tidy(() => {
        const rows = obs.rollout.length;
        const out = new Float32Array(rows * A);
        for (let r = 0; r < rows; r++) {
          const e = episodes[obs.rollout[r]!]!;
          if (obs.step < e.steps) out.set(e.actions.subarray(obs.step * A, (obs.step + 1) * A), r * A);
        }
        return tf.tensor2d(out, [rows, A]);
      }),
  };
  const rollouts = model.imagine(replay, { states, stateDim: D, context, instructions: episodes.map((e) => e.task.instruction) }, H);
  return scoresUpTo(rollouts, episodes.map((e) => e.steps));
}

/** Per rollout b: ensemble mean (and variance) of each member's best success probability within its first steps[b] steps. */
function scoresUpTo(r: ImaginedRollouts, steps: number[]): { score: Float32Array; variance: Float32Array } {
  const { members: K, rollouts: B } = r;
  const score = new Float32Array(B);
  const variance = new Float32Array(B);
  for (let b = 0; b < B; b++) {
    const best = Array.from({ length: K }, (_, k) => {
      let m = 0;
      for (let t = 0; t < steps[b]!; t++) m = Math.max(m, r.successProb[(t * K + k) * B + b]!);
      return m;
    });
    const mean = best.reduce((a, v) => a + v, 0) / K;
    score[b] = mean;
    variance[b] = best.reduce((a, v) => a + (v - mean) ** 2, 0) / K;
  }
  return { score, variance };
}

function concatInt(parts: Int32Array[]): Int32Array {
  const out = new Int32Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}
