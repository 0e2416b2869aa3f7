/**
 * Demonstration keyframes: where a successful demonstration's gripper was at each of its events, predicted from the
 * first frame, and an imagined rollout scored by how close its gripper comes to them at its own events.
 *
 * The events are the gripper's: where its command first closes (`close`), where it first opens again after that
 * (`open`), and where the episode last succeeded (`end`). A demonstration shows them with nothing but its joint
 * states, its actions and its outcome, so any arm's own recordings give them: a reach ends at the hover point; a pick
 * closes at the block and ends above where it stood; a push closes its paddle at the start and ends behind the block
 * at the zone. A family has an event when at least half of its successful demonstrations show it.
 *
 * Why: the world model predicts the arm well and what the arm does to objects poorly (fingers closing on nothing look
 * like fingers closing on the block), and a task is decided by where the gripper is when it acts. Where the fingers
 * close, where they let go and where the gripper ends are arm positions the model can roll forward; their targets are
 * positions the first frame shows. Reach's goal and pick's grasp are two cases of it.
 */
import { clamp01 } from '../core/clamp01.ts';
import type { Episode } from '../core/types.ts';
import { type PointLabel, PointLocaliser, type PointLocaliserWeights } from './pointLocaliser.ts';

export const KEYFRAME_EVENTS = ['close', 'open', 'end'] as const;
export type KeyframeEvent = (typeof KEYFRAME_EVENTS)[number];
const EVENTS = KEYFRAME_EVENTS.length;
/** Features appended per step: each event's keyframe minus the end effector (3 each), then each event's presence. */
export const KEYFRAME_DIM = EVENTS * 4;
/** A keyframe this near the start (metres) counts as this far: closeness is measured against the start's distance. */
export const KEYFRAME_FLOOR = 0.02;
/** A family has an event when at least this share of its successful demonstrations show it. */
const EVENT_SHARE = 0.5;

/** The gripper command of step t: the action's last value, positive closes (every robot's action layout). */
const commandCloses = (actions: ArrayLike<number>, at: number, A: number): boolean => actions[at + A - 1]! > 0;

/**
 * Each event's step in a successful episode (the state before that step's action), none for a failed one. A
 * recording whose outcome is unknown (an imported demonstration) counts as successful, as behaviour cloning counts
 * it: it ends where it stops.
 */
export function eventSteps(e: Episode): Partial<Record<KeyframeEvent, number>> | undefined {
  if (!e.success && !e.successUnknown) return undefined;
  let end = e.steps;
  for (let t = e.steps; t >= 0; t--)
    if (e.successes[t]) {
      end = t;
      break;
    }
  const steps: Partial<Record<KeyframeEvent, number>> = { end };
  for (let t = 0; t < end; t++) {
    const closes = commandCloses(e.actions, t * e.actionDim, e.actionDim);
    if (steps.close === undefined) {
      if (closes) steps.close = t;
    } else if (!closes) {
      steps.open = t;
      break;
    }
  }
  return steps;
}

/** One episode's keyframes: the gripper position (world frame, metres) at each event it shows. */
export type KeyframeLabels = Partial<Record<KeyframeEvent, [number, number, number]>>;

/** The keyframes of each of `recorded` (undefined for a failed episode); `gripperAt(e, t)` is its gripper at step t. */
export function keyframeLabels(
  recorded: Episode[],
  gripperAt: (e: Episode, t: number) => ArrayLike<number>,
): (KeyframeLabels | undefined)[] {
  return recorded.map((e) => {
    const steps = eventSteps(e);
    if (!steps) return undefined;
    const labels: KeyframeLabels = {};
    for (const event of KEYFRAME_EVENTS) {
      const t = steps[event];
      if (t === undefined) continue;
      const p = gripperAt(e, t);
      labels[event] = [p[0]!, p[1]!, p[2]!];
    }
    return labels;
  });
}

/** What a world-model checkpoint stores: one point localiser per event a family shows. */
export interface KeyframeLocaliserWeights {
  latentDim: number;
  events: Partial<Record<KeyframeEvent, PointLocaliserWeights>>;
}

export class KeyframeLocaliser {
  readonly latentDim: number;
  readonly #events: Partial<Record<KeyframeEvent, PointLocaliser>>;

