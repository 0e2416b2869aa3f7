/**
 * Every run writes its resolved config (with the code version that ran it) and a JSONL metrics log beside its
 * outputs.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { codeVersion } from './codeVersion.ts';

export class RunLog {
  readonly dir: string;
  readonly configFile: string;
  readonly metricsFile: string;

  /** `name` prefixes the files, e.g. `collect-2026-11-30T04-43-00Z`. `append` keeps an existing
   * metrics log (a resumed run) instead of starting it afresh. */
  constructor(dir: string, name: string, resolvedConfig: unknown, options: { append?: boolean } = {}) {
    mkdirSync(dir, { recursive: true });
    this.dir = dir;
    this.configFile = join(dir, `${name}.config.json`);
    this.metricsFile = join(dir, `${name}.metrics.jsonl`);
    const record =
      typeof resolvedConfig === 'object' && resolvedConfig !== null && !Array.isArray(resolvedConfig)
        ? { ...resolvedConfig, code: codeVersion() }
        : resolvedConfig;
    writeFileSync(this.configFile, JSON.stringify(record, null, 2) + '\n');
    if (!options.append || !existsSync(this.metricsFile)) writeFileSync(this.metricsFile, '');
  }

  /** Append one metrics record (a line of JSON with a timestamp). */
  log(record: Record<string, unknown>): void {
    appendFileSync(this.metricsFile, JSON.stringify({ time: new Date().toISOString(), ...record }) + '\n');
  }
}

/** The records of a metrics log (RunLog.metricsFile), in the order written. */
export function readRunLog(metricsFile: string): Record<string, unknown>[] {
  return readFileSync(metricsFile, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** A file-name-safe timestamp for run names. */
export function runStamp(date = new Date()): string {
  return date.toISOString().replace(/[:.]/g, '-');
}
