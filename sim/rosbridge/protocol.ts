/**
 * The rosbridge v2 protocol ops the sim server answers (the ones roslib sends), as a typed
 * union with one guard per op. Everything from a socket is validated here before any handler
 * sees it; a bad message becomes a ProtocolError that the server reports as a `status` op.
 */

export interface AdvertiseOp {
  op: 'advertise';
  id?: string;
  topic: string;
  type: string;
}
export interface UnadvertiseOp {
  op: 'unadvertise';
  id?: string;
  topic: string;
}
export interface PublishOp {
  op: 'publish';
  id?: string;
  topic: string;
  msg: unknown;
}
export interface SubscribeOp {
  op: 'subscribe';
  id?: string;
  topic: string;
  type?: string;
  compression?: 'none' | 'cbor';
  throttle_rate?: number;
  queue_length?: number;
}
export interface UnsubscribeOp {
  op: 'unsubscribe';
  id?: string;
  topic: string;
}
export interface CallServiceOp {
  op: 'call_service';
  id?: string;
  service: string;
  args?: unknown;
  type?: string;
  timeout?: number;
}
export interface SetLevelOp {
  op: 'set_level';
  id?: string;
  level: 'info' | 'warning' | 'error' | 'none';
}

export type ClientOp =
  | AdvertiseOp
  | UnadvertiseOp
  | PublishOp
  | SubscribeOp
  | UnsubscribeOp
  | CallServiceOp
  | SetLevelOp;

/** Server → client. */
export interface StatusOp {
  op: 'status';
  id?: string;
  level: 'info' | 'warning' | 'error';
  msg: string;
}
export interface TopicMessageOp {
  op: 'publish';
  topic: string;
  msg: unknown;
}
export interface ServiceResponseOp {
  op: 'service_response';
  id?: string;
  service: string;
  values?: unknown;
  result: boolean;
}
export type ServerOp = StatusOp | TopicMessageOp | ServiceResponseOp;

export class ProtocolError extends Error {
  override name = 'ProtocolError';
  /** The offending message's id, when it had a usable one (echoed in the status reply). */
  readonly id: string | undefined;
  constructor(message: string, id?: string) {
    super(message);
    this.id = id;
  }
}

const NAME = /^\/[A-Za-z0-9_~{}/]{0,255}$/;
const TYPE = /^[A-Za-z][\w]*\/(msg\/|srv\/)?[A-Za-z]\w*$/;

function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

function str(m: Record<string, unknown>, key: string, id: string | undefined, pattern?: RegExp): string {
  const v = m[key];
  if (typeof v !== 'string') throw new ProtocolError(`'${String(m.op)}' needs a string '${key}'`, id);
  if (pattern && !pattern.test(v))
    throw new ProtocolError(
      `'${String(m.op)}': '${key}' ${JSON.stringify(v.slice(0, 80))} is not a valid ROS name/type`,
      id,
    );
  return v;
}

function optionalNumber(m: Record<string, unknown>, key: string, id: string | undefined): number | undefined {
  const v = m[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v))
    throw new ProtocolError(`'${String(m.op)}': '${key}' must be a finite number`, id);
  return v;
}

/** Validate one decoded message; throws ProtocolError naming what is wrong. */
export function parseClientOp(raw: unknown): ClientOp {
  if (!isRecord(raw)) throw new ProtocolError('a rosbridge message must be a JSON object');
  const id = raw.id === undefined ? undefined : typeof raw.id === 'string' && raw.id.length <= 256 ? raw.id : undefined;
  if (raw.id !== undefined && id === undefined)
    throw new ProtocolError("'id' must be a string of at most 256 characters");
  if (typeof raw.op !== 'string') throw new ProtocolError("message has no string 'op'", id);
  const base = id === undefined ? {} : { id };
  switch (raw.op) {
    case 'advertise':
      return { op: 'advertise', ...base, topic: str(raw, 'topic', id, NAME), type: str(raw, 'type', id, TYPE) };
    case 'unadvertise':
      return { op: 'unadvertise', ...base, topic: str(raw, 'topic', id, NAME) };
    case 'publish':
      if (!('msg' in raw)) throw new ProtocolError("'publish' needs a 'msg'", id);
      return { op: 'publish', ...base, topic: str(raw, 'topic', id, NAME), msg: raw.msg };
    case 'subscribe': {
      const compression = raw.compression ?? 'none';
      if (compression !== 'none' && compression !== 'cbor')
        throw new ProtocolError(
          `'subscribe': compression ${JSON.stringify(compression)} is not supported (none or cbor)`,
          id,
        );
      const type = raw.type === undefined ? undefined : str(raw, 'type', id, TYPE);
      const throttle = optionalNumber(raw, 'throttle_rate', id);
      const queue = optionalNumber(raw, 'queue_length', id);
      return {
        op: 'subscribe',
        ...base,
        topic: str(raw, 'topic', id, NAME),
        ...(type ? { type } : {}),
        compression,
        ...(throttle !== undefined ? { throttle_rate: throttle } : {}),
        ...(queue !== undefined ? { queue_length: queue } : {}),
      };
    }
    case 'unsubscribe':
      return { op: 'unsubscribe', ...base, topic: str(raw, 'topic', id, NAME) };
    case 'call_service': {
      const timeout = optionalNumber(raw, 'timeout', id);
      const type = raw.type === undefined ? undefined : str(raw, 'type', id, TYPE);
      return {
        op: 'call_service',
        ...base,
        service: str(raw, 'service', id, NAME),
        args: raw.args,
        ...(type ? { type } : {}),
        ...(timeout !== undefined ? { timeout } : {}),
      };
    }
    case 'set_level': {
      const level = raw.level;
      if (level !== 'info' && level !== 'warning' && level !== 'error' && level !== 'none')
        throw new ProtocolError("'set_level': level must be info, warning, error or none", id);
      return { op: 'set_level', ...base, level };
    }
    default:
      throw new ProtocolError(`unknown op ${JSON.stringify(raw.op.slice(0, 64))}`, id);
  }
}
