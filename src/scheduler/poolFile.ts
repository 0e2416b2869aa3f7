/** Reads and writes the robot pool file (JSON): `wmrl robot add|remove|list` and `wmrl train --robots`. */
import { existsSync, readFileSync } from 'node:fs';
import { writeFileAtomic } from '../core/durableFs.ts';
import { poolFileSchema, type PoolFile } from './robotConfig.ts';

export function readPoolFile(file: string, options: { mustExist?: boolean } = {}): PoolFile {
  if (!existsSync(file)) {
    if (options.mustExist ?? true)
      throw new Error(`robot pool file ${file} does not exist (create it with \`wmrl robot add --pool ${file} …\`)`);
    return poolFileSchema.parse({});
  }
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`robot pool file ${file} is not valid JSON: ${(err as Error).message}`);
  }
  const parsed = poolFileSchema.safeParse(raw);
  if (!parsed.success)
    throw new Error(
      `robot pool file ${file}: ` +
        `${parsed.error.issues.map((i) => `${i.path.join('.') || '(top)'}: ${i.message}`).join('; ')}`,
    );
  return parsed.data;
}

/** Atomic replace: a crash leaves the old file or the new one, never half of one. */
export async function writePoolFile(file: string, pool: PoolFile): Promise<void> {
  const text = JSON.stringify(pool, (_, v: unknown) => (v === Infinity ? 'max' : v), 2) + '\n';
  poolFileSchema.parse(JSON.parse(text)); // what is written must read back
  await writeFileAtomic(file, text);
}
