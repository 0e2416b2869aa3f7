/**
 * The simulated arm behind the sim server, behaving like a robot under ros2_control: it keeps
 * the latest position command, and every control tick passes it through its own safety filter
 * (independent of the client's), holds position when the command watchdog expires, and steps.
 */
import type { RobotDescription } from '../../src/core/robotDescription.ts';
import type { Image, TaskSpec } from '../../src/core/types.ts';
import { CommandWatchdog } from '../../src/safety/commandWatchdog.ts';
import { SafetyFilter, UnsafeCommandError, type FilteredCommand } from '../../src/safety/safetyFilter.ts';
import { privilegedState } from '../privilegedState.ts';
import { loadTaskScene } from '../taskScene.ts';
import { Simulator } from '../simulator.ts';
import type { TaskProgress, TaskStatus } from '../taskProgress.ts';

export interface SimRobotOptions {
  robot: RobotDescription;
  /** Ticks a command stays in force without a new one before the arm holds. */
  watchdogTicks: number;
  /** How far a command may lead the measured position, in joint maxSteps. */
  maxStepFactor?: number;
}

export class SimRobot {
  readonly robot: RobotDescription;
  readonly sim: Simulator;
  readonly filter: SafetyFilter;
  readonly watchdog: CommandWatchdog;
  #progress: TaskProgress | undefined;
  #task: TaskSpec | undefined;
  #armCommand: Float64Array | undefined;
  #gripperCommand: number;
  /** Targets while the watchdog holds (the arm where it was when silence began). */
  #hold: Float64Array | undefined;
  /** What the arm was last told, after filtering and the watchdog. */
  #applied: { arm: Float64Array; gripper: number; clipped: FilteredCommand['clipped'] };
  #ticks = 0;

  private constructor(sim: Simulator, options: SimRobotOptions) {
    this.sim = sim;
    this.robot = options.robot;
    this.filter = new SafetyFilter({ robot: options.robot, maxStepFactor: options.maxStepFactor });
    this.watchdog = new CommandWatchdog(options.watchdogTicks);
    this.#gripperCommand = options.robot.gripper.open;
    this.#applied = { arm: Float64Array.from(options.robot.arm.home), gripper: this.#gripperCommand, clipped: [] };
  }

  static async create(options: SimRobotOptions): Promise<SimRobot> {
    return new SimRobot(await Simulator.create({ robot: options.robot }), options);
  }

  get task(): TaskSpec | undefined {
    return this.#task;
  }

  /** Control ticks since the server started (across resets): the robot's clock. */
  get ticks(): number {
    return this.#ticks;
  }

  get holding(): boolean {
    return this.#hold !== undefined;
  }

  get applied(): { arm: Float64Array; gripper: number; clipped: FilteredCommand['clipped'] } {
    return this.#applied;
  }

  /** Load the task's scene for `seed`: arm at home, gripper open, no command (holding). */
  reset(task: TaskSpec, seed: number): void {
    this.#progress = loadTaskScene(this.sim, task, seed).progress;
    this.#task = task;
    this.#armCommand = undefined;
    this.#gripperCommand = this.robot.gripper.open;
    this.#hold = Float64Array.from(this.robot.arm.home);
    this.#applied = { arm: Float64Array.from(this.robot.arm.home), gripper: this.#gripperCommand, clipped: [] };
    this.watchdog.clear();
  }

  /**
   * A position command for the arm joints (description order). A
   * non-finite or misshaped one is refused; the last safe command stays.
   */
  commandArm(values: ArrayLike<number>): void {
    // Check now so a refused command never displaces the last good one.
    this.filter.filter(values, this.#gripperCommand, this.sim.armQpos());
    this.#armCommand = Float64Array.from(values);
    this.#hold = undefined;
    this.watchdog.feed();
  }

  commandGripper(values: ArrayLike<number>): void {
    if (values.length !== 1)
      throw new UnsafeCommandError(`gripper command has ${values.length} values; expected 1 (finger position)`);
    if (!Number.isFinite(values[0])) throw new UnsafeCommandError(`gripper command is ${values[0]}: refused`);
    this.#gripperCommand = values[0]!;
  }

  /** One control tick: filter the command against the arm's state now (or hold), then step. */
  tick(): void {
    const measured = this.sim.armQpos();
    const expired = this.watchdog.tick();
    if (expired || !this.#armCommand) this.#hold ??= measured;
    const wanted = this.#hold ?? this.#armCommand!;
    const filtered = this.filter.filter(wanted, this.#gripperCommand, measured);
    this.#applied = filtered;
    this.sim.tick(filtered.arm, filtered.gripper);
    this.#ticks++;
  }

  status(): TaskStatus {
    if (!this.#progress) throw new Error('no task loaded');
    return this.#progress.status(this.sim);
  }

  /** Positions and velocities of the arm joints and the first finger joint, in that order. */
  jointState(): { names: string[]; position: number[]; velocity: number[] } {
    const grip = this.sim.gripperState();
    return {
      names: [...this.robot.arm.joints.map((j) => j.name), this.robot.gripper.joints[0]!],
      position: [...this.sim.armQpos(), grip.position],
      velocity: [...this.sim.armQvel(), grip.velocity],
    };
  }

  objectState(): Float32Array {
    if (!this.#progress) throw new Error('no task loaded');
    return privilegedState(this.sim, this.#progress);
  }

  render(camera: string): Image {
    return this.sim.render(camera);
  }

  close(): void {
    this.sim.close();
  }
}
