/**
 * Scripted experts for every task family: phase logic (planners.ts) + damped-least-squares IK
 * on MuJoCo Jacobians (ikController.ts). Optional Gaussian action noise gives diverse demos; optional
 * deliberate misses (pick's grasp aimed off the block) give a world model fingers that close on nothing,
 * which an expert's demonstrations never show and a clone's failures mostly are.
 */
import type { RobotDescription } from '../../src/core/robotDescription.ts';
import { Rng } from '../../src/core/rng.ts';
import type { Action, Observation, TaskSpec } from '../../src/core/types.ts';
import { familyDef } from '../../src/tasks/families.ts';
import type { Controller } from '../../src/core/controller.ts';
import { ArmKinematics } from '../armKinematics.ts';
import { IkController } from './ikController.ts';
import { createPlanner, type Planner, type PlannerSlip } from './planners.ts';
import { readState } from './expertView.ts';

export interface ScriptedExpertOptions {
  robot: RobotDescription;
  /** Standard deviation of Gaussian noise added to the normalised arm actions (seeded per episode by reset). */
  noise?: number;
  /**
   * Share of pick episodes (drawn per episode, seeded by reset) whose grasp is aimed off the block, up to
   * MISS_OFFSET across and MISS_LIFT above it (a uniform share of that box): the fingers close beside or above it,
   * on its edge, or (near) on it, then lift. Place's planner grasps as pick's does: its misses close there too, at
   * every try.
   */
  miss?: number;
}

/** A missed grasp's largest offset from the block across (x and y each) and above it, metres. */
export const MISS_OFFSET = 0.06;
export const MISS_LIFT = 0.08;

export class ScriptedExpert implements Controller {
  /** `expert`, `expert:noise=0.5` with action noise, `expert:noise=0.5,miss=0.3` with misses (BC filters on both). */
  readonly name: string;
  #controller: IkController;
  #planner: Planner | undefined;
  #noise: number;
  #miss: number;
  #rng = new Rng(0);
  #t = 0;

  private constructor(controller: IkController, noise: number, miss: number) {
    this.#controller = controller;
    this.#noise = noise;
    this.#miss = miss;
    const parts = [...(noise > 0 ? [`noise=${noise}`] : []), ...(miss > 0 ? [`miss=${miss}`] : [])];
    this.name = parts.length > 0 ? `expert:${parts.join(',')}` : 'expert';
  }

  /** The arm's kinematics the expert plans with (what `wmrl collect` checks the families against). */
  get kinematics(): ArmKinematics {
    return this.#controller.kinematics;
  }

  static async create(options: ScriptedExpertOptions): Promise<ScriptedExpert> {
    const miss = options.miss ?? 0;
    if (!(miss >= 0 && miss <= 1)) throw new Error(`the expert's miss share must be in [0, 1], got ${miss}`);
    const kinematics = await ArmKinematics.create(options.robot);
    return new ScriptedExpert(new IkController(options.robot, kinematics), options.noise ?? 0, miss);
  }

  /** Start an episode; `seed` reseeds the action noise. */
  reset(task: TaskSpec, seed: number): void {
    const def = familyDef(task.family);
    const expert = def.scene?.expert;
    if (!expert) {
      throw new Error(
        `task family '${def.name}' names no scripted expert (scene.expert in ${def.file}): ` +
          'collect it with --policy random, or record demonstrations on a robot',
      );
    }
    this.#planner = createPlanner(expert, this.#slip(seed));
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

  /** This episode's miss, if it is one: its own generator, so the action noise is the same with or without. */
  #slip(seed: number): PlannerSlip | undefined {
    if (this.#miss === 0) return undefined;
    const rng = new Rng(seed ^ 0x3a55ed);
    if (rng.next() >= this.#miss) return undefined;
    // A uniform scale first: near misses (and a few grasps that hold) as often as wide ones.
    const scale = rng.next();
    const across = () => scale * rng.uniform(-MISS_OFFSET, MISS_OFFSET);
    return { graspOffset: [across(), across(), scale * rng.uniform(0, MISS_LIFT)] };
  }

  close(): void {
    this.#controller.kinematics.close();
  }
}
