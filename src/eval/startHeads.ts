/**
 * One start head per task family (src/eval/startOutcomeHead.ts), fitted on labelled real episodes
 * of the policy: `wmrl eval --start-head DATA` predicts each start's outcome with them, as PPI's
 * prediction. Episodes of another family never count as neighbours.
 */
import type { Episode } from '../core/types.ts';
import type { VlaPolicy } from '../policy/vlaPolicy.ts';
import { startStates } from '../worldmodel/perceptionWorldModel.ts';
import { StartOutcomeHead } from './startOutcomeHead.ts';

export class StartHeads {
  readonly heads: ReadonlyMap<string, StartOutcomeHead>;

  private constructor(heads: Map<string, StartOutcomeHead>) {
    this.heads = heads;
  }

  /** Fit a head per family on `episodes` (their first observation and whether they succeeded). */
  static fit(policy: VlaPolicy, episodes: Episode[]): StartHeads {
    const heads = new Map<string, StartOutcomeHead>();
    for (const [family, rows] of byFamily(episodes)) {
      const mine = rows.map((i) => episodes[i]!);
      const { states, stateDim } = startStates(policy, mine);
      try {
        heads.set(
          family,
          StartOutcomeHead.fit(
            states,
            stateDim,
            mine.map((e) => (e.success ? 1 : 0)),
          ),
        );
      } catch (err) {
        throw new Error(`the labelled ${family} episodes: ${(err as Error).message}`);
      }
    }
    return new StartHeads(heads);
  }

  /** The predicted success of each start (0-step episodes or whole ones: only the first observation is read). */
  predict(policy: VlaPolicy, starts: Episode[]): Float32Array {
    const out = new Float32Array(starts.length);
    for (const [family, rows] of byFamily(starts)) {
      const head = this.heads.get(family);
      if (!head) throw new Error(`no labelled ${family} episodes to predict ${family} starts with`);
      const { states, stateDim } = startStates(
        policy,
        rows.map((i) => starts[i]!),
      );
      head.predict(states, stateDim).forEach((p, k) => {
        out[rows[k]!] = p;
      });
    }
    return out;
  }
}

/** Indices of the episodes of each family, in order. */
function byFamily(episodes: Episode[]): Map<string, number[]> {
  const rows = new Map<string, number[]>();
  episodes.forEach((e, i) => {
    const mine = rows.get(e.task.family);
    if (mine) mine.push(i);
    else rows.set(e.task.family, [i]);
  });
  return rows;
}
