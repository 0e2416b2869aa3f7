/**
 * What a task family is (src/tasks/<family>/family.ts holds each one's): what it asks of a scene, its
 * instructions and split, its episode length, and any score rule of its own that imagination can rank its
 * rollouts by. The registry (families.ts) lists them; the generic method asks it by name and never branches on one.
 */
import type { ColorName, ObjectKind } from './vocabulary.ts';

/**
 * Features a world model told the instructed object (worldModel.object) ends its state with: the object minus the
 * gripper (xyz, metres), then the object's lift above where it stood at the start (metres).
 */
export const OBJECT_FEATURES = 4;

/**
 * A family's own score of rollouts, from their states and actions (imagined, or recorded in the world model's
 * layout). It reads the object features, the state's last OBJECT_FEATURES numbers, so it needs a world model told
 * the object.
 */
export interface FamilyScoreRule {
  needs: 'object';
  /**
   * Per step t (horizon × rows) each row's score as of the state after it. `states` (horizon + 1) × rows × D,
   * `actions` horizon × rows × A, step-major.
   */
  perStep(
    states: Float32Array,
    actions: Float32Array,
    horizon: number,
    rows: number,
    D: number,
    A: number,
  ): Float32Array;
  /** One recorded episode's score as of step `end` (its states and actions step-major, D and A wide). */
  at(states: Float32Array, actions: Float32Array, end: number, D: number, A: number): number;
}

export interface FamilyDef {
  /** Object kinds the target may be. */
  objects: readonly ObjectKind[];
  /** Templates: `{color}`, `{object}`, `{zone}` are filled in. The last is test-only. */
  templates: readonly string[];
  /** Target colours whose every instruction is test-only. */
  heldOutColors: readonly ColorName[];
  /** Control ticks before the episode ends. */
  horizon: number;
  /** Score rules of its own, by the name a training config gives (`score: <name>`). */
  scoreRules?: Readonly<Record<string, FamilyScoreRule>>;
}
