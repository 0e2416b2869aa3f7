/**
 * The simulator as a rosbridge robot: a websocket server speaking the rosbridge v2 protocol
 * (JSON; CBOR per subscription) that looks like a ROS 2 arm under ros2_control — or, with
 * `ros: 1`, like a ROS 1 robot behind rosbridge_suite 0.11 (dialect.ts). It publishes joint
 * states, camera frames and (optionally) object state, takes position commands, and offers reset
 * and task-status services — all named by the robot description's `ros` section — plus the
 * rosapi services a client uses to learn the dialect (rosapi.ts).
 *
 * The robot runs whether or not anyone commands it: every control tick (paced in real time,
 * times `speed`) it applies the latest command through its own safety filter, or holds when
 * the watchdog expires. In `lockstep` mode it instead ticks once per arm command (like a
 * simulator under sim time), which keeps a client and the server exactly in step for tests.
 */
import type { IncomingMessage } from 'node:http';
import { WebSocketServer, type RawData, WebSocket } from 'ws';
import type { RobotDescription } from '../../src/core/robotDescription.ts';
import type { Image, TaskSpec } from '../../src/core/types.ts';
import {
  float64MultiArray,
  readFloat64MultiArray,
  type ImageMsg,
  type CompressedImageMsg,
  type JointStateMsg,
  type Ros1Header,
  type RosHeader,
} from '../../src/ros/messages.ts';
import { sameRosType, type RosVersion } from '../../src/ros/rosTypes.ts';
import { planEpisodes } from '../../src/tasks/episodePlan.ts';
import { encodeCbor } from './cbor.ts';
import { parseRosbridgeJson } from './jsonText.ts';
import { encodePng } from './png.ts';
import { parseClientOp, ProtocolError, type ClientOp, type ServerOp, type StatusOp } from './protocol.ts';
import { simDialect, type SimDialect } from './dialect.ts';
import { resetEpisode, RosbridgeFieldError, taskStatusReply } from './robotServices.ts';
import { rosapiServices } from './rosapi.ts';
import { SimRobot } from './simRobot.ts';

export interface SimServerOptions {
  /** Cameras are rendered at the description's sizes (apply --image-size before). */
  robot: RobotDescription;
  /** Interface to bind: loopback unless asked (a robot should not be reachable by accident). */
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** Pacing multiplier: 1 = real time, 10 = ten times faster (free-running mode only). */
  speed?: number;
  /** Tick once per arm command instead of on a clock. */
  lockstep?: boolean;
  /** Ticks a command stays in force before the arm holds (default 3). */
  watchdogTicks?: number;
  /** How far a command may lead the measured position, in joint maxSteps (default 2). */
  maxStepFactor?: number;
  /** Messages longer than this get a status error (default 256 KiB); four times this closes the socket. */
  maxMessageBytes?: number;
  /** Ping interval; a client that misses a pong is dropped (default 10 s; 0 = off). */
  heartbeatMs?: number;
  /** Only these topics / services may be used (default: all of the robot's; rosapi is always allowed). */
  allowTopics?: string[];
  allowServices?: string[];
  /** The rosbridge dialect: 2 (rosbridge_suite 1.x/2.x, default) or 1 (rosbridge_suite 0.11, ROS 1). */
  ros?: RosVersion;
  /** Where status lines go (default: nowhere). */
  log?: (line: string) => void;
}

/**
 * TEST HOOK (tests set it on a running server; `wmrl sim-server` never does): faults real robots
 * show, injected on demand.
 */
export interface SimServerFaults {
  /**
   * Answer calls of this service `result: false` with "Unable to communicate with service [name]",
   * as a real rosbridge does once the node behind the service has died.
   */
  failService?: string;
  /** Publish this joint's position as `value` (NaN goes out as JSON null, as ROS 1's rosbridge writes it). */
  jointPosition?: { joint: string; value: number };
  /** Publish nothing: a robot whose publishers stopped while its services still answer. */
  silent?: boolean;
  /**
   * Handle resets as a ROS 1 arm behind rosbridge_suite 0.11 did in the real check: the pre-reset
   * state is still in flight when the reset is handled (rosbridge looks the service up and connects
   * to it on every call, while the arm keeps publishing), and the reset state goes out only this many
   * ms after the reply, on the arm's next tick.
   */
  resetLagMs?: number;
}

