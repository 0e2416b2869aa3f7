/**
 * The Chromium the browser tests drive: Debian's `/usr/bin/chromium` when it is installed,
 * otherwise the one shipped inside the `@sparticuz/chromium` devDependency (a headless-shell
 * build with SwiftShader), so a fresh machine needs nothing beyond `npm install`.
 *
 * Both get the same intent: WebGL on the CPU (SwiftShader), no network of any kind (test
 * machines may have none, and Chromium's background traffic only adds refused connections), and
 * no sandbox only where it cannot work (root; the packaged build always runs without one, as its
 * own flags say).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';

const DEBIAN_CHROMIUM = '/usr/bin/chromium';

/** No background traffic, updates, sync or QUIC: the page under test is the only thing talking. */
const NO_NETWORK = [
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
];

/**
 * Flags of the packaged build's own list left out: three loosen the page's security (the tests
 * keep it as users get it), and `--single-process` ends the whole browser when a page closes.
 */
const LEFT_OUT = new Set([
  '--disable-web-security',
  '--allow-running-insecure-content',
  '--disable-site-isolation-trials',
  '--single-process',
]);

export interface TestChromium {
  executablePath: string;
  args: string[];
  /** Where it came from, for messages. */
  source: string;
}

/** Launch it; a start that fails says which Chromium it was and the usual missing library. */
export async function launchTestChromium(c: TestChromium): Promise<Browser> {
  try {
    return await chromium.launch({ executablePath: c.executablePath, args: c.args });
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    const hint = 'A missing shared library? The packaged Chromium needs NSS: apt-get install libnss3 (.ci/run does it)';
    throw new Error(`${c.source} (${c.executablePath}) did not start: ${why}\n${hint}`, { cause: e });
  }
}

export async function testChromium(): Promise<TestChromium> {
  if (existsSync(DEBIAN_CHROMIUM)) {
    return {
      executablePath: DEBIAN_CHROMIUM,
      args: [
        '--use-gl=swiftshader',
        '--enable-unsafe-swiftshader',
        ...NO_NETWORK,
        ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
      ],
      source: DEBIAN_CHROMIUM,
    };
  }
  const { default: Chromium } = await import('@sparticuz/chromium');
  Chromium.setGraphicsMode = true; // WebGL through SwiftShader (ANGLE)
  return {
    executablePath: await unpackedChromium(() => Chromium.executablePath()),
    args: [...Chromium.args.filter((a) => !LEFT_OUT.has(a)), ...NO_NETWORK],
    source: '@sparticuz/chromium (npm devDependency)',
  };
}

/**
 * The packaged Chromium unpacked once per version under node_modules/.cache/. The package
 * unpacks into os.tmpdir() and reuses whatever `chromium` it finds there (of any version, or
 * half-written by a killed run), so it unpacks into a fresh staging folder here, which is renamed
 * into place only when complete.
 */
async function unpackedChromium(unpack: () => Promise<string>): Promise<string> {
  const modules = join(import.meta.dirname, '..', '..', 'node_modules');
  const { version } = JSON.parse(readFileSync(join(modules, '@sparticuz', 'chromium', 'package.json'), 'utf8')) as {
    version: string;
  };
  const cache = join(modules, '.cache');
  const home = join(cache, `sparticuz-chromium-${version}`);
  const exe = join(home, 'chromium');
  if (existsSync(join(home, '.complete'))) return exe;
  mkdirSync(cache, { recursive: true });
  const staging = mkdtempSync(join(cache, `sparticuz-chromium-${version}.staging-`));
  const savedTmp = process.env.TMPDIR;
  process.env.TMPDIR = staging; // os.tmpdir() reads it on every call
  try {
    const unpacked = await unpack();
    if (unpacked !== join(staging, 'chromium'))
      throw new Error(`@sparticuz/chromium unpacked to ${unpacked}, expected ${staging}`);
  } catch (e) {
    rmSync(staging, { recursive: true, force: true });
    throw e;
  } finally {
    if (savedTmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = savedTmp;
  }
  writeFileSync(join(staging, '.complete'), `${version}\n`);
  rmSync(home, { recursive: true, force: true }); // an incomplete one (no .complete)
  try {
    renameSync(staging, home);
  } catch (e) {
    rmSync(staging, { recursive: true, force: true });
    // Another process got there first.
    if (!existsSync(join(home, '.complete'))) throw e;
  }
  return exe;
}
