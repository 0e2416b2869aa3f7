/** Requests for the scheduler's tests. */
import type { EpisodeRequest } from '../../src/scheduler/episodeRequest.ts';
import { requestId } from '../../src/scheduler/episodeRequest.ts';

export const TEST_TASK = {
  family: 'reach',
  color: 'red',
  object: 'block',
  template: 0,
  split: 'train',
  instruction: 'reach the red block',
} as EpisodeRequest['task'];

export function makeRequests(run: string, step: number, groups: number, rollouts: number): EpisodeRequest[] {
  const out: EpisodeRequest[] = [];
  for (let g = 0; g < groups; g++)
    for (let m = 0; m < rollouts; m++)
      out.push({
        id: requestId(run, step, g, m),
        run,
        step,
        group: g,
        rollout: m,
        task: TEST_TASK,
        seed: 100 + g,
        noiseSeed: 1000 * g + m,
        maxRobotSeconds: 2,
      });
  return out;
}
