/**
 * Branched imagination (MBPO, Janner et al. 2019): imagined groups that start from a state a real
 * anchor rollout passed through, at a random step, rather than from an episode's first frame.
 * Imagination from episode starts with a short horizon only ever judges the first H control steps
 * of an episode; branches judge the policy where its real rollouts go (mid-reach, near the object),
 * and each short branch starts from a real state, so model error has H steps to compound, not t + H.
 */
import type { Episode } from '../core/types.ts';
import type { Rng } from '../core/rng.ts';
import type { ImaginationStarts } from '../worldmodel/imagine.ts';
import { statesAt } from '../worldmodel/statesAt.ts';

/**
 * `count` starts, each the state of a uniformly drawn episode of `episodes` (perception layout:
 * `state` holds the policy's latents) at a uniformly drawn step before its last; with `beforeClose`, at a step
 * no later than the one whose gripper command first closes (see stepsBeforeClose).
 */
export function branchStarts(
  episodes: Episode[],
  count: number,
  rng: Rng,
  options: { beforeClose?: boolean } = {},
): ImaginationStarts {
  const usable = episodes.filter((e) => e.steps >= 1);
  if (usable.length === 0)
    throw new Error('branched imagination needs at least one real episode with a step to branch from');
  const picked: Episode[] = [];
  const steps: number[] = [];
  for (let i = 0; i < count; i++) {
    const e = usable[rng.int(usable.length)]!;
    picked.push(e);
    steps.push(rng.int(options.beforeClose ? stepsBeforeClose(e) : e.steps));
  }
  return statesAt(picked, steps);
}

/**
 * How many steps of an episode a branch may start at when it must start before the grasp: those up to and including
 * the first whose gripper command (the action's last dim, positive closes) closes, all of them if none does. From a
 * state after the close every rollout of a group has already closed where the real one did, so a score read where
 * the gripper closes (`score: grasp`) is the same for all of them and the group teaches nothing.
 */
export function stepsBeforeClose(e: Episode): number {
  const A = e.actionDim;
  for (let t = 0; t < e.steps; t++) if (e.actions[t * A + A - 1]! > 0) return t + 1;
  return e.steps;
}

/** Two sets of starts, one after the other. */
export function concatStarts(a: ImaginationStarts, b: ImaginationStarts): ImaginationStarts {
  if (a.stateDim !== b.stateDim)
    throw new Error(`cannot join imagination starts of state width ${a.stateDim} and ${b.stateDim}`);
  const join = (x: Float32Array, y: Float32Array) => {
    const out = new Float32Array(x.length + y.length);
    out.set(x);
    out.set(y, x.length);
    return out;
  };
  return {
    states: join(a.states, b.states),
    stateDim: a.stateDim,
    context: join(a.context, b.context),
    instructions: [...a.instructions, ...b.instructions],
  };
}
