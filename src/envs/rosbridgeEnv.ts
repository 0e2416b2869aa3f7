/**
 * A robot over rosbridge as an Env, built on roslib. Everything robot-specific comes from the
 * robot description: topics and message types, joint order (matched by name, since robots
 * publish joint states in any order), gripper range, cameras, control rate. It works the same
 * against `wmrl sim-server` and a real rosbridge_server in front of ros2_control.
 *
 * Each step: the normalised action becomes absolute joint targets (JointTargets, from the
 * measured joints), passes the client's safety filter, and goes out on the gripper and arm
 * command topics; the step then waits for the control period (scaled by `speed`) and for fresh
 * joint states and frames, and asks the task-status service for progress and success.
 *
 * Observation.state is the optional `ros.objectState` topic (object poses, e.g. motion capture
 * or the sim server); without it observations carry no state, as on most real robots.
 *
 * The episode aborts (EpisodeAbortedError, with its fault) on a dropped connection (noticed at
 * once, even mid-sleep), a robot that stops publishing, a failed or timed-out service call, and a
 * joint or object measurement that is not a finite number: nothing more is sent, and the next
 * reset waits for the reconnection. `waitForRobot` waits until the robot serves again.
 *
 * On each connection the client first settles the server's ROS dialect (rosbridgeDialect.ts):
 * the version, so type names go out in its spelling, and the ROS graph, so that a topic the
 * server would refuse or never serve is a RosbridgeSetupError at reset naming it, not a timeout.
 */
import type { Ros } from './rosbridgeRoslib.ts';
import { Topic } from './rosbridgeRoslib.ts';
import type { RobotDescription } from '../core/robotDescription.ts';
import type { Action, Image, Observation, StepResult, TaskSpec } from '../core/types.ts';
import { ArmKinematics } from '../../sim/armKinematics.ts';
import { familyDef } from '../tasks/families.ts';
import { episodeTicks } from '../tasks/familyDef.ts';
import { SafetyFilter } from '../safety/safetyFilter.ts';
import { type AbortFault, EpisodeAbortedError, type Env, type ResetOptions } from './env.ts';
import { JointTargets } from './jointTargets.ts';
import type { ConfirmReset } from './operatorReset.ts';
import {
  RosbridgeConnection,
  RosbridgeDisconnectedError,
  ServiceCallError,
  ServiceTimeoutError,
} from './rosbridgeConnection.ts';
import { decodeCompressedImage, decodeRawImage, fitImage } from './rosbridgeImages.ts';
import { float64MultiArray, isRecord, resetRequest, type TaskStatusReport } from '../ros/messages.ts';
import { rosTypeFor } from '../ros/rosTypes.ts';
import { negotiateDialect, topicProblems, wireType, type RosbridgeDialect, type TopicUse } from './rosbridgeDialect.ts';
import {
  BadMeasurementError,
  finiteMeasurement,
  measurementArray,
  readJointState,
  readTaskStatus,
  readTrigger,
} from './rosbridgeReaders.ts';

export interface RosbridgeEnvOptions {
  robot: RobotDescription;
  /** rosbridge server, e.g. ws://robot.local:9090 */
  url: string;
  /** Cameras to observe (default: the robot's first camera); frames are resized to the description's size. */
  cameras?: string[];
  /**
   * Pacing: a step lasts 1/controlHz/speed seconds of wall time. 1 for real robots; a sim server
   * run with --speed S takes S; Infinity steps as fast as the robot answers (lockstep sim servers).
   */
  speed?: number;
  /** Ask for camera topics in CBOR (bytes, no base64); joint states stay JSON. */
  compression?: 'none' | 'cbor';
  /** Use the description's objectState topic when it has one (default true). */
  objectState?: boolean;
  /** Keep the end effector in the description's workspace box (default true). */
  workspace?: boolean;
  /** How far a command may lead the measured position, in joint maxSteps (default 2). */
  maxStepFactor?: number;
  /** How long to wait for the robot: at the first connection, on reset and in waitForRobot (default 30 s). */
  connectTimeoutMs?: number;
  /** Largest wait between reconnection attempts (backoff doubles from 200 ms up to this; default 5 s). */
  maxBackoffMs?: number;
  serviceTimeoutMs?: number;
  resetTimeoutMs?: number;
  /** Longest wait for fresh joint states and frames after a command (default max(2 s, 10 periods)). */
  stepTimeoutMs?: number;
  /**
   * Robots without a reset service: a person sets the scene up and confirms (src/envs/operatorReset.ts);
   * the reset service is then never called. Absent: the description's reset service.
   */
  confirmReset?: ConfirmReset;
  /**
   * Ask the task-status service for progress and success (default true). False for robots without one:
   * progress stays 0, success false, an episode runs to the horizon, and its outcome comes from the
   * operator (config `--outcome operator`).
   */
  taskStatus?: boolean;
}

