/**
 * What episodes cost on the robot: each control step lasts 1/controlHz seconds (resets aside). One definition for
 * the trainer's charge, evaluation, the scheduler's ledger and a dataset's summary.
 */
import type { Episode } from '../core/types.ts';

type Timed = Pick<Episode, 'steps' | 'controlHz'>;

/** One episode's robot time, seconds. */
export const episodeRobotSeconds = (e: Timed): number => e.steps / e.controlHz;

/** The episodes' robot time together, seconds. */
export const robotSeconds = (episodes: readonly Timed[]): number =>
  episodes.reduce((s, e) => s + episodeRobotSeconds(e), 0);
