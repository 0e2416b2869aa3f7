/**
 * A `wmrl` command as a child process whose output a test watches: the tests run the commands as
 * a user would, and wait for the lines the user would read.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';

export const WMRL_BIN = resolve(import.meta.dirname, '..', '..', 'bin', 'wmrl.js');

export interface WmrlProcess {
  child: ChildProcess;
  output: () => { stdout: string; stderr: string };
  /** The exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  /** The first match of `pattern` in stdout + stderr; throws (with the output) after `ms` or an exit. */
  waitFor: (pattern: RegExp, ms?: number) => Promise<RegExpExecArray>;
}

export function spawnWmrl(args: string[]): WmrlProcess {
  const child = spawn(process.execPath, [WMRL_BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  const waitFor = async (pattern: RegExp, ms = 60_000) => {
    const deadline = Date.now() + ms;
    for (;;) {
      const m = pattern.exec(stdout + stderr);
      if (m) return m;
      if (Date.now() > deadline || child.exitCode !== null)
        throw new Error(`no ${pattern} in the output of wmrl ${args[0]}:\n${stdout}\n${stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  return { child, output: () => ({ stdout, stderr }), exited, waitFor };
}

const execWmrl = promisify(execFile);

/** A `wmrl` command run to its end (killed after `timeoutMs`): its exit code and output. */
export async function runWmrl(
  args: string[],
  timeoutMs = 120_000,
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await execWmrl(process.execPath, [WMRL_BIN, ...args], { timeout: timeoutMs });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}