  private constructor(latentDim: number, events: Partial<Record<KeyframeEvent, PointLocaliser>>) {
    this.latentDim = latentDim;
    this.#events = events;
  }

  /**
   * Fit on `perceived` (the policy's perception latent, `latentDim` a step) against each episode's keyframes
   * (keyframeLabels; undefined for a failed episode): per event, a ridge regression per family from the first
   * frame's latent and the object's kind (pointLocaliser.ts), for the families that show the event.
   */
  static fit(perceived: Episode[], labels: (KeyframeLabels | undefined)[], latentDim: number): KeyframeLocaliser {
    if (perceived.length !== labels.length)
      throw new Error(`keyframes: ${perceived.length} perceived episodes but ${labels.length} labelled`);
    const successes = new Map<string, number>();
    const shown = new Map<string, number>();
    perceived.forEach((e, i) => {
      const l = labels[i];
      if (!l) return;
      successes.set(e.task.family, (successes.get(e.task.family) ?? 0) + 1);
      for (const event of KEYFRAME_EVENTS)
        if (l[event]) shown.set(`${e.task.family}/${event}`, (shown.get(`${e.task.family}/${event}`) ?? 0) + 1);
    });
    if (successes.size === 0)
      throw new Error(
        'keyframes: no successful episode in the data, so no keyframe to learn: the world model needs ' +
          "demonstrations that succeed (their outcome recorded, or labelled with 'wmrl label')",
      );
    const events: Partial<Record<KeyframeEvent, PointLocaliser>> = {};
    for (const event of KEYFRAME_EVENTS) {
      const has = (family: string) =>
        (shown.get(`${family}/${event}`) ?? 0) >= EVENT_SHARE * (successes.get(family) ?? Infinity);
      const points = perceived.map((e, i): PointLabel | undefined => {
        const p = labels[i]?.[event];
        return p && has(e.task.family) ? p : undefined;
      });
      if (points.some((p) => p)) events[event] = PointLocaliser.fit(perceived, points, latentDim, `${event} keyframe`);
    }
    return new KeyframeLocaliser(latentDim, events);
  }

  static fromJSON(weights: KeyframeLocaliserWeights): KeyframeLocaliser {
    const events: Partial<Record<KeyframeEvent, PointLocaliser>> = {};
    for (const event of KEYFRAME_EVENTS) {
      const w = weights.events[event];
      if (w) events[event] = PointLocaliser.fromJSON(w);
    }
    return new KeyframeLocaliser(weights.latentDim, events);
  }

  toJSON(): KeyframeLocaliserWeights {
    const events: Partial<Record<KeyframeEvent, PointLocaliserWeights>> = {};
    for (const event of KEYFRAME_EVENTS) {
      const l = this.#events[event];
      if (l) events[event] = l.toJSON();
    }
    return { latentDim: this.latentDim, events };
  }

  /** Per event, its fit for each family that shows it: RMSE (metres, in-sample) and episodes. */
  fits(): Partial<Record<KeyframeEvent, Record<string, { rmse: number; episodes: number }>>> {
    const out: Partial<Record<KeyframeEvent, Record<string, { rmse: number; episodes: number }>>> = {};
    for (const event of KEYFRAME_EVENTS) {
      const l = this.#events[event];
      if (l)
        out[event] = Object.fromEntries(
          Object.entries(l.families).map(([f, x]) => [f, { rmse: x.rmse, episodes: x.episodes }]),
        );
    }
    return out;
  }

  /** Each event's keyframe for a task whose first frame the policy perceives as `latent`; undefined: not shown. */
  estimate(
    latent: ArrayLike<number>,
    task: { family: string; object?: string },
  ): Record<KeyframeEvent, [number, number, number] | undefined> {
    const out = {} as Record<KeyframeEvent, [number, number, number] | undefined>;
    for (const event of KEYFRAME_EVENTS) {
      const l = this.#events[event];
      out[event] = l?.families[task.family] ? l.estimate(latent, task) : undefined;
    }
    if (!out.end)
      throw new Error(
        `keyframes: fitted on ${this.#families().join(', ')}; no successful episode of family '${task.family}' ` +
          'showed where it ends: add demonstrations of it that succeed',
      );
    return out;
  }

