/**
 * `wmrl` itself as a child process, for work beside the one running: the demo's noisier demonstrations,
 * real-only GRPO and some of WMRL's evaluations run so on the other core.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** This package's CLI. */
const WMRL_BIN = fileURLToPath(new URL('../../bin/wmrl.js', import.meta.url));

/** `wmrl ARGS` as a child process, its output appended to `log`; killed if this process exits first. */
export function runChild(args: string[], log: string, what: string): Promise<void> {
  const logFd = openSync(log, 'a');
  const child = spawn(process.execPath, [WMRL_BIN, ...args], { stdio: ['ignore', logFd, logFd] });
  closeSync(logFd);
  const kill = () => child.kill('SIGTERM');
  process.once('exit', kill);
  return new Promise<void>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      process.removeListener('exit', kill);
      if (code === 0) return resolve();
      const tail = readFileSync(log, 'utf8').split('\n').slice(-15).join('\n');
      reject(new Error(`${what} (wmrl ${args.join(' ')}) failed (${signal ?? code}); ${log} ends:\n${tail}`));
    });
  });
}
