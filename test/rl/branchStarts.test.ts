/** Branched imagination's starts: real states of recorded rollouts, at steps they acted from. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rng } from '../../src/core/rng.ts';
import { branchStarts, concatStarts, stepsBeforeClose } from '../../src/rl/branchStarts.ts';
import { CONTEXT_DIM, familyOneHot } from '../../src/tasks/familyContext.ts';
import { makeTestEpisode } from '../helpers/episodes.ts';

test('branchStarts: each start is [qpos, qvel, state] of one episode at a step before its last, with its task', () => {
  const episodes = [
    makeTestEpisode({ seed: 1, steps: 6, qposDim: 3, stateDim: 4, family: 'reach' }),
    makeTestEpisode({ seed: 2, steps: 3, qposDim: 3, stateDim: 4, family: 'pick' }),
  ];
  const n = 200;
  const starts = branchStarts(episodes, n, new Rng(7));
  assert.equal(starts.stateDim, 10);
  assert.equal(starts.instructions.length, n);
  const seen = new Set<string>();
  for (let i = 0; i < n; i++) {
    const row = Array.from(starts.states.subarray(i * 10, (i + 1) * 10));
    // Find the episode and step it came from: exactly one must match.
    const matches: string[] = [];
    episodes.forEach((e, k) => {
      for (let t = 0; t <= e.steps; t++) {
        const expect = [
          ...e.qpos.subarray(t * 3, t * 3 + 3),
          ...e.qvel.subarray(t * 3, t * 3 + 3),
          ...e.state.subarray(t * 4, t * 4 + 4),
        ];
        if (expect.every((v, j) => v === row[j])) matches.push(`${k}:${t}`);
      }
    });
    assert.equal(matches.length, 1, `start ${i} is one recorded state`);
    const [k, t] = matches[0]!.split(':').map(Number) as [number, number];
    assert.ok(t < episodes[k]!.steps, 'never the final state: a branch acts from where the policy still acted');
    assert.equal(starts.instructions[i], episodes[k]!.task.instruction);
    assert.deepEqual(
      Array.from(starts.context.subarray(i * CONTEXT_DIM, (i + 1) * CONTEXT_DIM)),
      Array.from(familyOneHot(episodes[k]!.task.family)),
    );
    seen.add(matches[0]!);
  }
  assert.equal(seen.size, 6 + 3, 'every (episode, step) is drawn');
  // Seeded: the same draw again.
  assert.deepEqual(branchStarts(episodes, n, new Rng(7)), starts);
});

test('branchStarts beforeClose: starts no later than the step whose gripper command first closes', () => {
  const closing = makeTestEpisode({ seed: 4, steps: 8, qposDim: 2, stateDim: 1, actionDim: 3 });
  // Gripper (last dim) open, open, open, then closed from step 3 on: branches start at steps 0–3.
  closing.actions = Float32Array.from({ length: 8 * 3 }, (_, i) => (i % 3 === 2 ? (i >= 9 ? 1 : -1) : 0.1));
  assert.equal(stepsBeforeClose(closing), 4);
  const never = makeTestEpisode({ seed: 5, steps: 5, qposDim: 2, stateDim: 1, actionDim: 3 });
  never.actions = new Float32Array(5 * 3).fill(-1);
  assert.equal(stepsBeforeClose(never), 5, 'an episode that never closes: every step');
  const starts = branchStarts([closing], 100, new Rng(3), { beforeClose: true });
  const seen = new Set<number>();
  for (let i = 0; i < 100; i++) {
    const qpos0 = starts.states[i * 5]!;
    const t = [...Array(9).keys()].find((s) => closing.qpos[s * 2] === qpos0)!;
    seen.add(t);
  }
  assert.deepEqual([...seen].sort(), [0, 1, 2, 3]);
});

test('branchStarts: no episode with a step is a clear error; concatStarts keeps order and refuses mixed widths', () => {
  assert.throws(() => branchStarts([makeTestEpisode({ steps: 0 })], 1, new Rng(1)), /at least one real episode/);
  const a = branchStarts([makeTestEpisode({ seed: 3, steps: 2, qposDim: 2, stateDim: 1 })], 2, new Rng(1));
  const b = branchStarts(
    [makeTestEpisode({ seed: 4, steps: 2, qposDim: 2, stateDim: 1, family: 'push' })],
    1,
    new Rng(2),
  );
  const ab = concatStarts(a, b);
  assert.equal(ab.instructions.length, 3);
  assert.deepEqual(Array.from(ab.states.subarray(10)), Array.from(b.states));
  assert.deepEqual(Array.from(ab.context.subarray(2 * CONTEXT_DIM)), Array.from(b.context));
  assert.throws(
    () => concatStarts(a, branchStarts([makeTestEpisode({ steps: 2, qposDim: 3, stateDim: 1 })], 1, new Rng(1))),
    /state width/,
  );
});
