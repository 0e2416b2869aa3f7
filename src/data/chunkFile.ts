/**
 * The chunk file format (`*.wmrl`): a checksummed header, then checksummed episode records.
 *
 * ```
 * offset 0   "WMRL"                       4-byte magic
 *        4   u32 LE schema version (1)
 *        8   u32 LE header length H
 *       12   msgpack { schema, robot, createdAt, datasetId }   (H bytes)
 *    12+H    u32 LE CRC32 of the H header bytes
 *    16+H    records: u32 LE payload length L, u32 LE CRC32 of payload, payload (L bytes) ...
 * ```
 *
 * Readers treat files as untrusted: lengths are capped before anything is allocated, every
 * CRC is checked, and every payload is decoded and validated (see `episodeCodec.ts`).
 */
import { open, type FileHandle } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import { Packr } from 'msgpackr';
import { z } from 'zod';
import type { Episode } from '../core/types.ts';
import { decodeEpisode, encodeEpisode } from './episodeCodec.ts';

export const CHUNK_MAGIC = 'WMRL';
export const CHUNK_SCHEMA_VERSION = 1;
/** Default cap on one record's payload; checked before allocating. */
export const MAX_RECORD_BYTES = 256 * 1024 * 1024;
/** Cap on the msgpack header. */
export const MAX_HEADER_BYTES = 64 * 1024;
const PREFIX_BYTES = 12; // magic + version + header length
const RECORD_PREFIX_BYTES = 8; // payload length + CRC32

const headerSchema = z.object({
  schema: z.literal(CHUNK_SCHEMA_VERSION),
  robot: z.string().min(1).max(1000),
  createdAt: z.string().min(1).max(1000),
  datasetId: z.string().min(1).max(1000),
});
export type ChunkHeader = z.infer<typeof headerSchema>;

const packr = new Packr({ useRecords: false, structuredClone: false, moreTypes: false });

/**
 * A chunk file that cannot be read as written. `offset` is the byte offset of the start of
 * the bad record (or of the bad header field); `record` is the 0-based record index, or
 * `null` for the file header.
 */
export class CorruptEpisodeFileError extends Error {
  override readonly name = 'CorruptEpisodeFileError';
  constructor(
    readonly file: string,
    readonly offset: number,
    readonly record: number | null,
    readonly reason: string,
  ) {
    const what = record === null ? 'header' : `record ${record}`;
    super(`${file}: ${what} at byte offset ${offset} is corrupt: ${reason}`);
  }
}

/** Something a tolerant read stepped over instead of throwing. */
export type ChunkIssue =
  | {
      kind: 'truncated';
      file: string;
      /** Where the incomplete tail starts (the last complete record's end). */
      offset: number;
      /** Index of the record that was cut off (`null` when the header itself is cut off). */
      record: number | null;
      bytesDropped: number;
      message: string;
    }
  | {
      kind: 'skipped';
      file: string;
      offset: number;
      record: number;
      /** Bytes stepped over; when the record's length was unusable this is the rest of the file. */
      bytesDropped: number;
      reason: string;
      message: string;
    };

export interface ChunkReadOptions {
  /** Return every complete record before a tail cut off mid-write, and report it, instead of throwing. */
  recoverTruncated?: boolean;
  /** Skip records that fail their CRC or do not decode, and report them, instead of throwing. */
  skipCorrupt?: boolean;
  /** Cap on one record's payload length (default `MAX_RECORD_BYTES`). */
  maxRecordBytes?: number;
  /** Called once for each issue a tolerant read stepped over. */
  onIssue?: (issue: ChunkIssue) => void;
}

export interface ChunkRecord {
  episode: Episode;
  /** 0-based record index within the file. */
  index: number;
  /** Byte offset of the record's length field. */
  offset: number;
  /** Payload length in bytes. */
  length: number;
}

const hex = (n: number) => `0x${n.toString(16).padStart(8, '0')}`;

