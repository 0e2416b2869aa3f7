/**
 * Decoding what a browser sends: untrusted. The frame must be binary and small, msgpack with
 * records and structured clone off (no class or shared-reference extensions), and match the
 * message schema; anything else is a `ProtocolError` and the server closes that client.
 */
import { Packr } from 'msgpackr';
import { z } from 'zod';
import type { ClientMessage } from './messages.ts';

/** Client messages are a few dozen bytes; anything near this is abuse. Also the ws maxPayload. */
export const MAX_CLIENT_MESSAGE_BYTES = 4096;

export class ProtocolError extends Error {
  override name = 'ProtocolError';
  /** Websocket close code: 1003 unsupported data (text), 1007 invalid payload, 1008 policy. */
  constructor(
    message: string,
    readonly closeCode: 1003 | 1007 | 1008,
  ) {
    super(message);
  }
}

const untrusted = new Packr({ useRecords: false, structuredClone: false, moreTypes: false, mapsAsObjects: true });

const clientMessageSchema = z.discriminatedUnion('type', [
  z
    .object({
      type: z.literal('open'),
      request: z
        .int()
        .min(0)
        .max(2 ** 31),
      episode: z.string().min(1).max(512),
    })
    .strict(),
  z
    .object({
      type: z.literal('label'),
      episode: z.string().min(1).max(512),
      verdict: z.enum(['success', 'failure', 'skip']),
      note: z.string().max(1000).optional(),
    })
    .strict(),
  z.object({ type: z.literal('reset-ready'), id: z.string().min(1).max(128) }).strict(),
]);

export function decodeClientMessage(data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean): ClientMessage {
  if (!isBinary) throw new ProtocolError('text frames are not accepted; send msgpack binary frames', 1003);
  const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
  if (bytes.length > MAX_CLIENT_MESSAGE_BYTES)
    throw new ProtocolError(`message of ${bytes.length} bytes exceeds ${MAX_CLIENT_MESSAGE_BYTES}`, 1008);
  let raw: unknown;
  try {
    raw = untrusted.unpack(bytes);
  } catch (err) {
    throw new ProtocolError(`malformed msgpack: ${(err as Error).message}`, 1007);
  }
  const parsed = clientMessageSchema.safeParse(raw);
  if (!parsed.success)
    throw new ProtocolError(
      `invalid message: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`,
      1007,
    );
  return parsed.data;
}
