/**
 * `wmrl sim-server` as a child process: a robot that tests and benchmarks can really kill and
 * restart. Resolves once the server prints the address it listens on.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/wmrl.js', import.meta.url));

export function startSimServerProcess(args: string[]): Promise<{ child: ChildProcess; port: number; url: string }> {
  const child = spawn(process.execPath, [BIN, 'sim-server', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /listening on (ws:\/\/[^\s:]+:(\d+))/.exec(out);
      if (m) resolve({ child, port: Number(m[2]), url: m[1]! });
    });
    child.once('exit', (code) => reject(new Error(`sim-server exited (${code}) before listening: ${err}`)));
  });
}
