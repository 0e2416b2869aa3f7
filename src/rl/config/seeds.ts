/**
 * Every random draw of a training step has a seed of its own, derived from (run seed, step,
 * purpose) alone: a step's randomness stands apart from every other's, and a resumed run draws
 * exactly what the killed one would have. The numbers are part of every recorded run: never
 * renumber one, add new purposes at the end (9, 14 and 15 were removed purposes: never reuse them).
 */
export const SEED_PURPOSE = {
  /** Exploration noise of the imagined groups. */
  imaginedNoise: 1,
  /** Exploration noise of the anchor groups, imagined and executed alike. */
  anchorNoise: 2,
  /** Minibatch order of the PPO update. */
  ppoShuffle: 3,
  /** World-model refits (the warm-up's uses step 0). */
  refit: 4,
  /** PPI check: which starts, the imagined and anchor groups' noise, the truth episodes' noise. */
  ppiCheckStarts: 5,
  ppiCheckImaginedNoise: 6,
  ppiCheckAnchorNoise: 7,
  ppiCheckTruthNoise: 8,
  /** Warm-up (step 0): the order of starts, the episodes' noise. */
  warmupOrder: 10,
  warmupNoise: 11,
  /** Imagination check: which starts, and the noise they are imagined and executed with. */
  checkStarts: 12,
  checkNoise: 13,
} as const;

export type SeedPurpose = keyof typeof SEED_PURPOSE;

/** The seed of one purpose's draw at `step`; without a purpose, the step's group draw. */
export function stepSeed(runSeed: number, step: number, purpose?: SeedPurpose): number {
  return purpose === undefined ? hashSeed(runSeed, step) : hashSeed(runSeed, step, SEED_PURPOSE[purpose]);
}

/** A 32-bit seed mixed from integers (FNV-1a with an extra avalanche per part). */
export function hashSeed(...parts: number[]): number {
  let h = 0x811c9dc5;
  for (const p of parts) {
    h = Math.imul(h ^ (p >>> 0), 0x01000193) >>> 0;
    h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d) >>> 0;
  }
  return h;
}
