/**
 * Scripted experts for every task family: phase logic (planners.ts) + damped-least-squares IK
 * on MuJoCo Jacobians (ikController.ts). Optional Gaussian action noise gives diverse demos.
 */
import type { RobotDescription } from '../../src/core/robotDescription.ts';
import { Rng } from '../../src/core/rng.ts';
import type { Action, Observation, TaskSpec } from '../../src/core/types.ts';
import { taskFamily } from '../../src/tasks/families.ts';
import type { Controller } from '../../src/core/controller.ts';
import { ArmKinematics } from '../armKinematics.ts';
import { IkController } from './ikController.ts';
import { createPlanner, type Planner } from './planners.ts';
import { readState } from './expertView.ts';

export interface ScriptedExpertOptions {
  robot: RobotDescription;
  /** Standard deviation of Gaussian noise added to the normalised arm actions (seeded per episode by reset). */
  noise?: number;
}

export class ScriptedExpert implements Controller {
  /** `expert`, or `expert:noise=0.5` when recorded with action noise (BC filters on it). */
  readonly name: string;
  #controller: IkController;
  #planner: Planner | undefined;
  #noise: number;
  #rng = new Rng(0);
  #t = 0;

  private constructor(controller: IkController, noise: number) {
    this.#controller = controller;
    this.#noise = noise;
    this.name = noise > 0 ? `expert:noise=${noise}` : 'expert';
  }

  static async create(options: ScriptedExpertOptions): Promise<ScriptedExpert> {
    const kinematics = await ArmKinematics.create(options.robot);
    return new ScriptedExpert(new IkController(options.robot, kinematics), options.noise ?? 0);
  }

  /** Start an episode; `seed` reseeds the action noise. */
  reset(task: TaskSpec, seed: number): void {
    this.#planner = createPlanner(taskFamily(task.family));
    this.#rng = new Rng(seed ^ 0xe4be47);
    this.#t = 0;
  }

  act(observation: Observation): Action {
    if (!this.#planner) throw new Error('call reset(family) before act()');
    const nArm = this.#controller.kinematics.nArm;
    const state = readState(observation, nArm);
    const ee = this.#controller.endEffector(state.q).pos;
    const target = this.#planner.next({ ...state, t: this.#t++, ee });
    const action = this.#controller.act(state.q, target);
    if (this.#noise > 0)
      for (let i = 0; i < nArm; i++)
        action[i] = Math.max(-1, Math.min(1, action[i]! + this.#noise * this.#rng.normal()));
    return action;
  }

  close(): void {
    this.#controller.kinematics.close();
  }
}