/** The bytes that start a chunk file: magic, version, header length, header, header CRC32. */
export function encodeChunkHeader(header: ChunkHeader): Buffer {
  const body = packr.pack(headerSchema.parse(header));
  const out = Buffer.alloc(PREFIX_BYTES + body.length + 4);
  out.write(CHUNK_MAGIC, 0, 'ascii');
  out.writeUInt32LE(CHUNK_SCHEMA_VERSION, 4);
  out.writeUInt32LE(body.length, 8);
  body.copy(out, PREFIX_BYTES);
  out.writeUInt32LE(crc32(body), PREFIX_BYTES + body.length);
  return out;
}

/** The 8-byte record prefix for `payload`: length and CRC32. */
export function encodeRecordPrefix(payload: Uint8Array): Buffer {
  if (payload.byteLength === 0 || payload.byteLength > MAX_RECORD_BYTES) {
    throw new RangeError(`episode payload of ${payload.byteLength} bytes is outside 1..${MAX_RECORD_BYTES}`);
  }
  const prefix = Buffer.alloc(RECORD_PREFIX_BYTES);
  prefix.writeUInt32LE(payload.byteLength, 0);
  prefix.writeUInt32LE(crc32(payload), 4);
  return prefix;
}

async function readExactly(fh: FileHandle, position: number, length: number): Promise<Buffer> {
  const buf = Buffer.alloc(length);
  let done = 0;
  while (done < length) {
    const { bytesRead } = await fh.read(buf, done, length - done, position + done);
    if (bytesRead === 0) throw new Error(`unexpected end of file at byte ${position + done}`);
    done += bytesRead;
  }
  return buf;
}

/**
 * Reads one chunk file. `open()` reads and checks the header; `records()` walks the records.
 * The file size is taken once at `open()`, so a file still being appended to reads as a
 * snapshot (with `recoverTruncated`, a record being written at that moment is reported as a
 * truncated tail).
 */
export class ChunkReader {
  /** Issues stepped over so far (tolerant modes only). */
  readonly issues: ChunkIssue[] = [];

  private constructor(
    readonly file: string,
    /** `null` only when the header itself was cut off and `recoverTruncated` is set. */
    readonly header: ChunkHeader | null,
    readonly size: number,
    private readonly dataStart: number,
    private readonly options: ChunkReadOptions,
  ) {}

  static async open(file: string, options: ChunkReadOptions = {}): Promise<ChunkReader> {
    const fh = await open(file, 'r');
    try {
      const size = (await fh.stat()).size;
      const result = await ChunkReader.readHeader(fh, file, size, options);
      const reader = new ChunkReader(file, result.header, size, result.dataStart, options);
      if (result.truncated) reader.report(result.truncated);
      return reader;
    } finally {
      await fh.close();
    }
  }

