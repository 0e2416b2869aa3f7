/**
 * The messages a robot exchanges over rosbridge, as they look in rosbridge's JSON (and CBOR)
 * encoding, and what both ends use to build and check them. Field names are ROS 2's; ROS 1
 * differs only in the header (`{seq, stamp: {secs, nsecs}, frame_id}`), which the client never
 * reads. Shared by the rosbridge client (src/envs) and the sim server (sim/rosbridge) so both
 * speak exactly the same shapes; readers only the client needs live with it
 * (src/envs/rosbridgeReaders.ts).
 */
import type { TaskSpec } from '../core/types.ts';

export interface RosTime {
  sec: number;
  nanosec: number;
}

export interface RosHeader {
  stamp: RosTime;
  frame_id: string;
}

/** std_msgs/Header in ROS 1: a sequence number, and time as secs/nsecs. */
export interface Ros1Header {
  seq: number;
  stamp: { secs: number; nsecs: number };
  frame_id: string;
}

/** sensor_msgs/msg/JointState */
export interface JointStateMsg {
  header: RosHeader | Ros1Header;
  name: string[];
  position: number[];
  velocity: number[];
  effort: number[];
}

/** sensor_msgs/msg/Image; `data` is base64 in JSON mode, bytes in CBOR mode. */
export interface ImageMsg {
  header: RosHeader | Ros1Header;
  height: number;
  width: number;
  encoding: string;
  is_bigendian: number;
  step: number;
  data: string | Uint8Array | number[];
}

/** sensor_msgs/msg/CompressedImage; `format` as image_transport writes it, e.g. `rgb8; jpeg compressed bgr8`. */
export interface CompressedImageMsg {
  header: RosHeader | Ros1Header;
  format: string;
  data: string | Uint8Array | number[];
}

/** std_msgs/msg/Float64MultiArray (also used for object state). */
export interface Float64MultiArrayMsg {
  layout: { dim: { label: string; size: number; stride: number }[]; data_offset: number };
  data: number[];
}

/** std_srvs/srv/Trigger response; also the response of wmrl_interfaces/srv/ResetEpisode. */
export interface TriggerResponse {
  success: boolean;
  message: string;
}

/**
 * Request of the reset service, wmrl_interfaces/srv/ResetEpisode (robots/ros/wmrl_interfaces):
 * `task` is a TaskSpec as JSON text (a plain string field, so the request fits an ordinary ROS
 * service definition), `seed` the scene seed.
 */
export interface ResetRequest {
  task: string;
  seed: number;
}

/** Response of wmrl_interfaces/srv/TaskStatus. */
export interface TaskStatusResponse {
  success: boolean;
  progress: number;
  message: string;
}

/** What the client takes from a task-status reply; `success` is the task's success. */
export interface TaskStatusReport {
  progress: number;
  success: boolean;
}

/**
 * The fields of the two services as robots/ros/wmrl_interfaces/srv/*.srv define them; the client
 * and the sim server build and read exactly these (a test parses the .srv files against them).
 */
export const WMRL_SERVICES = {
  ResetEpisode: {
    request: { task: 'string', seed: 'uint32' },
    response: { success: 'bool', message: 'string' },
  },
  TaskStatus: {
    request: {},
    response: { success: 'bool', progress: 'float64', message: 'string' },
  },
} as const;

export function resetRequest(task: TaskSpec, seed: number): ResetRequest {
  return { task: JSON.stringify(task), seed };
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

export function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** Check an array of numbers from the wire (a plain array or a float typed array). */
export function numberArray(x: unknown, what: string): number[] {
  if (Array.isArray(x)) {
    // Non-finite values stay in (NaN/Infinity are legal in rosbridge's JSON); safety filters refuse them.
    for (let i = 0; i < x.length; i++)
      if (typeof x[i] !== 'number')
        throw new RosMessageError(`${what}[${i}] is ${JSON.stringify(x[i]) ?? typeof x[i]}, not a number`);
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
