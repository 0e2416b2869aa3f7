/**
 * Appends episodes to a dataset folder, one chunk at a time.
 *
 * Records go to `chunk-NNNNNN.wmrl.tmp`; after `episodesPerChunk` episodes (or on `close()`)
 * the chunk is fsynced, renamed to `chunk-NNNNNN.wmrl` and the folder fsynced. A new chunk
 * always takes a number above every chunk file present (closed or `.tmp`) and is created
 * exclusively, so a `.tmp` left by a crash — or by another live writer — is never touched.
 */
import { rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Episode } from '../core/types.ts';
import { ChunkWriter, type ChunkHeader } from './chunkFile.ts';
import { chunkFileName, listChunkFiles } from './chunkNames.ts';
import { syncDir } from '../core/durableFs.ts';

export const DEFAULT_EPISODES_PER_CHUNK = 32;

export class EpisodeWriter {
  private current: { writer: ChunkWriter; number: number } | null = null;
  /** Serialises appends and closes so that overlapping calls cannot interleave records. */
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(
    readonly dir: string,
    private readonly header: ChunkHeader,
    readonly episodesPerChunk = DEFAULT_EPISODES_PER_CHUNK,
  ) {
    if (!Number.isInteger(episodesPerChunk) || episodesPerChunk < 1) {
      throw new RangeError(`episodesPerChunk must be a positive integer, got ${episodesPerChunk}`);
    }
  }

  /** Validates and appends one episode (rejects on an invalid episode; nothing is written then). */
  append(episode: Episode): Promise<void> {
    if (this.closed) return Promise.reject(new Error(`${this.dir}: episode writer is closed`));
    return this.enqueue(async () => {
      this.current ??= await this.openChunk();
      const chunk = this.current;
      try {
        await chunk.writer.append(episode);
      } catch (err) {
        if (!chunk.writer.intact) await this.finishChunk();
        throw err;
      }
      if (chunk.writer.episodes >= this.episodesPerChunk) await this.finishChunk();
    });
  }

  /** Closes the open chunk (if any). Idempotent. */
  close(): Promise<void> {
    this.closed = true;
    return this.enqueue(() => this.finishChunk());
  }

  private enqueue(task: () => Promise<void>): Promise<void> {
    const run = this.queue.then(task);
    this.queue = run.catch(() => {});
    return run;
  }

  private async openChunk(): Promise<{ writer: ChunkWriter; number: number }> {
    const existing = await listChunkFiles(this.dir);
    let number = existing.length ? existing[existing.length - 1]!.number + 1 : 0;
    for (;;) {
      try {
        const writer = await ChunkWriter.create(join(this.dir, chunkFileName(number, true)), this.header);
        return { writer, number };
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        number++; // another writer took this number meanwhile
      }
    }
  }

  private async finishChunk(): Promise<void> {
    const chunk = this.current;
    if (!chunk) return;
    this.current = null;
    const { writer, number } = chunk;
    if (!writer.intact) {
      // A write failed and could not be undone: leave the `.tmp` for recovery by readers.
      await writer.close();
      return;
    }
    if (writer.episodes === 0) {
      // Nothing but a header (the first append was refused): remove it rather than keep an empty chunk.
      await writer.close();
      await unlink(writer.file);
      return;
    }
    try {
      await writer.sync();
    } finally {
      await writer.close();
    }
    await rename(writer.file, join(this.dir, chunkFileName(number, false)));
    await syncDir(this.dir);
  }
}