  private static async readHeader(
    fh: FileHandle,
    file: string,
    size: number,
    options: ChunkReadOptions,
  ): Promise<{ header: ChunkHeader | null; dataStart: number; truncated?: ChunkIssue }> {
    const corrupt = (offset: number, reason: string) => new CorruptEpisodeFileError(file, offset, null, reason);
    const cutOff = (needed: number): { header: null; dataStart: number; truncated: ChunkIssue } => {
      if (!options.recoverTruncated) {
        throw corrupt(0, `file is ${size} bytes, shorter than its header (${needed} bytes); file truncated?`);
      }
      const message = `${file}: header cut off (file is ${size} bytes, header needs ${needed}); ${size} bytes dropped`;
      return {
        header: null,
        dataStart: size,
        truncated: { kind: 'truncated', file, offset: 0, record: null, bytesDropped: size, message },
      };
    };
    const prefix = await readExactly(fh, 0, Math.min(PREFIX_BYTES, size));
    const magic = prefix.subarray(0, 4);
    if (!magic.equals(Buffer.from(CHUNK_MAGIC, 'ascii').subarray(0, magic.length))) {
      throw corrupt(
        0,
        `bad magic ${JSON.stringify(magic.toString('latin1'))} (expected "${CHUNK_MAGIC}"): not a wmrl chunk file`,
      );
    }
    if (size < PREFIX_BYTES) return cutOff(PREFIX_BYTES);
    const version = prefix.readUInt32LE(4);
    if (version !== CHUNK_SCHEMA_VERSION) {
      throw corrupt(4, `unsupported schema version ${version} (this build reads version ${CHUNK_SCHEMA_VERSION})`);
    }
    const headerLength = prefix.readUInt32LE(8);
    if (headerLength === 0 || headerLength > MAX_HEADER_BYTES) {
      throw corrupt(8, `header length ${headerLength} is outside 1..${MAX_HEADER_BYTES}`);
    }
    const dataStart = PREFIX_BYTES + headerLength + 4;
    if (size < dataStart) return cutOff(dataStart);
    const rest = await readExactly(fh, PREFIX_BYTES, headerLength + 4);
    const body = rest.subarray(0, headerLength);
    const stored = rest.readUInt32LE(headerLength);
    const computed = crc32(body);
    if (stored !== computed) {
      throw corrupt(PREFIX_BYTES, `header CRC32 mismatch (stored ${hex(stored)}, computed ${hex(computed)})`);
    }
    let raw: unknown;
    try {
      raw = packr.unpack(body);
    } catch (err) {
      throw corrupt(PREFIX_BYTES, `header is not valid msgpack: ${(err as Error).message}`);
    }
    const parsed = headerSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw corrupt(
        PREFIX_BYTES,
        `header field '${issue?.path.map(String).join('.') ?? ''}': ${issue?.message ?? 'invalid'}`,
      );
    }
    return { header: parsed.data, dataStart };
  }

  private report(issue: ChunkIssue): void {
    this.issues.push(issue);
    this.options.onIssue?.(issue);
  }

  /** Yields the file's episodes in order, with their record index and byte offset. */
  async *records(): AsyncGenerator<ChunkRecord> {
    if (this.header === null) return;
    const { file, size } = this;
    const { recoverTruncated = false, skipCorrupt = false, maxRecordBytes = MAX_RECORD_BYTES } = this.options;
    const fh = await open(file, 'r');
    try {
      let offset = this.dataStart;
      for (let index = 0; offset < size; index++) {
        const corrupt = (reason: string) => new CorruptEpisodeFileError(file, offset, index, reason);
        const truncated = (reason: string): boolean => {
          if (!recoverTruncated) throw corrupt(`${reason}; file truncated?`);
          const bytesDropped = size - offset;
          const message =
            `${file}: record ${index} at byte offset ${offset} is ` +
            `cut off (${reason}); ${bytesDropped} bytes dropped`;
          this.report({ kind: 'truncated', file, offset, record: index, bytesDropped, message });
          return true;
        };
        const skip = (reason: string, bytesDropped: number): void => {
          if (!skipCorrupt) throw corrupt(reason);
          const message = `${file}: skipped corrupt record ${index} at byte offset ${offset}: ${reason}`;
          this.report({ kind: 'skipped', file, offset, record: index, bytesDropped, reason, message });
        };

        if (size - offset < RECORD_PREFIX_BYTES) {
          if (truncated(`only ${size - offset} of the ${RECORD_PREFIX_BYTES}-byte record prefix present`)) return;
        }
        const prefix = await readExactly(fh, offset, RECORD_PREFIX_BYTES);
        const length = prefix.readUInt32LE(0);
        const stored = prefix.readUInt32LE(4);
        if (length === 0 || length > maxRecordBytes) {
          // Cannot find the next record without a usable length: the rest of the file is lost.
          skip(`record length ${length} is outside 1..${maxRecordBytes}`, size - offset);
          return;
        }
        const end = offset + RECORD_PREFIX_BYTES + length;
        if (end > size) {
          if (truncated(`record length ${length} runs ${end - size} bytes past the end of the file`)) return;
        }
        const payload = await readExactly(fh, offset + RECORD_PREFIX_BYTES, length);
        const computed = crc32(payload);
        let episode: Episode | undefined;
        if (stored !== computed) {
          skip(`CRC32 mismatch (stored ${hex(stored)}, computed ${hex(computed)})`, end - offset);
        } else {
          try {
            episode = decodeEpisode(payload);
          } catch (err) {
            skip(`payload does not decode: ${(err as Error).message}`, end - offset);
          }
          if (episode && episode.robot !== this.header.robot) {
            skip(`episode robot '${episode.robot}' differs from the file's robot '${this.header.robot}'`, end - offset);
            episode = undefined;
          }
        }
        if (episode) yield { episode, index, offset, length };
        offset = end;
      }
    } finally {
      await fh.close();
    }
  }
}

