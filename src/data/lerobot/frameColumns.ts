/**
 * Typed columns out of an episode's parquet rows, each cell checked: a vector feature must hold
 * `dim` finite numbers in every frame, a scalar one number (or a one-element list, as LeRobot
 * sometimes stores shape-(1,) features), a flag a boolean. Errors name the file, feature and frame.
 */
import { LerobotFormatError } from './lerobotInfo.ts';
import type { EpisodeFrames } from './lerobotSource.ts';

function cellNumber(v: unknown): number | undefined {
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'number') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  return undefined;
}

/** `frames × dim` values of a vector feature, row-major. */
export function vectorColumn(frames: EpisodeFrames, feature: string, dim: number): Float32Array {
  const out = new Float32Array(frames.rows.length * dim);
  frames.rows.forEach((row, t) => {
    const cell = row[feature];
    if (!Array.isArray(cell) || cell.length !== dim) {
      const got = Array.isArray(cell) ? `${cell.length} values` : String(cell);
      throw new LerobotFormatError(frames.file, feature, `frame ${t}: expected ${dim} numbers, got ${got}`);
    }
    for (let i = 0; i < dim; i++) {
      const v = cellNumber(cell[i]);
      if (v === undefined || !Number.isFinite(v)) {
        throw new LerobotFormatError(frames.file, feature, `frame ${t}, value ${i}: ${String(cell[i])} is not finite`);
      }
      out[t * dim + i] = v;
    }
  });
  return out;
}

/** One number per frame (a bool counts 0/1). */
export function scalarColumn(frames: EpisodeFrames, feature: string): Float64Array {
  return Float64Array.from(frames.rows, (row, t) => {
    const raw = row[feature];
    const v = cellNumber(Array.isArray(raw) && raw.length === 1 ? raw[0] : raw);
    if (v === undefined || !Number.isFinite(v)) {
      throw new LerobotFormatError(frames.file, feature, `frame ${t}: ${String(raw)} is not a finite number`);
    }
    return v;
  });
}

/** The encoded image bytes of an `image` feature (HF datasets store `{bytes, path}` structs). */
export function imageColumn(frames: EpisodeFrames, feature: string): Uint8Array[] {
  return frames.rows.map((row, t) => {
    const cell = row[feature] as { bytes?: unknown } | null | undefined;
    if (!cell || !(cell.bytes instanceof Uint8Array)) {
      throw new LerobotFormatError(
        frames.file,
        feature,
        `frame ${t}: no embedded image bytes (path-only images are not read)`,
      );
    }
    return cell.bytes;
  });
}
