/**
 * The operator's terminal driven by a script, in a real pseudo-terminal: util-linux `script` (in
 * Debian's essential bsdutils, so on every Debian) gives the child a TTY as stdin and stdout. The
 * child resets a rosbridge robot through the operator (its reset service would fail if called),
 * takes one confirmation on the terminal and one from the viewer's file, and one typed label.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const CHILD = join(import.meta.dirname, 'operatorTerminalChild.ts');

function requireScript(): void {
  const probe = spawnSync('script', ['--version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0)
    throw new Error('this test needs util-linux `script` for a pseudo-terminal: apt-get install bsdutils');
}

test('operator reset prompt on a pseudo-terminal: set-up shown, Enter confirms, the viewer can too', async () => {
  requireScript();
  const runDir = mkdtempSync(join(tmpdir(), 'wmrl-operator-pty-'));
  const command = `${process.execPath} --import tsx ${CHILD} ${runDir}`;
  const child = spawn('script', ['-qfec', command, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let screen = '';
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d: string) => (screen += d));
  const waiters: { pattern: RegExp; resolve: () => void }[] = [];
  child.stdout.on('data', (d: string) => {
    screen += d;
    for (const w of waiters.splice(0))
      if (w.pattern.test(screen)) w.resolve();
      else waiters.push(w);
  });
  const seen = (pattern: RegExp, what: string) =>
    new Promise<void>((resolve, reject) => {
      if (pattern.test(screen)) return resolve();
      const timer = setTimeout(
        () => reject(new Error(`no ${what} within 60 s; the terminal showed:\n${screen}`)),
        60_000,
      );
      waiters.push({
        pattern,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    await seen(/ready> /, 'reset prompt');
    assert.match(screen, /set the scene up on robot vx300/);
    assert.match(screen, /next instruction: .+/);
    assert.match(screen, /- place the \w+ block on the table, clear of the \w+ goal zone/);
    assert.match(screen, /RESULT tty true/);
    await new Promise((r) => setTimeout(r, 300));
    child.stdin.write('\r'); // Enter, as a terminal sends it
    await seen(/RESULT reset1 /, 'first reset');
    const reset1 = JSON.parse(/RESULT reset1 (.*)/.exec(screen)![1]!) as { seconds: number; qpos: number };
    // The reset's time is the operator's: at least the 300 ms before Enter.
    assert.ok(reset1.seconds >= 0.3 && reset1.seconds < 30, `reset took ${reset1.seconds} s`);
    assert.equal(reset1.qpos, 7);
    await seen(/answered in the viewer/, 'the withdrawn second prompt');
    await seen(/label> /, 'label prompt');
    child.stdin.write('x\r');
    await seen(/answer s \(success\), f \(failure\) or k \(skip\)/, 'the re-asked label');
    child.stdin.write('f knocked it over\r');
    await seen(/RESULT labels /, 'labels');
    assert.equal(await exited, 0, screen);
    assert.deepEqual(JSON.parse(/RESULT label (.*)/.exec(screen)![1]!), { success: false, note: 'knocked it over' });
    const labels = JSON.parse(/RESULT labels (.*)/.exec(screen)![1]!) as { episode: string; by: string }[];
    assert.deepEqual(
      labels.map((l) => [l.episode, l.by]),
      [['run.s1.g0.r0', 'terminal']],
    );
  } finally {
    child.kill('SIGKILL');
    rmSync(runDir, { recursive: true, force: true });
  }
});
