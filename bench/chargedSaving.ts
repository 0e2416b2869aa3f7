/**
 * The robot-time saving with a set-up cost charged: the robot time of the data an arm's world model learned from
 * and nothing else did (the benchmark's headline counts post-training's robot time alone).
 */
import { mean } from '../src/eval/learningCurves.ts';
import { ratioOfMeansInterval } from '../src/eval/ratioInterval.ts';

export interface ChargedSaving {
  /** Real-only's mean robot time to the target over the arm's, each of the arm's seeds charged `dataSeconds`. */
  saving: number;
  /** Its 95% interval over seeds (null with fewer than two seeds). */
  low: number | null;
  high: number | null;
}

/** `realPerSeed` and `armPerSeed`: robot seconds to the target per seed; `dataSeconds` is added to every arm seed's. */
export function chargedSaving(realPerSeed: number[], armPerSeed: number[], dataSeconds: number): ChargedSaving {
  if (!(dataSeconds >= 0)) throw new Error(`the data's robot time must be ≥ 0 s, got ${dataSeconds}`);
  const charged = armPerSeed.map((t) => t + dataSeconds);
  const interval = ratioOfMeansInterval(realPerSeed, charged);
  return { saving: mean(realPerSeed) / mean(charged), low: interval?.low ?? null, high: interval?.high ?? null };
}
