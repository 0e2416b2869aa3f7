/**
 * Which code made the runs a benchmark reads. Runs are reused by their config alone (staleRuns.ts), so a result can
 * mix runs made by several commits; each run's config records its code (src/core/codeVersion.ts), and the results
 * say how many runs each commit made.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Runs per commit (short hash, `+changes` where tracked files differed from it; `unrecorded` before the record). */
export function runCommits(runDirs: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const dir of runDirs) {
    const file = join(dir, 'train.config.json');
    const code = existsSync(file)
      ? (JSON.parse(readFileSync(file, 'utf8')) as { code?: { commit?: string; changed?: boolean } }).code
      : undefined;
    const key = code?.commit ? `${code.commit.slice(0, 7)}${code.changed ? '+changes' : ''}` : 'unrecorded';
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

/** One line for the results: the runs per commit, most first. */
export function describeRunCommits(counts: Record<string, number>): string {
  const parts = Object.entries(counts)
    .sort((a, b) => b[1] - a[1])
    .map(([commit, n]) => `${n} by ${commit}`);
  return `Runs by code (matched by config when reused, not by code): ${parts.join(', ')}.`;
}
