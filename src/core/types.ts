/**
 * Shared data types. Everything here is plain data (typed arrays, strings, numbers) so it
 * can be stored with msgpackr and sent over websockets without conversion.
 */

/** Which split a task instance belongs to. `test` holds colour/task combinations and
 * instruction paraphrases never shown in `train`. */
export type Split = 'train' | 'test';

/**
 * One concrete, seeded task instance: what the instruction asks for. Plain data only: the
 * families, their rules and the one validating schema live in src/tasks (core sits below it).
 */
export interface TaskSpec {
  /** A registered family (src/tasks/families.ts), e.g. 'reach', or one a file declares. */
  family: string;
  /** Colour of the target object (a family with a scene; a family of fixed texts has none). */
  color?: string;
  /** Kind of the target object: 'block' | 'ball' | 'cylinder' (a family with a scene). */
  object?: string;
  /** Goal zone colour (a family whose scene has a zone). */
  zoneColor?: string;
  /** Index of the instruction template (or fixed text) within the family. */
  template: number;
  split: Split;
  /** The rendered instruction text. */
  instruction: string;
}

/** An RGB image, row-major, `height × width × 3` bytes, row 0 at the top. */
export interface Image {
  width: number;
  height: number;
  data: Uint8Array;
}

export interface Observation {
  /** Camera frames by camera name (e.g. `scene`, `wrist`). */
  images: Record<string, Image>;
  /** Joint positions in the robot description's order (arm joints, then gripper opening in [0,1]). */
  qpos: Float32Array;
  /** Joint velocities, same order as `qpos`. */
  qvel: Float32Array;
  /**
   * Privileged simulator state (absent on a real robot): per task object, position xyz and
   * quaternion wxyz (7 numbers each), target object first; then the goal position xyz
   * (zone centre for push, target start for others).
   */
  state?: Float32Array;
  instruction: string;
}

/** Normalised action: one value per arm joint in [-1, 1] (a fraction of the robot's maximum
 * joint step per tick), then the gripper command in [-1, 1] (-1 open, +1 closed). */
export type Action = Float32Array;

export interface StepResult {
  observation: Observation;
  /** Dense progress in [0, 1]; also used as the per-step reward. */
  reward: number;
  success: boolean;
  done: boolean;
}

export type EpisodeStatus = 'complete' | 'aborted';

export type EpisodeSource = 'sim' | 'rosbridge' | 'robot' | 'imagined';

/**
 * Where an episode's `success` came from when not from the environment itself (the simulator's
 * predicate or the robot's task-status service, the default when absent).
 */
export interface EpisodeOutcome {
  /** `detector`: the learned success detector decided; `operator`: a person labelled it (a spot check). */
  source: 'detector' | 'operator';
  /** The detector's success probability for the episode (before any bias correction). */
  score: number;
  /** The bias-corrected probability the decision thresholded. */
  corrected: number;
  /** The decision threshold. */
  threshold: number;
}

/**
 * A stored episode in columnar form: T actions, T+1 observations.
 * Arrays are flat; shapes follow from `steps` and the dims recorded alongside.
 */
export interface Episode {
  id: string;
  robot: string;
  task: TaskSpec;
  seed: number;
  source: EpisodeSource;
  /** Which policy produced the actions, e.g. `expert`, `random`, or a checkpoint path. */
  policy: string;
  status: EpisodeStatus;
  /** Whether the task's success predicate held at any step. */
  success: boolean;
  /** Set when `success` is a detector's decision or an operator's label (absent: the environment's). */
  outcome?: EpisodeOutcome;
  /**
   * The recording says nothing of success (a LeRobot dataset without `next.success`): `success` reads
   * false and means nothing. Such an episode is unlabelled until a person labels it (`wmrl label`).
   */
  successUnknown?: true;
  controlHz: number;
  steps: number;
  createdAt: string;
  qposDim: number;
  stateDim: number;
  actionDim: number;
  /** (T+1) × qposDim */
  qpos: Float32Array;
  /** (T+1) × qposDim */
  qvel: Float32Array;
  /** (T+1) × stateDim; empty when no privileged state was available. */
  state: Float32Array;
  /** T × actionDim */
  actions: Float32Array;
  /** T+1 progress values in [0,1] (reward). */
  progress: Float32Array;
  /** T+1 success flags (0/1). */
  successes: Uint8Array;
  /** Camera frames by name: (T+1) × height × width × 3 bytes. */
  cameras: Record<string, { width: number; height: number; frames: Uint8Array }>;
}
