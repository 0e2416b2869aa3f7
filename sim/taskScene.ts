/**
 * Load a task's scene into the simulator: the layout comes from the task, seed and arm alone, so the
 * in-process env, the rosbridge sim server and the viewer all rebuild the same scene.
 */
import { Rng } from '../src/core/rng.ts';
import type { TaskSpec } from '../src/core/types.ts';
import { familyDef } from '../src/tasks/families.ts';
import { sampleLayout, type SceneLayout } from './layout.ts';
import type { Simulator } from './simulator.ts';
import { TaskProgress } from './taskProgress.ts';

export function loadTaskScene(
  sim: Simulator,
  task: TaskSpec,
  seed: number,
): { layout: SceneLayout; progress: TaskProgress } {
  const layout = sampleLayout(task, new Rng(seed), sim.layoutScale);
  sim.load(layout);
  return { layout, progress: new TaskProgress(familyDef(task.family), layout, sim) };
}
