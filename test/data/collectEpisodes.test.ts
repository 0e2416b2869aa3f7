/**
 * Collection on the in-process simulator lets the event loop through between episodes: without
 * it the whole collection is one chain of microtasks, and Ctrl-C, sockets and child processes'
 * events wait until it ends (the demo's last evaluation once held up its second process so).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_ROBOT, loadRobot } from '../../src/core/robotDescription.ts';
import { collectEpisodes } from '../../src/data/collectEpisodes.ts';
import { makeController, makeSimEnv } from '../../src/envs/makeEnv.ts';
import { planEpisodes } from '../../src/tasks/episodePlan.ts';
import { parseTaskSelectors } from '../../src/tasks/selectors.ts';

test('collectEpisodes on the simulator: an event queued before it runs between episodes, not after', async () => {
  const robot = loadRobot(DEFAULT_ROBOT);
  const env = await makeSimEnv(robot);
  const controller = await makeController('expert', robot);
  try {
    let done = 0;
    let seenAfter: number | undefined;
    setImmediate(() => {
      seenAfter = done;
    });
    const plan = planEpisodes(parseTaskSelectors('reach'), 'train', 3, 0);
    const r = await collectEpisodes({ env, controller, plan, onEpisode: () => done++ });
    assert.equal(r.episodes, 3);
    assert.ok(seenAfter !== undefined && seenAfter < 3, `the event ran after ${seenAfter} of 3 episodes`);
  } finally {
    controller.close?.();
    await env.close();
  }
});
