/**
 * What code made a run: the package's version and, in a git checkout, its commit and whether tracked files
 * differed from it. Recorded in every run's config file, since a run reused by its config alone (the benchmark's
 * cache) may have been made by other code than the one now reading it.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface CodeVersion {
  /** package.json's version. */
  version: string;
  /** The git commit checked out, where the package is a git checkout. */
  commit?: string;
  /** Whether tracked files differed from that commit. */
  changed?: boolean;
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
let known: CodeVersion | undefined;

/** This process's code version (read once). */
export function codeVersion(): CodeVersion {
  if (known) return known;
  const { version } = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { version: string };
  known = { version, ...gitState() };
  return known;
}

function gitState(): { commit?: string; changed?: boolean } {
  const git = (args: string[]) =>
    execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 5000 });
  try {
    // Installed inside another project's checkout (node_modules/wmrl), git would answer for that project.
    if (realpathSync(git(['rev-parse', '--show-toplevel']).trim()) !== realpathSync(ROOT)) return {};
    const commit = git(['rev-parse', 'HEAD']).trim();
    return { commit, changed: git(['status', '--porcelain', '--untracked-files=no']).trim() !== '' };
  } catch {
    return {}; // not a git checkout (an installed package), or no git: the version alone
  }
}
