import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeRunCommits, runCommits } from '../../bench/runCode.ts';

test("the benchmark counts its runs by the commit that made them (reused runs may be older code's)", () => {
  const root = mkdtempSync(join(tmpdir(), 'wmrl-runcode-'));
  try {
    const run = (name: string, code?: object) => {
      const dir = join(root, name);
      mkdirSync(dir);
      writeFileSync(join(dir, 'train.config.json'), JSON.stringify({ config: {}, ...(code ? { code } : {}) }));
      return dir;
    };
    const a = 'a'.repeat(40);
    const dirs = [
      run('new1', { version: '0.1.0', commit: a, changed: false }),
      run('new2', { version: '0.1.0', commit: a, changed: false }),
      run('dirty', { version: '0.1.0', commit: 'b'.repeat(40), changed: true }),
      run('old'),
    ];
    const counts = runCommits(dirs);
    assert.deepEqual(counts, { aaaaaaa: 2, 'bbbbbbb+changes': 1, unrecorded: 1 });
    assert.equal(
      describeRunCommits(counts),
      'Runs by code (matched by config when reused, not by code): 2 by aaaaaaa, 1 by bbbbbbb+changes, 1 by unrecorded.',
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
