/** `wmrl sim-server` as a real child process (lockstep, 16×16 frames) for tests that kill robots. */
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';

const BIN = resolve('bin/wmrl.js');

/** Starts the server on `port` (0: a free one); resolves with the child and its port once it listens. */
export function startSimServer(port = 0): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [BIN, 'sim-server', '--port', String(port), '--lockstep', '--image-size', '16', '--heartbeat-ms', '0', '--quiet'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  return new Promise((resolvePort, reject) => {
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /listening on ws:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (m) resolvePort({ child, port: Number(m[1]) });
    });
    child.once('exit', (code) => reject(new Error(`sim-server exited (${code}) before listening: ${err}`)));
  });
}