interface Latest {
  seq: number;
  msg: unknown;
}

/** Sleep `ms`, or less when `signal` aborts. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, Math.max(0, ms));
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** What one connection settled before subscribing: the dialect, and what it says will not work. */
interface ConnectionSetup {
  dialect: RosbridgeDialect;
  problems: string[];
}

/** The server cannot serve this robot as described (refused topics, wrong types, unknown ROS version). */
export class RosbridgeSetupError extends Error {
  override name = 'RosbridgeSetupError';
}

export class RosbridgeEnv implements Env {
  readonly robot: RobotDescription;
  readonly source = 'rosbridge' as const;
  readonly cameras: string[];
  readonly url: string;
  readonly speed: number;
  readonly filter: SafetyFilter;
  #conn: RosbridgeConnection;
  #kinematics: ArmKinematics | undefined;
  #options: RosbridgeEnvOptions;
  /** Topics read for an observation: joint states, cameras, object state. */
  #observed: string[];
  #latest = new Map<string, Latest>();
  #seq = 0;
  #arrival = new Set<() => void>();
  #publishers: { arm: Topic<unknown>; gripper: Topic<unknown> } | undefined;
  #task: TaskSpec | undefined;
  #targets: JointTargets | undefined;
  #measuredArm = new Float64Array(0);
  #measuredGripper = 0;
  #status: TaskStatusReport = { progress: 0, success: false };
  #lastCommand: { arm: Float64Array; gripper: number } | undefined;
  #deadline = 0;
  #resetSeconds = 0;
  #t = 0;
  #done = true;
  /** Set when the connection drops during an episode (why it dropped); the episode cannot go on. */
  #lostReason: string | undefined;
  /** The current connection's setup, settled asynchronously after it comes up. */
  #setup: Promise<ConnectionSetup> | undefined;
  #version: RosbridgeDialect['version'] | undefined;
  /** Topic → why the server refused its subscription or advertisement (status ops, this connection). */
  #refusals = new Map<string, string>();

