import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { addTaskFiles } from '../../src/tasks/families.ts';
import { recordedGoal, recordedObject } from '../../sim/privilegedState.ts';
import { zoneRadius } from '../../sim/layout.ts';
import { collectExpertEpisodes } from '../helpers/simEpisodes.ts';

test('the place expert picks the block up, sets it down inside the zone and lets go (vx300)', async () => {
  addTaskFiles(resolve('configs/tasks/place.yaml'));
  const episodes = await collectExpertEpisodes('place', 5, 0, 1000);
  for (const e of episodes) {
    assert.ok(e.success, `${e.task.instruction} (seed ${e.seed}) failed`);
    let lifted = 0;
    for (let t = 0; t <= e.steps; t++) {
      const block = recordedObject(e.state, e.stateDim, t)!;
      const goal = recordedGoal(e.state, e.stateDim, t)!;
      lifted = Math.max(lifted, block[2]! - goal[2]!);
      // Never a success while the block is held up.
      if (block[2]! > goal[2]! + 0.01) assert.equal(e.successes[t], 0, `success at ${t} with the block up`);
    }
    assert.ok(lifted > 0.05, `the block was carried, not pushed: up ${lifted.toFixed(3)} m`);
    const block = recordedObject(e.state, e.stateDim, e.steps)!;
    const goal = recordedGoal(e.state, e.stateDim, e.steps)!;
    const off = Math.hypot(block[0]! - goal[0]!, block[1]! - goal[1]!);
    assert.ok(off < zoneRadius(1) - 0.015, `set down ${off.toFixed(3)} m from the zone's centre`);
  }
});