type TopicKind =
  | { kind: 'jointStates' }
  | { kind: 'image'; camera: string; compressed: boolean }
  | { kind: 'objectState' }
  | { kind: 'armCommand' }
  | { kind: 'gripperCommand' };

interface TopicDef {
  type: string;
  kind: TopicKind;
  /** Messages published so far (a ROS 1 header's seq). */
  seq: number;
  /** Published by the robot (clients subscribe) or consumed by it (clients publish). */
  direction: 'out' | 'in';
}

interface Subscription {
  compression: 'none' | 'cbor';
  throttleMs: number;
  lastSent: number;
}

const LEVELS = { none: 0, error: 1, warning: 2, info: 3 } as const;
/** Stop queueing frames to a client that is this far behind (it gets the newest when it catches up). */
const MAX_BUFFERED_BYTES = 8 * 1024 * 1024;

class Client {
  readonly socket: WebSocket;
  readonly subscriptions = new Map<string, Subscription>();
  readonly advertised = new Map<string, string>();
  level: keyof typeof LEVELS = 'error';
  alive = true;
  /** Numbered as rosbridge numbers its clients in log lines. */
  readonly number: number;
  constructor(socket: WebSocket, number: number) {
    this.socket = socket;
    this.number = number;
  }
}

export class RosbridgeSimServer {
  readonly robot: RobotDescription;
  readonly simRobot: SimRobot;
  readonly lockstep: boolean;
  readonly speed: number;
  readonly maxMessageBytes: number;
  #wss: WebSocketServer | undefined;
  #clients = new Set<Client>();
  #topics = new Map<string, TopicDef>();
  /** The robot's services and rosapi's, by name. */
  #services: Map<string, (args: unknown) => unknown>;
  #rosapi: Set<string>;
  readonly dialect: SimDialect;
  #clientCount = 0;
  #options: SimServerOptions;
  #timer: NodeJS.Timeout | undefined;
  #heartbeat: NodeJS.Timeout | undefined;
  #closed = false;
  /** Counters for diagnostics and tests. */
  readonly stats = { ticks: 0, lateTicks: 0, messages: 0, errors: 0, refusedCommands: 0 };
  /** TEST HOOK: see SimServerFaults. */
  readonly testFaults: SimServerFaults = {};
  #port = 0;

