/**
 * The camera a model sees when its config names none: the first one the episodes recorded,
 * which is the robot description's first camera. Trained models record the name they used.
 */
import type { Episode } from './types.ts';

export function firstCamera(episodes: readonly Episode[], what: string): string {
  const name = Object.keys(episodes[0]?.cameras ?? {})[0];
  if (name === undefined) throw new Error(`${what} needs camera frames, and the episodes have none`);
  return name;
}
