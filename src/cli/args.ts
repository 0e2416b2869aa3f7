/** Small typed layer over node:util parseArgs: unknown flags and bad numbers are errors. */
import { parseArgs, type ParseArgsConfig } from 'node:util';

export class UsageError extends Error {
  override name = 'UsageError';
}

type Options = NonNullable<ParseArgsConfig['options']>;

export function parseFlags<T extends Options>(argv: string[], options: T, allowPositionals = false) {
  try {
    return parseArgs({ args: argv, options, allowPositionals, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

export function intFlag(value: string | undefined, name: string, fallback: number, min = 0): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`--${name} must be an integer >= ${min}, got '${value}'`);
  return n;
}

export function numberFlag(
  value: string | undefined,
  name: string,
  fallback: number,
  min = -Infinity,
  max = Infinity,
): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n < min || n > max)
    throw new UsageError(`--${name} must be a number in [${min}, ${max}], got '${value}'`);
  return n;
}

export function choiceFlag<C extends string>(
  value: string | undefined,
  name: string,
  choices: readonly C[],
  fallback: C,
): C {
  if (value === undefined) return fallback;
  if (!choices.includes(value as C))
    throw new UsageError(`--${name} must be one of ${choices.join(', ')}, got '${value}'`);
  return value as C;
}

/**
 * `wmrl import|export FORMAT DIR --out DIR`: the positionals and --out of a dataset conversion, or
 * a usage error that says what is missing (formats: the ones `verb` knows).
 */
export function conversionTarget(
  verb: 'imports' | 'exports',
  positionals: string[],
  out: string | undefined,
  help: string,
): { source: string; out: string } {
  const [format, source, ...extra] = positionals;
  if (format !== 'lerobot') throw new UsageError(`unknown format '${format ?? ''}' (wmrl ${verb}: lerobot)\n\n${help}`);
  if (!source || extra.length > 0) throw new UsageError(`give one dataset folder\n\n${help}`);
  if (!out) throw new UsageError(`--out DIR is required\n\n${help}`);
  return { source, out };
}