  private constructor(simRobot: SimRobot, options: SimServerOptions) {
    this.simRobot = simRobot;
    this.robot = options.robot;
    this.#options = options;
    this.lockstep = options.lockstep ?? false;
    this.speed = options.speed ?? 1;
    if (!(this.speed > 0) || !Number.isFinite(this.speed))
      throw new Error(`speed must be a positive number, got ${this.speed}`);
    this.maxMessageBytes = options.maxMessageBytes ?? 256 * 1024;
    this.dialect = simDialect(options.ros ?? 2);
    const ros = this.robot.ros;
    const cameras = new Set(this.robot.cameras.map((c) => c.name));
    this.#topics.set(ros.jointStates.topic, {
      type: ros.jointStates.type,
      kind: { kind: 'jointStates' },
      direction: 'out',
      seq: 0,
    });
    for (const [camera, t] of Object.entries(ros.images)) {
      if (!cameras.has(camera))
        throw new Error(
          `robot '${this.robot.name}': ros.images names camera '${camera}', which the robot does not have`,
        );
      const compressed = sameRosType(t.type, 'sensor_msgs/msg/CompressedImage');
      if (!compressed && !sameRosType(t.type, 'sensor_msgs/msg/Image'))
        throw new Error(
          `robot '${this.robot.name}': camera topic ${t.topic} has type ${t.type}; ` +
            `the sim server publishes sensor_msgs/msg/Image or CompressedImage`,
        );
      this.#topics.set(t.topic, {
        type: t.type,
        kind: { kind: 'image', camera, compressed },
        direction: 'out',
        seq: 0,
      });
    }
    if (ros.objectState)
      this.#topics.set(ros.objectState.topic, {
        type: ros.objectState.type,
        kind: { kind: 'objectState' },
        direction: 'out',
        seq: 0,
      });
    this.#topics.set(ros.command.topic, {
      type: ros.command.type,
      kind: { kind: 'armCommand' },
      direction: 'in',
      seq: 0,
    });
    this.#topics.set(ros.gripperCommand.topic, {
      type: ros.gripperCommand.type,
      kind: { kind: 'gripperCommand' },
      direction: 'in',
      seq: 0,
    });
    const rosapi = rosapiServices(
      this.dialect,
      [...this.#topics].map(([topic, def]) => ({ topic, type: def.type })),
    );
    this.#rosapi = new Set(rosapi.keys());
    this.#services = new Map<string, (args: unknown) => unknown>([
      [ros.services.reset.name, (args: unknown) => this.#reset(args)],
      [ros.services.taskStatus.name, (args: unknown) => this.#taskStatus(args)],
      ...rosapi,
    ]);
  }

  /** Start the simulated robot (first task of the suite loaded, holding) and listen. */
  static async start(options: SimServerOptions): Promise<RosbridgeSimServer> {
    const simRobot = await SimRobot.create({
      robot: options.robot,
      watchdogTicks: options.watchdogTicks ?? 3,
      maxStepFactor: options.maxStepFactor,
    });
    const server = new RosbridgeSimServer(simRobot, options);
    const first = planEpisodes([{ family: 'reach' }], 'train', 1, 0)[0]!;
    simRobot.reset(first.task, first.seed);
    try {
      await server.#listen(options.host ?? '127.0.0.1', options.port ?? 9090);
    } catch (err) {
      simRobot.close();
      throw err;
    }
    if (!server.lockstep) server.#run();
    const heartbeat = options.heartbeatMs ?? 10_000;
    if (heartbeat > 0) server.#heartbeat = setInterval(() => server.#beat(), heartbeat);
    return server;
  }

  get port(): number {
    return this.#port;
  }

  get url(): string {
    return `ws://${this.#options.host ?? '127.0.0.1'}:${this.#port}`;
  }

  get clients(): number {
    return this.#clients.size;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#timer);
    clearInterval(this.#heartbeat);
    for (const c of this.#clients) c.socket.terminate();
    await new Promise<void>((resolve) => (this.#wss ? this.#wss.close(() => resolve()) : resolve()));
    this.simRobot.close();
  }

  #listen(host: string, port: number): Promise<void> {
    return new Promise((resolve, reject) => {
      // ws closes a socket whose message exceeds maxPayload; the softer cap below answers with a status error.
      const wss = new WebSocketServer({ host, port, maxPayload: 4 * this.maxMessageBytes, perMessageDeflate: false });
      wss.once('error', reject);
      wss.once('listening', () => {
        wss.off('error', reject);
        wss.on('error', (err) => this.#options.log?.(`server error: ${err.message}`));
        const address = wss.address();
        this.#port = typeof address === 'object' && address ? address.port : port;
        resolve();
      });
      wss.on('connection', (socket, request) => this.#accept(socket, request));
      this.#wss = wss;
    });
  }

  #accept(socket: WebSocket, request: IncomingMessage): void {
    const client = new Client(socket, ++this.#clientCount);
    this.#clients.add(client);
    this.#options.log?.(`client connected from ${request.socket.remoteAddress}:${request.socket.remotePort}`);
    socket.on('pong', () => (client.alive = true));
    socket.on('message', (data, isBinary) => this.#onMessage(client, data, isBinary));
    socket.on('error', (err) => this.#options.log?.(`client error: ${err.message}`));
    socket.on('close', () => {
      this.#clients.delete(client);
      this.#options.log?.('client disconnected');
    });
  }

  #beat(): void {
    for (const c of this.#clients) {
      if (!c.alive) {
        this.#options.log?.('client missed a heartbeat: dropped');
        c.socket.terminate();
        continue;
      }
      c.alive = false;
      c.socket.ping();
    }
  }

  /** Free-running: tick on a clock, catching up without bursts when a tick runs late. */
  #run(): void {
    const period = 1000 / (this.robot.controlHz * this.speed);
    let next = performance.now() + period;
    const loop = () => {
      if (this.#closed) return;
      this.#tick();
      next += period;
      const now = performance.now();
      if (now - next > period) {
        this.stats.lateTicks++;
        next = now;
      }
      this.#timer = setTimeout(loop, Math.max(0, next - now));
    };
    this.#timer = setTimeout(loop, period);
  }

  #tick(): void {
    try {
      this.simRobot.tick();
      this.stats.ticks++;
      this.#publishState();
    } catch (err) {
      this.stats.errors++;
      this.#options.log?.(`tick failed: ${(err as Error).message}`);
    }
  }

  #onMessage(client: Client, data: RawData, isBinary: boolean): void {
    this.stats.messages++;
    let id: string | undefined;
    try {
      const size = Array.isArray(data)
        ? data.reduce((n, b) => n + b.length, 0)
        : data instanceof ArrayBuffer
          ? data.byteLength
          : data.length;
      if (size > this.maxMessageBytes)
        throw new ProtocolError(`message of ${size} bytes exceeds the ${this.maxMessageBytes}-byte limit`);
      if (isBinary) throw new ProtocolError('binary messages are not accepted: send rosbridge JSON text');
      const text = Array.isArray(data)
        ? Buffer.concat(data).toString('utf8')
        : Buffer.from(data as ArrayBuffer).toString('utf8');
      let raw: unknown;
      try {
        raw = parseRosbridgeJson(text);
      } catch (err) {
        throw new ProtocolError(`not valid JSON: ${(err as Error).message.slice(0, 120)}`);
      }
      const op = parseClientOp(raw);
      id = op.id;
      this.#handle(client, op);
    } catch (err) {
      this.stats.errors++;
      const known = err instanceof ProtocolError ? err.id : undefined;
      this.#refuse(client, 'error', (err as Error).message, id ?? known);
    }
  }

  /** A refused op: a status message (ROS 2 sim), or, as rosbridge_suite does, only a log line. */
  #refuse(client: Client, level: StatusOp['level'], msg: string, id?: string): void {
    if (this.dialect.answersRefusals) this.#status(client, level, msg, id);
    else this.#options.log?.(`[Client ${client.number}]${id === undefined ? '' : ` [id: ${id}]`} ${msg}`);
  }

  /** rosbridge loads the type before anything else; a spelling this ROS cannot load is refused. */
  #checkSpelling(op: string, type: string | undefined, id: string | undefined): void {
    if (type !== undefined && !this.dialect.loads(type))
      throw new ProtocolError(`${op}: ${type} is not a valid type string`, id);
  }

  #handle(client: Client, op: ClientOp): void {
    switch (op.op) {
      case 'subscribe': {
        this.#checkSpelling('subscribe', op.type, op.id);
        this.#checkTopic(op.topic, op.type, 'out');
        client.subscriptions.set(op.topic, {
          compression: op.compression ?? 'none',
          throttleMs: Math.max(0, op.throttle_rate ?? 0),
          lastSent: -Infinity,
        });
        // A ROS 1 rosbridge subscribes to a topic nobody publishes yet without a word.
        if (!this.#topics.has(op.topic) && this.dialect.answersRefusals)
          this.#status(client, 'warning', `${op.topic} is not published by robot '${this.robot.name}'`, op.id);
        return;
      }
      case 'unsubscribe':
        client.subscriptions.delete(op.topic);
        return;
      case 'advertise':
        this.#checkSpelling('advertise', op.type, op.id);
        this.#checkTopic(op.topic, op.type, 'in');
        client.advertised.set(op.topic, op.type);
        return;
      case 'unadvertise':
        client.advertised.delete(op.topic);
        return;
      case 'publish':
        this.#checkTopic(op.topic, client.advertised.get(op.topic), 'in');
        this.#onPublish(client, op.topic, op.msg, op.id);
        return;
      case 'call_service':
        this.#callService(client, op.service, op.args, op.id);
        return;
      case 'set_level':
        // rosbridge_suite registers no set_level operation (rosbridge_protocol.py).
        if (!this.dialect.answersRefusals) throw new ProtocolError('Unknown operation: set_level', op.id);
        client.level = op.level;
        return;
    }
  }

  /** Allow-list and type checks for a topic used in `direction` (out: clients read it; in: clients write it). */
  #checkTopic(topic: string, type: string | undefined, direction: 'in' | 'out'): void {
    const allow = this.#options.allowTopics;
    if (allow && !allow.includes(topic)) throw new ProtocolError(`topic ${topic} is not in this server's allow-list`);
    const def = this.#topics.get(topic);
    if (!def) return;
    if (def.direction !== direction)
      throw new ProtocolError(
        direction === 'in'
          ? `${topic} is published by the robot; it takes no messages`
          : `${topic} is a command topic; the robot does not publish it`,
      );
    if (type !== undefined && !sameRosType(type, def.type))
      throw new ProtocolError(`${topic} has type ${def.type}, not ${type}`);
  }

  #onPublish(client: Client, topic: string, msg: unknown, id: string | undefined): void {
    const def = this.#topics.get(topic);
    if (!def) return; // Nobody in this robot listens; like ROS, publishing there is not an error.
    const kind = def.kind.kind;
    try {
      const values = readFloat64MultiArray(msg, topic);
      if (kind === 'armCommand') this.simRobot.commandArm(values);
      else if (kind === 'gripperCommand') this.simRobot.commandGripper(values);
    } catch (err) {
      this.stats.refusedCommands++;
      this.#refuse(client, 'error', `command on ${topic} refused: ${(err as Error).message}`, id);
    } finally {
      // Under lockstep every arm command is one tick, refused or not: time passes, the arm holds.
      if (this.lockstep && kind === 'armCommand') this.#tick();
    }
  }

  #callService(client: Client, service: string, args: unknown, id: string | undefined): void {
    const reply = (result: boolean, values: unknown) =>
      this.#send(client, { op: 'service_response', ...(id !== undefined ? { id } : {}), service, values, result });
    if (this.testFaults.failService === service) {
      reply(false, `Unable to communicate with service [${service}]`);
      return;
    }
    // rosbridge's launch files always let rosapi through the service allow-list.
    const allow = this.#rosapi.has(service) ? undefined : this.#options.allowServices;
    const handler = this.#services.get(service);
    if ((allow && !allow.includes(service)) || !handler) {
      const unknown =
        this.dialect.version === 1
          ? `Service ${service} does not exist`
          : `service ${service} is not provided by robot '${this.robot.name}' ` +
            `(services: ${[...this.#services.keys()].join(', ')})`;
      reply(
        false,
        allow && !allow.includes(service) ? `service ${service} is not in this server's allow-list` : unknown,
      );
      return;
    }
    try {
      reply(true, handler(args));
    } catch (err) {
      const message = (err as Error).message;
      reply(false, err instanceof RosbridgeFieldError ? message : `${service} failed: ${message}`);
    }
  }

  #reset(args: unknown): unknown {
    const { task, seed } = resetEpisode(args, this.robot.ros.services.reset.type, this.dialect);
    const lag = this.testFaults.resetLagMs;
    if (lag !== undefined) this.#publishState();
    this.simRobot.reset(task, seed);
    // The reset state goes out after the reply (this handler's value is sent as it returns), as a
    // real robot's next tick does: a client must take the first message after the reply, not before.
    const publish = () => this.#publishState();
    if (lag === undefined) setImmediate(publish);
    else setTimeout(publish, lag);
    return { success: true, message: `reset to '${task.instruction}' (${task.family}), seed ${seed}` };
  }

  #taskStatus(args: unknown): unknown {
    const type = this.robot.ros.services.taskStatus.type;
    return taskStatusReply(args, type, this.dialect, this.simRobot.status(), this.simRobot.ticks);
  }

  /** Publish everything the robot publishes to the clients subscribed to it (rendering only watched cameras). */
  #publishState(): void {
    if (this.testFaults.silent) return;
    const now = performance.now();
    const seconds = this.simRobot.ticks / this.robot.controlHz;
    for (const [topic, def] of this.#topics) {
      if (def.direction !== 'out') continue;
      const readers = [...this.#clients].filter((c) => {
        const s = c.subscriptions.get(topic);
        return (
          s &&
          now - s.lastSent >= s.throttleMs &&
          c.socket.readyState === WebSocket.OPEN &&
          c.socket.bufferedAmount < MAX_BUFFERED_BYTES
        );
      });
      if (readers.length === 0) continue;
      const msg = this.#message(def.kind, (frameId) => this.dialect.header(seconds, frameId, def.seq++));
      let json: string | undefined;
      let cbor: Uint8Array | undefined;
      for (const c of readers) {
        const sub = c.subscriptions.get(topic)!;
        sub.lastSent = now;
        // Encoded once per publish, for the first subscriber that needs each form.
        if (sub.compression === 'cbor') {
          cbor ??= encodeCbor({ op: 'publish', topic, msg });
          c.socket.send(cbor);
        } else {
          json ??= JSON.stringify({ op: 'publish', topic, msg }, bytesAsBase64);
          c.socket.send(json);
        }
      }
    }
  }

  #message(kind: TopicKind, header: (frameId: string) => RosHeader | Ros1Header): unknown {
    switch (kind.kind) {
      case 'jointStates': {
        const s = this.simRobot.jointState();
        const fault = this.testFaults.jointPosition;
        if (fault) s.position[s.names.indexOf(fault.joint)] = fault.value;
        return {
          header: header(''),
          name: s.names,
          position: s.position,
          velocity: s.velocity,
          effort: [],
        } satisfies JointStateMsg;
      }
      case 'image':
        return imageMessage(this.simRobot.render(kind.camera), kind.compressed, header(kind.camera));
      case 'objectState':
        return float64MultiArray(this.simRobot.objectState());
      default:
        throw new Error(`topic kind ${kind.kind} is not published`);
    }
  }

  #status(client: Client, level: StatusOp['level'], msg: string, id?: string): void {
    if (LEVELS[level] > LEVELS[client.level]) return;
    this.#send(client, { op: 'status', level, msg, ...(id !== undefined ? { id } : {}) });
  }

  #send(client: Client, op: ServerOp): void {
    if (client.socket.readyState !== WebSocket.OPEN) return;
    client.socket.send(JSON.stringify(op, bytesAsBase64));
  }

  /** The task the robot is in (for logs). */
  get task(): TaskSpec | undefined {
    return this.simRobot.task;
  }
}

function imageMessage(
  image: Image,
  compressed: boolean,
  header: RosHeader | Ros1Header,
): ImageMsg | CompressedImageMsg {
  // What image_transport writes for an rgb8 camera: the file itself is a standard (RGB) PNG.
  if (compressed) return { header, format: 'rgb8; png compressed bgr8', data: encodePng(image) };
  return {
    header,
    height: image.height,
    width: image.width,
    encoding: 'rgb8',
    is_bigendian: 0,
    step: image.width * 3,
    data: image.data,
  };
}

/** rosbridge's JSON carries uint8[] as base64. */
function bytesAsBase64(_key: string, value: unknown): unknown {
  return value instanceof Uint8Array
    ? Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64')
    : value;
}