  private constructor(options: RosbridgeEnvOptions, kinematics: ArmKinematics | undefined) {
    const robot = options.robot;
    this.robot = robot;
    this.#options = options;
    this.url = options.url;
    this.speed = options.speed ?? 1;
    if (!(this.speed > 0)) throw new Error(`speed must be > 0 (Infinity for lockstep servers), got ${this.speed}`);
    const known = robot.cameras.map((c) => c.name);
    this.cameras = options.cameras ?? [known[0]!];
    for (const c of this.cameras) {
      if (!known.includes(c))
        throw new Error(`robot '${robot.name}' has no camera '${c}'; cameras: ${known.join(', ')}`);
      if (!robot.ros.images[c]) throw new Error(`robot '${robot.name}': camera '${c}' has no topic under ros.images`);
    }
    const objectState = (options.objectState ?? true) ? robot.ros.objectState?.topic : undefined;
    this.#observed = [
      robot.ros.jointStates.topic,
      ...this.cameras.map((c) => robot.ros.images[c]!.topic),
      ...(objectState ? [objectState] : []),
    ];
    this.#kinematics = kinematics;
    this.filter = new SafetyFilter({
      robot,
      maxStepFactor: options.maxStepFactor,
      workspace: kinematics
        ? { min: robot.workspace.min, max: robot.workspace.max, endEffector: (q) => kinematics.pose(q).pos }
        : undefined,
    });
    this.#conn = new RosbridgeConnection({
      url: options.url,
      onConnect: (ros) => this.#setUp(ros),
      onDisconnect: (reason) => this.#onDisconnect(reason),
      maxBackoffMs: options.maxBackoffMs,
    });
  }

  /** Connect (waiting up to connectTimeoutMs for the robot) and subscribe. */
  static async create(options: RosbridgeEnvOptions): Promise<RosbridgeEnv> {
    const kinematics = (options.workspace ?? true) ? await ArmKinematics.create(options.robot) : undefined;
    let env: RosbridgeEnv;
    try {
      env = new RosbridgeEnv(options, kinematics);
    } catch (err) {
      kinematics?.close();
      throw err;
    }
    try {
      await env.#conn.waitConnected(options.connectTimeoutMs ?? 30_000);
    } catch (err) {
      await env.close();
      throw err;
    }
    return env;
  }

  get horizon(): number {
    if (!this.#task) throw new Error('call reset() first');
    return episodeTicks(familyDef(this.#task.family), this.robot.controlHz);
  }

  get connected(): boolean {
    return this.#conn.connected;
  }

  /** The last command sent (after safety filtering), for logs and tests. */
  get lastCommand(): { arm: Float64Array; gripper: number } | undefined {
    return this.#lastCommand;
  }

  /** Wall seconds the last reset took, the operator's set-up included (the scheduler counts it). */
  get lastResetSeconds(): number {
    return this.#resetSeconds;
  }

  /** Progress and success as of the last reset or step. */
  status(): TaskStatusReport {
    return this.#status;
  }

  async reset({ task, seed }: ResetOptions): Promise<Observation> {
    this.#done = true;
    this.#lostReason = undefined;
    const o = this.#options;
    await this.#conn.waitConnected(o.connectTimeoutMs ?? 30_000);
    this.#checkSetup(await this.#call(() => this.#setup!));
    const started = performance.now();
    if (o.confirmReset) await this.#operatorReset(o.confirmReset, task, seed);
    else await this.#serviceReset(task, seed);
    this.#resetSeconds = (performance.now() - started) / 1000;
    const observation = this.#observe(task);
    this.#status = await this.#queryStatus();
    this.#task = task;
    // Start from where the arm is (a real robot's reset leaves it near, not at, home).
    this.#targets = new JointTargets(this.robot, this.#measuredArm, this.#measuredGripper);
    this.#lastCommand = undefined;
    this.#t = 0;
    this.#deadline = performance.now();
    this.#done = false;
    return observation;
  }

  async #serviceReset(task: TaskSpec, seed: number): Promise<void> {
    const o = this.#options;
    // Fresh means after the reply: a message sent before the robot handled the reset (rosbridge_suite
    // 0.11 sets up a service connection per call while the arm keeps publishing) shows the old pose.
    let mark = this.#seq;
    const services = this.robot.ros.services;
    const reply = readTrigger(
      await this.#call(() =>
        this.#conn.call(
          services.reset.name,
          this.#serviceType(services.reset.type),
          resetRequest(task, seed),
          o.resetTimeoutMs ?? 60_000,
          () => {
            mark = this.#seq;
          },
        ),
      ),
      services.reset.name,
    );
    if (!reply.success) throw new Error(`robot refused the reset (${services.reset.name}): ${reply.message}`);
    await this.#waitFresh(mark);
  }

  /**
   * The operator sets the scene up; the episode's start is the first observation after the
   * confirmation (fresh messages only: nothing seen while the person's hands were in the scene).
   */
  async #operatorReset(confirm: ConfirmReset, task: TaskSpec, seed: number): Promise<void> {
    await confirm({ robot: this.robot.name, task, seed });
    this.#checkAlive();
    await this.#waitFresh(this.#seq);
  }

  async step(action: Action): Promise<StepResult> {
    if (!this.#targets || !this.#task) throw new Error('call reset() before step()');
    if (this.#done) throw new Error('episode is done: call reset()');
    this.#checkAlive();
    const wanted = this.#targets.apply(action, this.#measuredArm);
    const safe = this.filter.filter(wanted.arm, wanted.gripper, this.#measuredArm);
    const mark = this.#seq;
    this.#send(safe.arm, safe.gripper);
    if (Number.isFinite(this.speed)) {
      const period = 1000 / this.robot.controlHz / this.speed;
      this.#deadline += period;
      const now = performance.now();
      // Running late (a slow policy): start counting again from now rather than rushing.
      if (this.#deadline < now - period) this.#deadline = now;
      if (this.#deadline > now) await this.#pause(this.#deadline - now);
      this.#checkAlive();
    }
    await this.#waitFresh(mark);
    const observation = this.#observe(this.#task);
    this.#status = await this.#queryStatus();
    this.#t++;
    this.#done = this.#status.success || this.#t >= this.horizon;
    return { observation, reward: this.#status.progress, success: this.#status.success, done: this.#done };
  }

  /**
   * Wait until the robot serves again after an abort: connected, and its task-status service
   * answers (lockstep robots publish only when commanded, so that is the one sign of life asked
   * for). Rejects after `timeoutMs` (default connectTimeoutMs) with the last failure; returns early
   * when `signal` aborts.
   */
  async waitForRobot(options: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<void> {
    const timeoutMs = options.timeoutMs ?? this.#options.connectTimeoutMs ?? 30_000;
    const deadline = performance.now() + timeoutMs;
    const s = this.robot.ros.services.taskStatus;
    let last = 'no answer yet';
    for (let backoff = 200; !options.signal?.aborted; backoff = Math.min(2000, 2 * backoff)) {
      const left = deadline - performance.now();
      if (left <= 0) break;
      try {
        // Short waits, so that `signal` is looked at while the robot is away.
        await this.#conn.waitConnected(Math.min(left, 500));
      } catch {
        last = `not connected (${this.#conn.lastError})`;
        continue;
      }
      try {
        // The connection's dialect first, so the call goes out in the server's spelling.
        await this.#setup;
        // Without a task-status service, a settled connection is the sign of life there is.
        if (this.#options.taskStatus === false) return;
        await this.#conn.call(
          s.name,
          this.#serviceType(s.type),
          {},
          Math.min(left, this.#options.serviceTimeoutMs ?? 5000),
        );
        return;
      } catch (err) {
        last = (err as Error).message;
      }
      await sleep(Math.min(backoff, deadline - performance.now()), options.signal);
    }
    if (options.signal?.aborted) return;
    throw new Error(
      `the robot at ${this.url} did not answer again within ${(timeoutMs / 1000).toFixed(1)} s (last: ${last})`,
    );
  }

  async close(): Promise<void> {
    this.#done = true;
    this.#conn.close();
    this.#kinematics?.close();
    this.#kinematics = undefined;
  }

  #setUp(ros: Ros): void {
    this.#refusals.clear();
    this.#version = undefined;
    const setup = this.#prepare(ros);
    setup.catch(() => undefined); // Awaited (and reported) by the next reset.
    this.#setup = setup;
  }

  /** Settle the dialect, then subscribe and advertise in its spelling. */
  async #prepare(ros: Ros): Promise<ConnectionSetup> {
    const r = this.robot.ros;
    const timeoutMs = this.#options.serviceTimeoutMs ?? 5000;
    const dialect = await negotiateDialect(
      (service, args) => this.#conn.call(service, '', args, timeoutMs),
      r.version,
      this.url,
    );
    if (this.#conn.ros !== ros) throw new RosbridgeDisconnectedError(`lost the connection to ${this.url}`);
    this.#version = dialect.version;
    const uses: TopicUse[] = [
      ...this.#observed.map((topic) => ({ topic, type: this.#typeOf(topic), role: 'subscribe' as const })),
      { topic: r.command.topic, type: r.command.type, role: 'advertise' },
      { topic: r.gripperCommand.topic, type: r.gripperCommand.type, role: 'advertise' },
    ];
    const problems = topicProblems(dialect, uses);
    this.#subscribe(ros, dialect);
    return { dialect, problems };
  }

  #typeOf(topic: string): string {
    const r = this.robot.ros;
    const all = [r.jointStates, ...Object.values(r.images), ...(r.objectState ? [r.objectState] : [])];
    return all.find((t) => t.topic === topic)!.type;
  }

  #serviceType(type: string): string {
    return this.#version === undefined ? type : rosTypeFor(type, this.#version, 'srv');
  }

  #subscribe(ros: Ros, dialect: RosbridgeDialect): void {
    const r = this.robot.ros;
    const compression = this.#options.compression ?? 'none';
    for (const topic of this.#observed) {
      const isImage = Object.values(r.images).some((t) => t.topic === topic);
      const sub = new Topic<unknown>({
        ros,
        name: topic,
        messageType: wireType(this.#typeOf(topic), dialect.version),
        compression: isImage ? compression : 'none',
        reconnect_on_close: false,
        queue_length: 1,
      });
      sub.subscribe((msg) => {
        if (this.#conn.ros !== ros) return;
        this.#latest.set(topic, { seq: ++this.#seq, msg });
        for (const wake of [...this.#arrival]) wake();
      });
      this.#listenForRefusal(ros, topic, sub.subscribeId);
    }
    const arm = new Topic<unknown>({
      ros,
      name: r.command.topic,
      messageType: wireType(r.command.type, dialect.version),
      reconnect_on_close: false,
    });
    const gripper = new Topic<unknown>({
      ros,
      name: r.gripperCommand.topic,
      messageType: wireType(r.gripperCommand.type, dialect.version),
      reconnect_on_close: false,
    });
    arm.advertise();
    gripper.advertise();
    this.#listenForRefusal(ros, r.command.topic, arm.advertiseId);
    this.#listenForRefusal(ros, r.gripperCommand.topic, gripper.advertiseId);
    this.#publishers = { arm, gripper };
  }

  /** A status op about a subscription or advertisement is a refusal (servers that send them say why). */
  #listenForRefusal(ros: Ros, topic: string, id: string | null | undefined): void {
    if (!id) return;
    ros.on(`status:${id}`, (m) => {
      const status = m as { level?: unknown; msg?: unknown };
      if (this.#conn.ros !== ros || (status.level !== 'error' && status.level !== 'warning')) return;
      this.#refusals.set(topic, `rosbridge answered ${status.level}: ${String(status.msg)}`);
      for (const wake of [...this.#arrival]) wake();
    });
  }

  /** Throw what makes this connection unable to serve the robot, if anything. */
  #checkSetup(setup: ConnectionSetup): void {
    const refused = [...this.#refusals].map(([topic, why]) => `${topic}: ${why}`);
    const problems = [...setup.problems, ...refused];
    if (problems.length === 0) return;
    this.#done = true;
    const d = setup.dialect;
    throw new RosbridgeSetupError(
      `rosbridge at ${this.url} (ROS ${d.version}, from ${d.source}) cannot serve robot '${this.robot.name}' ` +
        `as described:\n${problems.map((p) => `  - ${p}`).join('\n')}`,
    );
  }

  #onDisconnect(reason: string): void {
    this.#publishers = undefined;
    // Old messages describe a robot we no longer see: never build an observation from them.
    this.#latest.clear();
    if (!this.#done) this.#lostReason = reason;
    for (const wake of [...this.#arrival]) wake();
  }

  /** Why the connection is gone (undefined while it is up). */
  #lost(): string | undefined {
    return this.#lostReason ?? (this.#conn.connected ? undefined : 'not connected');
  }

  #checkAlive(): void {
    const lost = this.#lost();
    if (lost !== undefined) throw this.#abortError(`lost the connection to the robot (${lost})`, 'connection-lost');
  }

  /** Sleep `ms`, waking at once when the connection drops (the caller checks which). */
  #pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        if (this.#lost() !== undefined) done();
      };
      const done = () => {
        clearTimeout(timer);
        this.#arrival.delete(wake);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#arrival.add(wake);
    });
  }

  /** Gripper first: under lockstep the arm command is the one that makes the robot tick. */
  #send(arm: Float64Array, gripper: number): void {
    const pubs = this.#publishers;
    if (!pubs || !this.#conn.connected)
      throw this.#abortError('lost the connection to the robot before the command was sent', 'connection-lost');
    pubs.gripper.publish(float64MultiArray([gripper]));
    pubs.arm.publish(float64MultiArray(arm));
    this.#lastCommand = { arm: Float64Array.from(arm), gripper };
  }

  /** Wait until every observed topic has a message newer than `mark`. */
  async #waitFresh(mark: number): Promise<void> {
    const fresh = () => this.#observed.every((t) => (this.#latest.get(t)?.seq ?? -1) > mark);
    this.#checkAlive();
    if (fresh()) return;
    const timeoutMs = this.#options.stepTimeoutMs ?? Math.max(2000, 10_000 / this.robot.controlHz);
    const errorsBefore = this.#conn.errors;
    await new Promise<void>((resolve, reject) => {
      const wake = () => {
        const lost = this.#lost();
        const refused = this.#observed.filter((t) => this.#refusals.has(t));
        if (lost !== undefined) {
          finish();
          reject(this.#abortError(`lost the connection to the robot (${lost})`, 'connection-lost'));
        } else if (refused.length > 0) {
          finish();
          this.#done = true;
          reject(
            new RosbridgeSetupError(
              `rosbridge at ${this.url} refused ${refused.map((t) => `${t} (${this.#refusals.get(t)})`).join(', ')}`,
            ),
          );
        } else if (fresh()) {
          finish();
          resolve();
        }
      };
      const finish = () => {
        clearTimeout(timer);
        this.#arrival.delete(wake);
      };
      const timer = setTimeout(() => {
        finish();
        const missing = this.#observed.filter((t) => (this.#latest.get(t)?.seq ?? -1) <= mark);
        // A message roslib could not decode is dropped with an 'error' (e.g. a bare NaN literal in the JSON).
        const undecoded =
          this.#conn.errors > errorsBefore ? `; meanwhile the rosbridge client reported: ${this.#conn.lastError}` : '';
        const wait = `${(timeoutMs / 1000).toFixed(1)} s`;
        reject(
          this.#abortError(
            `the robot went silent: no fresh message on ${missing.join(', ')} within ${wait}` +
              `${this.#neverArrivedHint(missing)}${undecoded}`,
            'robot-silent',
          ),
        );
      }, timeoutMs);
      this.#arrival.add(wake);
      wake(); // A refusal may have come in before this wait began.
    });
  }

  /** For topics that never delivered on this connection: rosbridge_suite refuses subscriptions silently. */
  #neverArrivedHint(missing: string[]): string {
    const never = missing.filter((t) => !this.#latest.has(t));
    if (never.length === 0 || this.#version === undefined) return '';
    const sent = never.map((t) => `${t} as ${wireType(this.#typeOf(t), this.#version!)}`).join(', ');
    return (
      ` (subscribed to ${sent} on a ROS ${this.#version} rosbridge, which never delivered; ` +
      'rosbridge does not tell clients about refused subscriptions: its log says why)'
    );
  }

  #abortError(reason: string, fault: AbortFault): EpisodeAbortedError {
    this.#done = true;
    this.#lostReason = undefined;
    return new EpisodeAbortedError(
      `episode aborted: ${reason} (rosbridge ${this.url}); ` +
        `nothing more was sent and the episode is never stored as complete`,
      fault,
    );
  }

  /**
   * A service call that fails because the link is down, times out, or that rosbridge answers
   * `result: false` (e.g. "Unable to communicate with service": the robot's node is gone) aborts
   * the episode; a reply of the wrong shape is an error.
   */
  async #call<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      if (err instanceof RosbridgeDisconnectedError) throw this.#abortError(err.message, 'connection-lost');
      if (err instanceof ServiceTimeoutError || err instanceof ServiceCallError)
        throw this.#abortError(err.message, 'service-failed');
      throw err;
    }
  }

  async #queryStatus(): Promise<TaskStatusReport> {
    if (this.#options.taskStatus === false) return { progress: 0, success: false };
    const s = this.robot.ros.services.taskStatus;
    const values = await this.#call(() =>
      this.#conn.call(s.name, this.#serviceType(s.type), {}, this.#options.serviceTimeoutMs ?? 5000),
    );
    return readTaskStatus(values, s.name);
  }

  /** The observation from the latest messages; a non-finite measurement aborts the episode, naming it. */
  #observe(task: TaskSpec): Observation {
    try {
      return this.#observeMessages(task);
    } catch (err) {
      if (err instanceof BadMeasurementError) throw this.#abortError(err.message, 'bad-value');
      throw err;
    }
  }

  #observeMessages(task: TaskSpec): Observation {
    const r = this.robot.ros;
    const topic = r.jointStates.topic;
    const joints = readJointState(this.#latest.get(topic)!.msg, topic);
    const armJoints = this.robot.arm.joints;
    const finger = this.robot.gripper.joints[0]!;
    const n = armJoints.length;
    const qpos = new Float32Array(n + 1);
    const qvel = new Float32Array(n + 1);
    const measured = new Float64Array(n);
    const read = (name: string) => {
      const reading = joints.get(name);
      if (!reading) {
        const has = [...joints.keys()].join(', ');
        throw new Error(`${topic} has no joint '${name}' (it has ${has}); check the robot description`);
      }
      return {
        position: finiteMeasurement(reading.position, topic, `joint '${name}' position`),
        velocity: finiteMeasurement(reading.velocity, topic, `joint '${name}' velocity`),
      };
    };
    armJoints.forEach((j, i) => {
      const reading = read(j.name);
      measured[i] = reading.position;
      qpos[i] = reading.position;
      qvel[i] = reading.velocity;
    });
    const grip = read(finger);
    const g = this.robot.gripper;
    // Gripper as opening in [0, 1] (1 = open), the same scale as the simulator's observations.
    qpos[n] = (grip.position - g.closed) / (g.open - g.closed);
    qvel[n] = grip.velocity / (g.open - g.closed);
    const images: Record<string, Image> = {};
    for (const cam of this.cameras) {
      const t = r.images[cam]!;
      const msg = this.#latest.get(t.topic)!.msg;
      const frame = t.type.endsWith('CompressedImage')
        ? decodeCompressedImage(msg, t.topic)
        : decodeRawImage(msg, t.topic);
      const size = this.robot.cameras.find((c) => c.name === cam)!;
      images[cam] = fitImage(frame, size.width, size.height);
    }
    const observation: Observation = { images, qpos, qvel, instruction: task.instruction };
    const stateTopic = this.#observed.find((t) => t === r.objectState?.topic);
    if (stateTopic) {
      const msg = this.#latest.get(stateTopic)!.msg;
      const values = measurementArray(isRecord(msg) ? msg.data : undefined, `${stateTopic}.data`);
      observation.state = Float32Array.from(values, (v, i) => finiteMeasurement(v, stateTopic, `value [${i}]`));
    }
    // Measured only once the whole observation is good: a bad one leaves the previous targets' base.
    this.#measuredArm = measured;
    this.#measuredGripper = grip.position;
    return observation;
  }
}
