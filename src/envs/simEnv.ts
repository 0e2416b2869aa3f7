/**
 * The in-process MuJoCo simulator as an Env. Same task + seed ⇒ bit-identical episode.
 */
import type { RobotDescription } from '../core/robotDescription.ts';
import type { Action, Observation, StepResult, TaskSpec } from '../core/types.ts';
import { Simulator } from '../../sim/simulator.ts';
import type { SceneLayout } from '../../sim/layout.ts';
import { privilegedState } from '../../sim/privilegedState.ts';
import { loadTaskScene } from '../../sim/taskScene.ts';
import type { TaskProgress } from '../../sim/taskProgress.ts';
import { familyDef } from '../tasks/families.ts';
import { episodeTicks } from '../tasks/familyDef.ts';
import type { Env, ResetOptions } from './env.ts';
import { JointTargets } from './jointTargets.ts';

export interface SimEnvOptions {
  robot: RobotDescription;
  /** Cameras to render into observations (default: the first camera of the robot). */
  cameras?: string[];
}

export class SimEnv implements Env {
  readonly robot: RobotDescription;
  readonly source = 'sim' as const;
  readonly cameras: string[];
  #sim: Simulator;
  #task: TaskSpec | undefined;
  #layout: SceneLayout | undefined;
  #progress: TaskProgress | undefined;
  #targets: JointTargets | undefined;
  #t = 0;
  #done = true;

  private constructor(sim: Simulator, cameras: string[]) {
    this.#sim = sim;
    this.robot = sim.robot;
    this.cameras = cameras;
  }

  static async create(options: SimEnvOptions): Promise<SimEnv> {
    const known = options.robot.cameras.map((c) => c.name);
    const cameras = options.cameras ?? [known[0]!];
    for (const c of cameras)
      if (!known.includes(c))
        throw new Error(`robot '${options.robot.name}' has no camera '${c}'; cameras: ${known.join(', ')}`);
    return new SimEnv(await Simulator.create({ robot: options.robot }), cameras);
  }

  get horizon(): number {
    if (!this.#task) throw new Error('call reset() first');
    return episodeTicks(familyDef(this.#task.family), this.robot.controlHz);
  }

  /** The underlying simulator, for experts and tools that need privileged access. */
  get simulator(): Simulator {
    return this.#sim;
  }

  get layout(): SceneLayout | undefined {
    return this.#layout;
  }

  async reset({ task, seed }: ResetOptions): Promise<Observation> {
    this.#task = task;
    ({ layout: this.#layout, progress: this.#progress } = loadTaskScene(this.#sim, task, seed));
    this.#targets = new JointTargets(this.robot, this.robot.arm.home, this.robot.gripper.open);
    this.#t = 0;
    this.#done = false;
    return this.#observe();
  }

  async step(action: Action): Promise<StepResult> {
    if (!this.#targets || !this.#progress) throw new Error('call reset() before step()');
    if (this.#done) throw new Error('episode is done: call reset()');
    const { arm, gripper } = this.#targets.apply(action, this.#sim.armQpos());
    this.#sim.tick(arm, gripper);
    this.#t++;
    const status = this.#progress.status(this.#sim);
    this.#done = status.success || this.#t >= this.horizon;
    return { observation: this.#observe(), reward: status.progress, success: status.success, done: this.#done };
  }

  /** Progress and success of the current state (e.g. at reset). */
  status(): { progress: number; success: boolean } {
    if (!this.#progress) throw new Error('call reset() first');
    return this.#progress.status(this.#sim);
  }

  async close(): Promise<void> {
    this.#sim.close();
  }

  #observe(): Observation {
    const sim = this.#sim;
    const g = this.robot.gripper;
    const grip = sim.gripperState();
    const qpos = new Float32Array(this.robot.arm.joints.length + 1);
    const qvel = new Float32Array(qpos.length);
    qpos.set(sim.armQpos());
    qvel.set(sim.armQvel());
    // Gripper as opening in [0, 1] (1 = open), so policies see the same scale on every robot.
    qpos[qpos.length - 1] = (grip.position - g.closed) / (g.open - g.closed);
    qvel[qvel.length - 1] = grip.velocity / (g.open - g.closed);
    const state = privilegedState(sim, this.#progress!);
    const images: Observation['images'] = {};
    for (const cam of this.cameras) images[cam] = sim.render(cam);
    return { images, qpos, qvel, state, instruction: this.#task!.instruction };
  }
}
