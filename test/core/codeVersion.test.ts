import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { codeVersion } from '../../src/core/codeVersion.ts';
import { RunLog } from '../../src/core/runLog.ts';

test("every run's config records the code that ran it: the package version, and in a checkout its commit", () => {
  const code = codeVersion();
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  assert.equal(code.version, pkg.version);
  // The tests run in a git checkout (CI clones one): the commit is a full hash, and whether files changed is known.
  assert.match(code.commit ?? '', /^[0-9a-f]{40}$/, 'run the tests in a git checkout of wmrl');
  assert.equal(typeof code.changed, 'boolean');
  const dir = mkdtempSync(join(tmpdir(), 'wmrl-code-'));
  try {
    const log = new RunLog(dir, 'demo', { command: 'demo', seed: 3 });
    assert.deepEqual(JSON.parse(readFileSync(log.configFile, 'utf8')), { command: 'demo', seed: 3, code });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
