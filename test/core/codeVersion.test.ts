import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
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

test("installed inside another project's git checkout, the version alone: not that project's commit", async () => {
  const host = mkdtempSync(join(tmpdir(), 'wmrl-host-'));
  try {
    const pkg = join(host, 'node_modules', 'wmrl');
    mkdirSync(join(pkg, 'src', 'core'), { recursive: true });
    copyFileSync(new URL('../../src/core/codeVersion.ts', import.meta.url), join(pkg, 'src', 'core', 'codeVersion.ts'));
    writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'wmrl', version: '9.9.9' }));
    const git = (...args: string[]) => execFileSync('git', args, { cwd: host, stdio: 'ignore' });
    git('init', '-q');
    git('-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-q', '--allow-empty', '-m', 'host');
    const installed = (await import(pathToFileURL(join(pkg, 'src', 'core', 'codeVersion.ts')).href)) as {
      codeVersion: () => { version: string; commit?: string };
    };
    assert.deepEqual(installed.codeVersion(), { version: '9.9.9' });
  } finally {
    rmSync(host, { recursive: true, force: true });
  }
});
