/** `wmrl frames DIR --episode N --out FILE.png`: a recorded episode's camera frames as PNG images. */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Episode, Image } from '../core/types.ts';
import { EpisodeStore } from '../data/episodeStore.ts';
import { encodePng } from '../../sim/rosbridge/png.ts';
import { intFlag, parseFlags, UsageError } from './args.ts';

const HELP = `usage: wmrl frames DIR --episode N --out FILE.png [--camera NAME] [--step T] [--scale K]
       wmrl frames DIR --episode N --out FOLDER --steps all|T1,T2,... [--camera NAME] [--scale K]

  DIR               a wmrl dataset folder (wmrl collect, wmrl import)
  --episode N       the episode: its place in the dataset, from 0 in storage order (aborted
                    episodes count), or its id
  --camera NAME     which recorded camera (default: the episode's first)
  --step T          the frame at time step T, 0 … the episode's steps (default 0)
  --steps S         several frames: 'all', or time steps separated by commas; --out is then a
                    folder (created if absent) that receives CAMERA-TTTT.png per step, e.g. scene-0010.png
  --scale K         nearest-neighbour upscale, K×K pixels per frame pixel, so that a 64×64
                    frame is visible (default 4; 1 writes the frame as recorded)
  --out PATH        the PNG file (one step) or the folder (--steps)`;

/** `image` with every pixel repeated as a `k`×`k` block. */
export function upscaleNearest(image: Image, k: number): Image {
  if (k === 1) return image;
  const { width, height, data } = image;
  const outWidth = width * k;
  const out = new Uint8Array(outWidth * height * k * 3);
  const row = new Uint8Array(outWidth * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const src = (y * width + x) * 3;
      for (let i = 0; i < k; i++) row.set(data.subarray(src, src + 3), (x * k + i) * 3);
    }
    for (let i = 0; i < k; i++) out.set(row, (y * k + i) * outWidth * 3);
  }
  return { width: outWidth, height: height * k, data: out };
}

/** The episode `which` names (an index from 0 over every stored record, or an id); else says what there is. */
async function findEpisode(store: EpisodeStore, which: string): Promise<Episode> {
  const index = /^\d+$/.test(which) ? Number(which) : undefined;
  let count = 0;
  for await (const { episode } of store.records({ onIssue: () => {} })) {
    if (index === undefined ? episode.id === which : count === index) return episode;
    count++;
  }
  const has =
    count === 0
      ? `${store.dir} holds no episodes`
      : `${store.dir} holds ${count} episode${count === 1 ? '' : 's'} (--episode 0 … ${count - 1}, or an episode id)`;
  throw new UsageError(index === undefined ? `no episode with id '${which}': ${has}` : `no episode ${index}: ${has}`);
}

function parseSteps(spec: string, last: number): number[] {
  if (spec === 'all') return Array.from({ length: last + 1 }, (_, t) => t);
  const parts = spec.split(',').filter((s) => s.trim() !== '');
  if (parts.length === 0)
    throw new UsageError(`--steps must be 'all' or time steps separated by commas, got '${spec}'`);
  return parts.map((s) => intFlag(s.trim(), 'steps', 0));
}

export const command = {
  summary: "write a recorded episode's camera frames as PNG images",
  async run(argv: string[]): Promise<number> {
    const { values, positionals } = parseFlags(
      argv,
      {
        episode: { type: 'string' },
        camera: { type: 'string' },
        step: { type: 'string' },
        steps: { type: 'string' },
        scale: { type: 'string' },
        out: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      true,
    );
    if (values.help) {
      console.log(HELP);
      return 0;
    }
    const dir = positionals[0];
    if (!dir || positionals.length > 1) throw new UsageError(`give one dataset folder\n\n${HELP}`);
    if (values.episode === undefined) throw new UsageError(`--episode N is required\n\n${HELP}`);
    if (!values.out) throw new UsageError(`--out PATH is required\n\n${HELP}`);
    if (values.step !== undefined && values.steps !== undefined)
      throw new UsageError('give --step T (one frame) or --steps (several), not both');
    const scale = intFlag(values.scale, 'scale', 4, 1);
    const step = intFlag(values.step, 'step', 0);

    const store = await EpisodeStore.open(dir);
    const episode = await findEpisode(store, values.episode);
    const cameras = Object.keys(episode.cameras);
    if (cameras.length === 0)
      throw new UsageError(
        `episode ${episode.id} in ${dir} has no camera images (the dataset was recorded without cameras)`,
      );
    const camera = values.camera ?? cameras[0]!;
    const recorded = episode.cameras[camera];
    if (!recorded)
      throw new UsageError(`episode ${episode.id} has no camera '${camera}'; cameras: ${cameras.join(', ')}`);
    const steps = values.steps === undefined ? [step] : parseSteps(values.steps, episode.steps);
    const bad = steps.find((t) => t > episode.steps);
    if (bad !== undefined)
      throw new UsageError(
        `no step ${bad}: episode ${episode.id} has ${episode.steps} steps (frames 0 … ${episode.steps})`,
      );

    const { width, height, frames } = recorded;
    const frameBytes = width * height * 3;
    const png = (t: number) =>
      encodePng(upscaleNearest({ width, height, data: frames.subarray(t * frameBytes, (t + 1) * frameBytes) }, scale));
    const written: string[] = [];
    if (values.steps === undefined) {
      await mkdir(dirname(values.out), { recursive: true });
      await writeFile(values.out, png(step));
      written.push(values.out);
    } else {
      await mkdir(values.out, { recursive: true });
      for (const t of steps) {
        const file = join(values.out, `${camera}-${String(t).padStart(4, '0')}.png`);
        await writeFile(file, png(t));
        written.push(file);
      }
    }
    const what = written.length === 1 ? written[0] : `${written.length} frames to ${values.out}`;
    console.log(
      `wrote ${what} (episode ${episode.id}, '${episode.task.instruction}', camera ${camera}, ` +
        `${width * scale}×${height * scale})`,
    );
    return 0;
  },
};
