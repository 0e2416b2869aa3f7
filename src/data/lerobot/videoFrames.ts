/**
 * Camera frames in and out of LeRobot's mp4 files, through the shipped ffmpeg.
 *
 * Frames are RGB, row-major, `height × width × 3` bytes each (wmrl's layout). Decoding seeks to an
 * episode's `from_timestamp` (v3.0 packs many episodes into one file) and scales to the size asked
 * for; encoding writes H.264 (libx264, yuv420p, a keyframe every 2 frames as LeRobot's encoder
 * does) that LeRobot's decoders (torchcodec, PyAV) read.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { ffmpegPath, runFfmpeg } from './ffmpegBinary.ts';

export interface FrameSize {
  width: number;
  height: number;
}

/** Decodes `count` frames of `file` from `fromSeconds` on (every `stride`-th, default all), scaled to `size`. */
export async function decodeVideoFrames(
  file: string,
  options: { fromSeconds: number; count: number; fps: number; size: FrameSize; stride?: number },
): Promise<Uint8Array> {
  const { width, height } = options.size;
  const frameBytes = width * height * 3;
  // Seek half a frame early: a start time that rounds a hair past the frame's own stamp would skip it.
  const seek = Math.max(0, options.fromSeconds - 0.5 / options.fps);
  const args = [
    ...(seek > 0 ? ['-ss', seek.toFixed(6)] : []),
    '-i',
    file,
    '-frames:v',
    String(options.count),
    '-vsync',
    '0',
    '-vf',
    `${(options.stride ?? 1) > 1 ? `select=not(mod(n\\,${options.stride})),` : ''}scale=${width}:${height}:flags=area`,
    '-f',
    'rawvideo',
    '-pix_fmt',
    'rgb24',
    'pipe:1',
  ];
  const what = `${file} (frames from ${options.fromSeconds.toFixed(3)} s)`;
  const out = await runFfmpeg(args, { what });
  if (out.length !== options.count * frameBytes) {
    throw new Error(
      `${what}: expected ${options.count} frames of ${width}×${height}, ` +
        `the video gave ${Math.floor(out.length / frameBytes)}`,
    );
  }
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}

/** Decodes still images (PNG or JPEG bytes, as LeRobot's `image` features store them), scaled to `size`. */
export async function decodeImages(images: readonly Uint8Array[], size: FrameSize, what: string): Promise<Uint8Array> {
  if (images.length === 0) return new Uint8Array(0);
  const { width, height } = size;
  const args = ['-f', 'image2pipe', '-i', 'pipe:0', '-vsync', '0', '-vf', `scale=${width}:${height}:flags=area`];
  const out = await runFfmpeg([...args, '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1'], {
    input: [...images],
    what,
  });
  if (out.length !== images.length * width * height * 3) {
    throw new Error(`${what}: expected ${images.length} images, ffmpeg decoded ${out.length / (width * height * 3)}`);
  }
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}

export interface EncoderOptions {
  size: FrameSize;
  fps: number;
  /**
   * `standard`: yuv420p at crf 18, what LeRobot writes and every player reads (colour is stored at half
   * resolution, so sharp colour edges of small frames blur). `lossless`: yuv444p at crf 0, every pixel
   * within 2 of the source (8-bit RGB ⇄ YUV rounding); H.264 High 4:4:4, which LeRobot's ffmpeg-based
   * decoders read (browsers may not).
   */
  quality?: VideoQuality;
}

export type VideoQuality = 'standard' | 'lossless';

/** The codec settings LeRobot's `info.json` records for a video feature that `VideoEncoder` writes. */
export function encodedVideoInfo(options: EncoderOptions): Record<string, unknown> {
  return {
    'video.height': options.size.height,
    'video.width': options.size.width,
    'video.codec': 'h264',
    'video.pix_fmt': pixelFormat(options),
    'video.is_depth_map': false,
    'video.fps': options.fps,
    'video.channels': 3,
    has_audio: false,
  };
}

// yuv420p needs even sides; odd ones keep full chroma (yuv444p) whatever the quality.
function pixelFormat(options: EncoderOptions): string {
  const even = options.size.width % 2 === 0 && options.size.height % 2 === 0;
  return options.quality === 'lossless' || !even ? 'yuv444p' : 'yuv420p';
}

/** Streams RGB frames into one mp4 file. `close()` waits for ffmpeg and reports its failure. */
export class VideoEncoder {
  readonly #child: ChildProcessByStdio<Writable, null, Readable>;
  readonly #done: Promise<void>;
  readonly #frameBytes: number;
  frames = 0;

  constructor(
    readonly file: string,
    readonly options: EncoderOptions,
  ) {
    const { width, height } = options.size;
    this.#frameBytes = width * height * 3;
    const args = [
      '-hide_banner',
      '-loglevel',
      'error',
      '-f',
      'rawvideo',
      '-pix_fmt',
      'rgb24',
      '-s',
      `${width}x${height}`,
      '-r',
      String(options.fps),
      '-i',
      'pipe:0',
      '-c:v',
      'libx264',
      '-pix_fmt',
      pixelFormat(options),
      '-g',
      '2',
      '-crf',
      options.quality === 'lossless' ? '0' : '18',
      '-threads',
      '1',
      '-movflags',
      '+faststart',
      '-y',
      file,
    ];
    this.#child = spawn(ffmpegPath(), args, { stdio: ['pipe', 'ignore', 'pipe'] });
    const stderr: Buffer[] = [];
    this.#child.stderr.on('data', (b: Buffer) => stderr.push(b));
    this.#child.stdin.on('error', () => {}); // reported by the exit status below, with ffmpeg's message
    this.#done = new Promise((resolve, reject) => {
      this.#child.on('error', (e) => reject(new Error(`${file}: cannot run ffmpeg (${e.message})`)));
      this.#child.on('close', (code, signal) => {
        if (code === 0) return resolve();
        const text = Buffer.concat(stderr).toString('utf8').trim().split('\n').slice(-5).join('\n');
        reject(new Error(`${file}: ffmpeg encoding failed (${signal ?? `exit ${code}`}): ${text || 'no message'}`));
      });
    });
    this.#done.catch(() => {}); // surfaced by close()
  }

  /** Appends frames (a whole number of `height × width × 3` images). */
  async write(frames: Uint8Array): Promise<void> {
    if (frames.byteLength % this.#frameBytes !== 0) {
      throw new Error(`${this.file}: ${frames.byteLength} bytes is not a whole number of frames`);
    }
    this.frames += frames.byteLength / this.#frameBytes;
    if (!this.#child.stdin.write(frames)) {
      await Promise.race([new Promise((r) => this.#child.stdin.once('drain', r)), this.#done]);
    }
  }

  /** Finishes the file. */
  async close(): Promise<void> {
    this.#child.stdin.end();
    await this.#done;
  }

  /** Stops without finishing the file (after an error elsewhere). */
  kill(): void {
    this.#child.kill('SIGKILL');
  }
}
