/**
 * The ffmpeg binary that ships inside the `@ffmpeg-installer/<platform>` npm package (installed with
 * `@ffmpeg-installer/ffmpeg`; nothing is downloaded at install or run time). It is a static
 * ffmpeg 4.1 build: it decodes H.264, HEVC, VP9 and AV1 (libaom) and encodes H.264 (libx264).
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';

let cached: string | undefined;

/** The absolute path of the shipped ffmpeg; an error saying what to install when it is missing. */
export function ffmpegPath(): string {
  if (cached) return cached;
  try {
    const installer = createRequire(import.meta.url)('@ffmpeg-installer/ffmpeg') as { path: string };
    cached = installer.path;
    return cached;
  } catch (err) {
    // The installer throws plain strings ("Unsupported platform/architecture: …").
    const why = err instanceof Error ? err.message : String(err);
    throw new Error(
      `LeRobot videos need the ffmpeg binary of the npm package @ffmpeg-installer/ffmpeg ` +
        `(npm install, which brings its @ffmpeg-installer/<platform> package): ${why}`,
    );
  }
}

/** Runs ffmpeg to completion with `input` on stdin; resolves with stdout, rejects with its stderr. */
export function runFfmpeg(
  args: readonly string[],
  options: { input?: Uint8Array[]; what: string; expectBytes?: number },
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn(ffmpegPath(), ['-hide_banner', '-loglevel', 'error', '-nostdin', ...args], {
      stdio: [options.input ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout?.on('data', (b: Buffer) => out.push(b));
    child.stderr?.on('data', (b: Buffer) => err.push(b));
    child.on('error', (e) => reject(new Error(`${options.what}: cannot run ffmpeg (${e.message})`)));
    child.on('close', (code, signal) => {
      if (code === 0) return resolve(Buffer.concat(out));
      const stderr = Buffer.concat(err).toString('utf8').trim().split('\n').slice(-5).join('\n');
      reject(new Error(`${options.what}: ffmpeg failed (${signal ?? `exit ${code}`}): ${stderr || 'no message'}`));
    });
    if (options.input && child.stdin) {
      child.stdin.on('error', () => {}); // an early exit is reported by 'close' with ffmpeg's own message
      void (async () => {
        for (const chunk of options.input!) {
          if (!child.stdin!.write(chunk)) await new Promise((r) => child.stdin!.once('drain', r));
        }
        child.stdin!.end();
      })();
    }
  });
}
