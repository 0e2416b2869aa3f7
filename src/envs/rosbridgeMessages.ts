/**
 * The ROS 2 messages a robot exchanges over rosbridge, as they look in rosbridge's JSON (and
 * CBOR) encoding, with checked conversions from untrusted input. Shared by the rosbridge client
 * and the sim server so both speak exactly the same shapes.
 */

export interface RosTime {
  sec: number;
  nanosec: number;
}

export interface RosHeader {
  stamp: RosTime;
  frame_id: string;
}

/** sensor_msgs/msg/JointState */
export interface JointStateMsg {
  header: RosHeader;
  name: string[];
  position: number[];
  velocity: number[];
  effort: number[];
}

/** sensor_msgs/msg/Image; `data` is base64 in JSON mode, bytes in CBOR mode. */
export interface ImageMsg {
  header: RosHeader;
  height: number;
  width: number;
  encoding: string;
  is_bigendian: number;
  step: number;
  data: string | Uint8Array | number[];
}

/** sensor_msgs/msg/CompressedImage; `format` as image_transport writes it, e.g. `rgb8; png compressed rgb8`. */
export interface CompressedImageMsg {
  header: RosHeader;
  format: string;
  data: string | Uint8Array | number[];
}

/** std_msgs/msg/Float64MultiArray (also used for object state). */
export interface Float64MultiArrayMsg {
  layout: { dim: { label: string; size: number; stride: number }[]; data_offset: number };
  data: number[];
}

/** std_srvs/srv/Trigger response. */
export interface TriggerResponse {
  success: boolean;
  message: string;
}

/**
 * Request of the reset service. Trigger has no request fields, so the robot's own reset node
 * (or the sim server) takes these: `task` is a TaskSpec as JSON text (a plain string field, so
 * the request fits an ordinary ROS service definition), `seed` the scene seed.
 */
export interface ResetRequest {
  task: string;
  seed: number;
}

/** What the task-status service's Trigger `message` carries (JSON); `success` is the task's success. */
export interface TaskStatusReport {
  progress: number;
  success: boolean;
}

export class RosMessageError extends Error {
  override name = 'RosMessageError';
}

export function rosTime(seconds: number): RosTime {
  const sec = Math.floor(seconds);
  return { sec, nanosec: Math.round((seconds - sec) * 1e9) };
}

export function float64MultiArray(values: ArrayLike<number>): Float64MultiArrayMsg {
  return { layout: { dim: [], data_offset: 0 }, data: Array.from(values) };
}

function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

function numberArray(x: unknown, what: string): number[] {
  if (Array.isArray(x)) {
    // Non-finite values stay in (NaN/Infinity are legal in rosbridge's JSON); safety filters refuse them.
    for (let i = 0; i < x.length; i++) if (typeof x[i] !== 'number') throw new RosMessageError(`${what}[${i}] is ${JSON.stringify(x[i]) ?? typeof x[i]}, not a number`);
    return x as number[];
  }
  if (x instanceof Float64Array || x instanceof Float32Array) return Array.from(x);
  throw new RosMessageError(`${what} must be an array of numbers`);
}

/** Check a Float64MultiArray from the wire; returns its data. */
export function readFloat64MultiArray(msg: unknown, what: string): number[] {
  if (!isRecord(msg)) throw new RosMessageError(`${what}: message must be an object with a 'data' array`);
  return numberArray(msg.data, `${what}.data`);
}

export interface JointReading {
  position: number;
  velocity: number;
}

/** Check a JointState from the wire; returns readings by joint name (robots publish in any order). */
export function readJointState(msg: unknown): Map<string, JointReading> {
  if (!isRecord(msg) || !Array.isArray(msg.name)) throw new RosMessageError('JointState must have a name array');
  const names = msg.name;
  const position = numberArray(msg.position, 'JointState.position');
  const velocity = msg.velocity === undefined || (Array.isArray(msg.velocity) && msg.velocity.length === 0) ? [] : numberArray(msg.velocity, 'JointState.velocity');
  if (position.length !== names.length) throw new RosMessageError(`JointState has ${names.length} names but ${position.length} positions`);
  if (velocity.length !== 0 && velocity.length !== names.length) throw new RosMessageError(`JointState has ${names.length} names but ${velocity.length} velocities`);
  const out = new Map<string, JointReading>();
  names.forEach((n, i) => {
    if (typeof n !== 'string') throw new RosMessageError(`JointState.name[${i}] is not a string`);
    out.set(n, { position: position[i]!, velocity: velocity[i] ?? 0 });
  });
  return out;
}

/** Bytes of a uint8[] field: base64 text (JSON), bytes (CBOR) or a plain number array. */
export function readBytes(data: unknown, what: string): Uint8Array {
  if (typeof data === 'string') return new Uint8Array(Buffer.from(data, 'base64'));
  if (data instanceof Uint8Array) return data;
  if (Array.isArray(data) && data.every((v) => Number.isInteger(v) && v >= 0 && v <= 255)) return Uint8Array.from(data as number[]);
  throw new RosMessageError(`${what} must be base64 text or bytes`);
}

/** Parse a Trigger response's `message` as JSON of the expected fields. */
export function readTrigger(values: unknown, service: string): TriggerResponse {
  if (!isRecord(values) || typeof values.success !== 'boolean' || typeof values.message !== 'string') {
    throw new RosMessageError(`${service} replied ${JSON.stringify(values)?.slice(0, 200)}; expected a Trigger response {success, message}`);
  }
  return { success: values.success, message: values.message };
}

export function readTaskStatus(reply: TriggerResponse, service: string): TaskStatusReport {
  let parsed: unknown;
  try {
    parsed = JSON.parse(reply.message);
  } catch {
    throw new RosMessageError(`${service} message is not JSON: ${reply.message.slice(0, 200)}`);
  }
  if (!isRecord(parsed) || typeof parsed.progress !== 'number' || !Number.isFinite(parsed.progress)) {
    throw new RosMessageError(`${service} message must be JSON {"progress": number}, got ${reply.message.slice(0, 200)}`);
  }
  return { progress: Math.min(1, Math.max(0, parsed.progress)), success: reply.success };
}
