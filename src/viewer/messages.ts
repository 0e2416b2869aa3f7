/**
 * The viewer's wire protocol: msgpack-encoded binary websocket frames, one message each.
 * Types only, shared by the server (src/viewer/) and the page (web/viewer/). Typed arrays
 * travel as msgpack `bin` + typed-array extension (msgpackr), so the page gets them back as
 * typed arrays. Poses are 12 floats per geom: world position xyz, then the row-major 3×3
 * rotation (MuJoCo's geom_xpos / geom_xmat), in MuJoCo's z-up world frame.
 */

import type { PendingItem } from '../operator/pendingItem.ts';

export type { PendingItem };

/** MuJoCo geom types the page draws (mjtGeom values). */
export const GEOM_TYPE = { plane: 0, sphere: 2, capsule: 3, ellipsoid: 4, cylinder: 5, box: 6, mesh: 7 } as const;

/** One MuJoCo mesh, in the frame its geoms are posed in. */
export interface MeshGeometry {
  /** xyz per vertex. */
  vertices: Float32Array;
  /** Three vertex indices per triangle. */
  faces: Uint32Array;
}

/** What a geom belongs to: the arm (ghosted for imagination), a task object, a goal zone, or the world (table). */
export type GeomRole = 'robot' | 'object' | 'zone' | 'world';

export interface GeomList {
  count: number;
  /** mjtGeom per geom. */
  type: number[];
  /** MuJoCo size (3 per geom). */
  size: number[];
  /** Colour (4 per geom). */
  rgba: number[];
  role: GeomRole[];
  name: string[];
  /** Shown by MuJoCo's default viewer groups (0–2), 1 or 0. */
  visible: number[];
  /** Per geom, its mesh (an index into `meshes`), or -1. */
  mesh: number[];
  /** Names the robot's mesh set: a connection is sent it once, later episodes reuse it. */
  meshKey: string;
  /** The meshes, or null where this connection already got the set named by `meshKey`. */
  meshes: MeshGeometry[] | null;
}

/** One row of the episode list. */
export interface EpisodeSummary {
  id: string;
  /** 'data' (a --data dataset), 'anchor' (a real episode the run executed) or 'live' (`wmrl run --view`'s). */
  origin: 'data' | 'anchor' | 'live';
  /** Training step whose anchor groups produced it (anchors only; null when unknown). */
  step: number | null;
  instruction: string;
  family: string;
  split: string;
  /**
   * The outcome: the recorded one, or the operator's label once given. Absent while the episode
   * waits for that label (`waiting`): the question is blind (src/viewer/waitingForLabel.ts); absent
   * too when nothing recorded it (an import without success information) and no one labelled it.
   */
  success?: boolean;
  steps: number;
  policy: string;
  source: string;
  /** A live episode still running (it grows step by step). */
  running?: boolean;
  /** An anchor episode waiting for the operator's label: listed without an outcome. */
  waiting?: true;
}

export interface RunInfo {
  /** Run folder (as given), or null when only datasets are viewed. */
  runDir: string | null;
  /** Steps the latest checkpoint completed (null without a checkpoint). */
  checkpointStep: number | null;
  /** Where imagined rollouts come from, in words; null when nothing imagines. */
  imagination: string | null;
  /** True while the run folder is watched for new metrics and anchors. */
  live: boolean;
}

/** Imagined rollouts of one episode: K members replaying its recorded actions from its first state. */
export interface ImaginedView {
  /** 'replay': the real episode's actions, open loop, through every ensemble member. */
  method: 'replay';
  kind: 'state' | 'video';
  /** Checkpoint step of the world model (null for a standalone world model). */
  modelStep: number | null;
  members: number;
  horizon: number;
  /** Indices (into GeomList) of the geoms each ghost poses: the arm, plus objects when the model predicts them. */
  ghostGeoms: number[];
  /** (H+1) × K × ghostGeoms × 12 */
  ghostPoses: Float32Array;
  /** (H+1) × K × 3 end-effector positions. */
  ghostEe: Float32Array;
  /** (H+1): spread of the members' end-effector positions (m, RMS distance to their mean). */
  disagreement: Float32Array;
  /** H × K: each member's success probability and progress after each step. */
  successProb: Float32Array;
  progress: Float32Array;
  /** Decoded frames (video kind): (H+1) × K × size² × 3 bytes. */
  frames: { size: number; data: Uint8Array } | null;
}

export interface EpisodeView {
  summary: EpisodeSummary;
  controlHz: number;
  geoms: GeomList;
  /** (T+1) × geoms × 12 */
  poses: Float32Array;
  /** (T+1) × 3 end-effector positions. */
  ee: Float32Array;
  /** T+1 progress and success flags of the real episode; null while it waits for the operator's label. */
  progress: Float32Array | null;
  successes: Uint8Array | null;
  cameras: { name: string; width: number; height: number; frames: Uint8Array }[];
  imagined: ImaginedView | null;
  /** Why there is no imagination for this episode (null when there is). */
  imaginationNote: string | null;
}

/** One line of train.metrics.jsonl (kind 'step', 'eval', 'worldmodel', 'ppi-check', …). */
export type MetricsRecord = { kind?: string; step?: number } & Record<string, unknown>;

export type ServerMessage =
  | { type: 'hello'; run: RunInfo; episodes: EpisodeSummary[] }
  /** Records from index `from` on (the client already holds the earlier ones). */
  | { type: 'metrics'; from: number; records: MetricsRecord[] }
  | { type: 'episodes'; episodes: EpisodeSummary[] }
  | { type: 'run'; run: RunInfo }
  | { type: 'episode'; request: number; episode: EpisodeView }
  /** What waits for the operator (anchor episodes to label, scenes to set up): the whole list. */
  | { type: 'pending'; items: PendingItem[] }
  /** An answer was taken (`ok`) or refused, with what was recorded or why. */
  | { type: 'answered'; id: string; ok: boolean; message: string }
  | { type: 'error'; request: number | null; message: string };

export type OperatorAnswer = 'success' | 'failure' | 'skip';

export type ClientMessage =
  | { type: 'open'; request: number; episode: string }
  /** The operator's label of a pending episode. */
  | { type: 'label'; episode: string; verdict: OperatorAnswer; note?: string }
  /** The operator set the scene of pending reset prompt `id` up. */
  | { type: 'reset-ready'; id: string };
