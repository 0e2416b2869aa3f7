import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildWindows } from '../../src/worldmodel/transitionData.ts';
import { worldModelConfigSchema } from '../../src/worldmodel/worldModelConfig.ts';
import { resolveConfig } from '../../src/core/config.ts';
import { makeTestEpisode } from '../helpers/episodes.ts';

// A success (progress 0 → 1, success at its last step) and a near miss (progress 0 → 0.6, no success).
const episodes = [
  makeTestEpisode({ seed: 1, steps: 4, success: true, cameras: [] }),
  makeTestEpisode({ seed: 2, steps: 4, success: false, cameras: [] }),
];

/** The progress targets of each window's first transition, per episode. */
function firstTargets(label: 'task' | 'outcome'): number[][] {
  const w = buildWindows(episodes, 2, label);
  const out: number[][] = [[], []];
  for (let n = 0; n < w.count; n++) out[w.episode[n]!]!.push(w.progress[n * w.k]!);
  return out;
}

test("progress label 'task': each state's own task progress", () => {
  const [won, missed] = firstTargets('task');
  // The next state's progress, t + 1 of 4 steps: 0.25, 0.5, 0.75, 1 for the success, 0.6 of that for the miss.
  assert.deepEqual(won, [0.25, 0.5, 0.75, 1]);
  assert.deepEqual(
    missed!.map((p) => Math.round(p * 100) / 100),
    [0.15, 0.3, 0.45, 0.6],
  );
});

test("progress label 'outcome': every state is labelled with its episode's success (a Monte-Carlo value)", () => {
  const [won, missed] = firstTargets('outcome');
  assert.deepEqual(won, [1, 1, 1, 1]);
  // The near miss's late states looked 60% of the way there; as a value they are worth nothing.
  assert.deepEqual(missed, [0, 0, 0, 0]);
  // Steps past an episode's end stay masked out, as with task progress.
  const task = buildWindows(episodes, 2, 'task');
  const outcome = buildWindows(episodes, 2, 'outcome');
  assert.deepEqual([...outcome.mask], [...task.mask]);
  assert.deepEqual([...outcome.success], [...task.success]);
  assert.equal(outcome.progress[3 * outcome.k + 1], 0, 'the last window of the success has no second step: 0, masked');
  assert.equal(outcome.mask[3 * outcome.k + 1], 0);
});

test("the world-model config's progress label: 'task' unless asked, and nothing else accepted", () => {
  assert.equal(resolveConfig(worldModelConfigSchema, {}).progressLabel, 'task');
  const preset = resolveConfig(worldModelConfigSchema, { files: ['configs/wm/perception-outcome.yaml'] });
  assert.equal(preset.progressLabel, 'outcome');
  assert.equal(preset.scoreHead, 'scene', 'the preset keeps perception.yaml for everything else');
  assert.throws(
    () => resolveConfig(worldModelConfigSchema, { overrides: { progressLabel: 'value' } }),
    /progressLabel/,
  );
});
