/**
 * A step's groups (src/rl/step/trainStep.ts, drawGroups): G starts from the pool, and k of the G groups drawn as
 * anchors by a simple random sample — every group with probability k/G, every pair alike — which keeps the
 * corrections and the PPI estimate unbiased. Seeded: the same seed draws the same groups.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rng } from '../../src/core/rng.ts';
import { drawGroups } from '../../src/rl/step/trainStep.ts';

test('drawGroups: G pool indices, k anchors ascending, the rest imagined; the same seed, the same draw', () => {
  const d = drawGroups(11, 8, 100, 3);
  assert.equal(d.groupIdx.length, 8);
  assert.ok(d.groupIdx.every((i) => Number.isInteger(i) && i >= 0 && i < 100));
  assert.equal(d.anchorGroups.length, 3);
  assert.deepEqual(
    d.anchorGroups,
    [...d.anchorGroups].sort((a, b) => a - b),
  );
  assert.deepEqual([...d.anchorGroups, ...d.imaginedGroups].sort(), [0, 1, 2, 3, 4, 5, 6, 7].sort());
  assert.deepEqual(drawGroups(11, 8, 100, 3), d);
  assert.notDeepEqual(drawGroups(12, 8, 100, 3), d);
  // The draw a recorded run made: the pool indices, then the first k of a shuffle of the groups.
  const rng = new Rng(11);
  const groupIdx = Array.from({ length: 8 }, () => rng.int(100));
  const anchors = rng
    .shuffle([0, 1, 2, 3, 4, 5, 6, 7])
    .slice(0, 3)
    .sort((a, b) => a - b);
  assert.deepEqual([d.groupIdx, d.anchorGroups], [groupIdx, anchors]);
  // No anchors (a step between anchor steps), or all of them (real-only GRPO).
  assert.deepEqual(drawGroups(11, 8, 100, 0).anchorGroups, []);
  assert.deepEqual(drawGroups(11, 8, 100, 8).imaginedGroups, []);
});

test('drawGroups: the anchors are a simple random sample (chi-square over groups and over pairs)', () => {
  const G = 10;
  const k = 3;
  const trials = 20_000;
  const counts = new Array<number>(G).fill(0);
  const pairs = new Map<string, number>();
  for (let t = 0; t < trials; t++) {
    const { anchorGroups } = drawGroups(1000 + t, G, 50, k);
    for (const g of anchorGroups) counts[g]!++;
    for (let i = 0; i < k; i++)
      for (let j = i + 1; j < k; j++) {
        const key = `${anchorGroups[i]},${anchorGroups[j]}`;
        pairs.set(key, (pairs.get(key) ?? 0) + 1);
      }
  }
  // Each group: expected trials·k/G; chi-square with G − 1 = 9 degrees of freedom, 99.9% point 27.9.
  const expected = (trials * k) / G;
  const chi = counts.reduce((s, c) => s + (c - expected) ** 2 / expected, 0);
  assert.ok(chi < 27.9, `groups chi-square ${chi.toFixed(1)}`);
  // Each of the 45 pairs: expected trials·k(k−1)/(G(G−1)); 44 degrees of freedom, 99.9% point 78.7.
  const pairExpected = (trials * k * (k - 1)) / (G * (G - 1));
  assert.equal(pairs.size, (G * (G - 1)) / 2);
  const pairChi = [...pairs.values()].reduce((s, c) => s + (c - pairExpected) ** 2 / pairExpected, 0);
  assert.ok(pairChi < 78.7, `pairs chi-square ${pairChi.toFixed(1)}`);
});