/** Convenience: open `file` and yield its records. */
export async function* readChunkFile(file: string, options: ChunkReadOptions = {}): AsyncGenerator<ChunkRecord> {
  const reader = await ChunkReader.open(file, options);
  yield* reader.records();
}

async function writeAll(fh: FileHandle, data: Uint8Array, position: number): Promise<void> {
  let done = 0;
  while (done < data.byteLength) {
    const { bytesWritten } = await fh.write(data, done, data.byteLength - done, position + done);
    done += bytesWritten;
  }
}

/**
 * Writes one chunk file. The file is created exclusively (never overwrites); each `append`
 * hands a whole record to the OS, `sync()` makes it durable. Calls must not overlap.
 */
export class ChunkWriter {
  /** Records written. */
  episodes = 0;
  private closed = false;
  private failure: Error | null = null;

  private constructor(
    readonly file: string,
    readonly header: ChunkHeader,
    private readonly fh: FileHandle,
    private position: number,
  ) {}

  /** Creates `file` (fails with EEXIST when it exists) and writes the header. */
  static async create(file: string, header: ChunkHeader): Promise<ChunkWriter> {
    const bytes = encodeChunkHeader(header);
    const fh = await open(file, 'wx');
    try {
      await writeAll(fh, bytes, 0);
    } catch (err) {
      await fh.close();
      throw err;
    }
    return new ChunkWriter(file, header, fh, bytes.length);
  }

  /** Bytes written so far. */
  get bytes(): number {
    return this.position;
  }

  /** Validates and appends one episode; returns its record's byte offset. */
  async append(episode: Episode): Promise<number> {
    if (this.closed) throw new Error(`${this.file}: chunk writer is closed`);
    if (this.failure)
      throw new Error(`${this.file}: an earlier write failed (${this.failure.message}); open a new chunk`);
    if (episode.robot !== this.header.robot) {
      throw new Error(
        `episode ${episode.id} is for robot '${episode.robot}', this chunk holds robot '${this.header.robot}'`,
      );
    }
    const payload = encodeEpisode(episode);
    const record = Buffer.concat([encodeRecordPrefix(payload), payload]);
    const offset = this.position;
    try {
      await writeAll(this.fh, record, offset);
    } catch (err) {
      // Cut the partial record off so the file stays a valid chunk; if even that fails,
      // refuse further writes (the store then leaves the file as `.tmp` for recovery).
      await this.fh.truncate(offset).catch((truncateErr: Error) => {
        this.failure = truncateErr;
      });
      throw err;
    }
    this.position += record.length;
    this.episodes++;
    return offset;
  }

  async sync(): Promise<void> {
    await this.fh.sync();
  }

  /** False after a failed write could not be undone: the file may end in a partial record. */
  get intact(): boolean {
    return this.failure === null;
  }

  /** Closes the file handle (does not sync). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.fh.close();
  }
}
