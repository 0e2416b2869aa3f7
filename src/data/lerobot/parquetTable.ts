/**
 * Parquet files as LeRobot keeps them: read with hyparquet (every codec pyarrow writes: snappy, the
 * pandas default, plus zstd, gzip, brotli, lz4 through hyparquet-compressors), written with
 * hyparquet-writer as pyarrow lays columns out: OPTIONAL leaves, lists as the standard three-level
 * `LIST` group (`list` / `element`), strings as UTF8, snappy compression.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { parquetMetadata, parquetReadObjects, parquetSchema, type SchemaElement } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { LerobotFormatError } from './lerobotInfo.ts';

export type ParquetRow = Record<string, unknown>;

export interface ParquetTable {
  file: string;
  /** Top-level column names, in file order. */
  columns: string[];
  rows: ParquetRow[];
}

/** Reads every row of `file`: only `columns` when given (a list that must exist, or a filter on names). */
export async function readParquet(
  file: string,
  columns?: readonly string[] | ((name: string) => boolean),
): Promise<ParquetTable> {
  const bytes = await readFile(file);
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  try {
    const metadata = parquetMetadata(buffer);
    const names = parquetSchema(metadata).children.map((c) => c.element.name);
    const wanted = typeof columns === 'function' ? names.filter(columns) : columns;
    const missing = wanted?.filter((c) => !names.includes(c)) ?? [];
    if (missing.length > 0) {
      throw new LerobotFormatError(file, missing[0]!, `no such column (the file has ${names.join(', ')})`);
    }
    const rows = await parquetReadObjects({
      file: buffer,
      metadata,
      compressors,
      ...(wanted ? { columns: [...wanted] } : {}),
    });
    return { file, columns: names, rows };
  } catch (err) {
    if (err instanceof LerobotFormatError) throw err;
    throw new LerobotFormatError(file, null, `not a readable parquet file: ${(err as Error).message}`);
  }
}

/** A leaf type, as LeRobot's features name them. */
export type ParquetLeaf = 'float32' | 'float64' | 'int64' | 'bool' | 'string';

export interface ParquetColumn {
  name: string;
  leaf: ParquetLeaf;
  /** How many list levels wrap the leaf: 0 a scalar, 1 a vector, 3 an image statistic (c × 1 × 1). */
  listDepth: number;
  /** One value per row: numbers (bigint for int64), booleans, strings, or nested arrays of them. */
  data: unknown[];
}

const LEAF_ELEMENTS: Record<ParquetLeaf, Omit<SchemaElement, 'name'>> = {
  float32: { type: 'FLOAT' },
  float64: { type: 'DOUBLE' },
  int64: { type: 'INT64' },
  bool: { type: 'BOOLEAN' },
  string: { type: 'BYTE_ARRAY', converted_type: 'UTF8' },
};

function columnSchema(column: ParquetColumn): SchemaElement[] {
  const out: SchemaElement[] = [];
  let name = column.name;
  for (let level = 0; level < column.listDepth; level++) {
    out.push({ name, repetition_type: 'OPTIONAL', converted_type: 'LIST', num_children: 1 });
    out.push({ name: 'list', repetition_type: 'REPEATED', num_children: 1 });
    name = 'element';
  }
  out.push({ name, repetition_type: 'OPTIONAL', ...LEAF_ELEMENTS[column.leaf] });
  return out;
}

/** Writes `columns` (all of one length) to `file`, with optional key-value metadata (e.g. pandas', HF's). */
export async function writeParquet(
  file: string,
  columns: readonly ParquetColumn[],
  kvMetadata: Record<string, string> = {},
): Promise<void> {
  const rows = columns[0]?.data.length ?? 0;
  const ragged = columns.find((c) => c.data.length !== rows);
  if (ragged) throw new Error(`${file}: column ${ragged.name} has ${ragged.data.length} rows, not ${rows}`);
  const schema: SchemaElement[] = [{ name: 'schema', num_children: columns.length }, ...columns.flatMap(columnSchema)];
  const buffer = parquetWriteBuffer({
    columnData: columns.map((c) => ({ name: c.name, data: c.data })),
    schema,
    kvMetadata: Object.entries(kvMetadata).map(([key, value]) => ({ key, value })),
    createdBy: 'wmrl (hyparquet-writer)',
  });
  await writeFile(file, new Uint8Array(buffer));
}
