/**
 * Checked readers of what a robot sends the rosbridge client (joint states, image bytes, service
 * replies), for untrusted input; the message shapes both ends share are in src/ros/messages.ts.
 */
import {
  isRecord,
  numberArray,
  RosMessageError,
  type TaskStatusReport,
  type TriggerResponse,
} from '../ros/messages.ts';

/** A joint's reading as sent: null where ROS 1's rosbridge wrote a NaN or an infinity (JSON has neither). */
export interface JointReading {
  position: number | null;
  velocity: number | null;
}

/**
 * A measurement the episode cannot use: NaN, an infinity, or the null a ROS 1 rosbridge sends for
 * them. The message names the topic and the joint (or index); the episode aborts on it.
 */
export class BadMeasurementError extends Error {
  override name = 'BadMeasurementError';
}

/** `value` if finite; else a BadMeasurementError saying which `what` (e.g. "joint 'waist' position") of `topic`. */
export function finiteMeasurement(value: number | null, topic: string, what: string): number {
  if (value === null) throw new BadMeasurementError(`${topic}: ${what} is null (NaN on the robot?)`);
  if (!Number.isFinite(value)) throw new BadMeasurementError(`${topic}: ${what} is ${value}`);
  return value;
}

/** Numbers from the wire where null stands for a non-finite value (checked where used, with finiteMeasurement). */
export function measurementArray(x: unknown, what: string): (number | null)[] {
  if (Array.isArray(x)) {
    for (let i = 0; i < x.length; i++)
      if (typeof x[i] !== 'number' && x[i] !== null)
        throw new RosMessageError(`${what}[${i}] is ${JSON.stringify(x[i]) ?? typeof x[i]}, not a number`);
    return x as (number | null)[];
  }
  return numberArray(x, what);
}

/** Check a JointState from the wire; returns readings by joint name (robots publish in any order). */
export function readJointState(msg: unknown, topic = 'JointState'): Map<string, JointReading> {
  if (!isRecord(msg) || !Array.isArray(msg.name))
    throw new RosMessageError(`${topic}: JointState must have a name array`);
  const names = msg.name;
  const position = measurementArray(msg.position, `${topic}: JointState.position`);
  const velocity =
    msg.velocity === undefined || (Array.isArray(msg.velocity) && msg.velocity.length === 0)
      ? []
      : measurementArray(msg.velocity, `${topic}: JointState.velocity`);
  if (position.length !== names.length)
    throw new RosMessageError(`${topic}: JointState has ${names.length} names but ${position.length} positions`);
  if (velocity.length !== 0 && velocity.length !== names.length)
    throw new RosMessageError(`${topic}: JointState has ${names.length} names but ${velocity.length} velocities`);
  const out = new Map<string, JointReading>();
  names.forEach((n, i) => {
    if (typeof n !== 'string') throw new RosMessageError(`${topic}: JointState.name[${i}] is not a string`);
    out.set(n, { position: position[i]!, velocity: velocity.length === 0 ? 0 : velocity[i]! });
  });
  return out;
}

/** Bytes of a uint8[] field: base64 text (JSON), bytes (CBOR) or a plain number array. */
export function readBytes(data: unknown, what: string): Uint8Array {
  if (typeof data === 'string') return new Uint8Array(Buffer.from(data, 'base64'));
  if (data instanceof Uint8Array) return data;
  if (Array.isArray(data) && data.every((v) => Number.isInteger(v) && v >= 0 && v <= 255))
    return Uint8Array.from(data as number[]);
  throw new RosMessageError(`${what} must be base64 text or bytes`);
}

/** Check a reply of shape {success, message}: std_srvs/Trigger, or wmrl_interfaces/ResetEpisode. */
export function readTrigger(values: unknown, service: string): TriggerResponse {
  if (!isRecord(values) || typeof values.success !== 'boolean' || typeof values.message !== 'string') {
    throw new RosMessageError(
      `${service} replied ${JSON.stringify(values)?.slice(0, 200)}; expected {success: bool, message: string}`,
    );
  }
  return { success: values.success, message: values.message };
}

/**
 * Read a task-status reply: wmrl_interfaces/TaskStatus `{success, progress, message}`, or (what
 * earlier robots answer) a std_srvs/Trigger whose `message` is JSON `{"progress": number}`.
 * Progress is clamped to [0, 1].
 */
export function readTaskStatus(values: unknown, service: string): TaskStatusReport {
  if (isRecord(values) && typeof values.success === 'boolean' && 'progress' in values) {
    const progress = values.progress;
    if (typeof progress !== 'number' || !Number.isFinite(progress))
      throw new RosMessageError(`${service} replied progress ${JSON.stringify(progress)}; expected a finite number`);
    return { progress: Math.min(1, Math.max(0, progress)), success: values.success };
  }
  const reply = readTrigger(values, service);
  let parsed: unknown;
  try {
    parsed = JSON.parse(reply.message);
  } catch {
    throw new RosMessageError(
      `${service} replied without a progress field, and its message is not JSON: ${reply.message.slice(0, 200)}`,
    );
  }
  if (!isRecord(parsed) || typeof parsed.progress !== 'number' || !Number.isFinite(parsed.progress)) {
    throw new RosMessageError(
      `${service} message must be JSON {"progress": number}, got ${reply.message.slice(0, 200)}`,
    );
  }
  return { progress: Math.min(1, Math.max(0, parsed.progress)), success: reply.success };
}