  #families(): string[] {
    return Object.keys(this.#events.end?.families ?? {});
  }
}

/**
 * The KEYFRAME_DIM features of one step: each event's keyframe minus the end effector `ee` (an event the family does
 * not show takes the end's), then 1 for each event it shows, 0 for the others.
 */
export function keyframeFeatures(
  keyframes: Record<KeyframeEvent, [number, number, number] | undefined>,
  ee: ArrayLike<number>,
  out: Float32Array,
  at: number,
): void {
  KEYFRAME_EVENTS.forEach((event, k) => {
    const p = keyframes[event] ?? keyframes.end!;
    for (let j = 0; j < 3; j++) out[at + 3 * k + j] = p[j]! - ee[j]!;
    out[at + 3 * EVENTS + k] = keyframes[event] ? 1 : 0;
  });
}

/**
 * Score `keyframes`, per imagined step (H × R, R rows) as of the state after it: the mean, over the events the
 * family shows, of the gripper's closeness to the event's keyframe at the rollout's own event: where its command
 * first closes, where it first opens after that (read off the state before that command acts), its latest state for
 * an event it has not reached yet (as if it happened there), and for the end its closest state so far (a
 * demonstration ends where it succeeds, so a rollout that passes its end keyframe has ended there). Closeness is
 * 1 − distance / the start's distance (floored at KEYFRAME_FLOOR), clamped to [0, 1]: a group shares its start, so a
 * group ranks by distance alone. `states` (H+1) × R × D with the KEYFRAME_DIM features last, `actions` H × R × A.
 */
export function keyframeScores(
  states: Float32Array,
  actions: Float32Array,
  horizon: number,
  rows: number,
  D: number,
  A: number,
): Float32Array {
  if (D < KEYFRAME_DIM) throw new Error(`keyframe scores: a ${D}-wide state holds no keyframe features`);
  if (actions.length < horizon * rows * A)
    throw new Error(`keyframe scores: expected ${horizon}×${rows}×${A} actions, got ${actions.length} values`);
  const at = D - KEYFRAME_DIM;
  const distance = (s: number, k: number) =>
    Math.hypot(states[s + at + 3 * k]!, states[s + at + 3 * k + 1]!, states[s + at + 3 * k + 2]!);
  const out = new Float32Array(horizon * rows);
  const shown: number[] = [];
  const start = new Float64Array(EVENTS);
  const reached = new Float64Array(EVENTS);
  const [CLOSE, OPEN, END] = [0, 1, 2];
  for (let r = 0; r < rows; r++) {
    shown.length = 0;
    for (let k = 0; k < EVENTS; k++) {
      if (states[r * D + at + 3 * EVENTS + k]! > 0.5) shown.push(k);
      start[k] = Math.max(KEYFRAME_FLOOR, distance(r * D, k));
      reached[k] = Number.NaN;
    }
    const closeness = (s: number, k: number) => clamp01(1 - distance(s, k) / start[k]!);
    let closed = false;
    let end = 0;
    for (let t = 0; t < horizon; t++) {
      const s = (t * rows + r) * D;
      const closes = commandCloses(actions, (t * rows + r) * A, A);
      if (!closed && closes) {
        closed = true;
        reached[CLOSE] = closeness(s, CLOSE);
      } else if (closed && !closes && Number.isNaN(reached[OPEN]!)) reached[OPEN] = closeness(s, OPEN);
      const next = ((t + 1) * rows + r) * D;
      end = Math.max(end, closeness(next, END));
      let sum = 0;
      for (const k of shown) sum += k === END ? end : Number.isNaN(reached[k]!) ? closeness(next, k) : reached[k]!;
      out[t * rows + r] = shown.length ? sum / shown.length : 0;
    }
  }
  return out;
}

/** One recorded episode's keyframe score as of step `end` (the world model's layout, step-major): keyframeScores. */
export function keyframeScoreAt(
  states: Float32Array,
  actions: Float32Array,
  end: number,
  D: number,
  A: number,
): number {
  return end === 0 ? 0 : keyframeScores(states, actions, end, 1, D, A)[end - 1]!;
}
