/**
 * `npm run bench:scenes`: memory against the number of scenes one process runs. Episodes of reach, pick and push
 * (each task and seed its own layout, so the mix of objects varies) reset one after another in one simulator, a few
 * random steps each: every new mix of objects compiles the arm anew (about 61 MB for SO-101's meshes), and the
 * simulator keeps compiled scenes within MAX_COMPILED_SCENE_BYTES. Samples the process RSS, the WebAssembly heap
 * (capped at 2 GB) and the compiled scenes' bytes every few scenes; writes bench/results/scenes-<robot>.json and
 * .svg (memory against scenes, the heap's ceiling and the scene budget marked) and prints a summary line.
 *   --robot NAME   a robot under robots/ (default so101)
 *   --scenes N     episodes (default 1000)
 *   --every N      scenes between samples (default 10)
 *   --steps N      random steps per episode (default 3)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { loadRobot } from '../src/core/robotDescription.ts';
import { RandomController } from '../src/envs/randomController.ts';
import { SimEnv } from '../src/envs/simEnv.ts';
import { planEpisodes } from '../src/tasks/episodePlan.ts';
import { getMujoco, wasmHeapBytes } from '../sim/mujocoRuntime.ts';
import { structureKey, structureOf } from '../sim/sceneBuilder.ts';
import { MAX_COMPILED_SCENE_BYTES } from '../sim/simulator.ts';

const { values } = parseArgs({
  options: {
    robot: { type: 'string' },
    scenes: { type: 'string' },
    every: { type: 'string' },
    steps: { type: 'string' },
  },
});
const robot = loadRobot(values.robot ?? 'so101');
const scenes = Number(values.scenes ?? 1000);
const every = Number(values.every ?? 10);
const steps = Number(values.steps ?? 3);
const outBase = `bench/results/scenes-${robot.name}`;

const MiB = 2 ** 20;
/** The most a wasm32 module's memory can grow to. */
const HEAP_LIMIT = 2048 * MiB;

interface Sample {
  scenes: number;
  seconds: number;
  rssMiB: number;
  heapMiB: number;
  compiledMiB: number;
  compiledScenes: number;
  /** Different mixes of objects seen so far. */
  structures: number;
}

const mj = await getMujoco();
const started = performance.now();
const env = await SimEnv.create({ robot });
const random = new RandomController(robot.arm.joints.length + 1);
const plan = planEpisodes([{ family: 'reach' }, { family: 'pick' }, { family: 'push' }], 'both', scenes, 0);
const structures = new Set<string>();
const samples: Sample[] = [];
const peak = { rss: 0, heap: 0, compiled: 0 };
const mib = (bytes: number) => Math.round((bytes / MiB) * 10) / 10;
const sample = (n: number) => {
  samples.push({
    scenes: n,
    seconds: Math.round((performance.now() - started) / 100) / 10,
    rssMiB: mib(process.memoryUsage.rss()),
    heapMiB: mib(wasmHeapBytes(mj)),
    compiledMiB: mib(env.simulator.compiledSceneBytes),
    compiledScenes: env.simulator.compiledScenes,
    structures: structures.size,
  });
};
try {
  sample(0);
  for (const [i, p] of plan.entries()) {
    let observation = await env.reset({ task: p.task, seed: p.seed });
    structures.add(structureKey(structureOf(env.layout!)));
    random.reset(p.task, p.seed);
    for (let s = 0; s < steps; s++) {
      const r = await env.step(random.act(observation));
      observation = r.observation;
      if (r.done) break;
    }
    peak.rss = Math.max(peak.rss, process.memoryUsage.rss());
    peak.heap = Math.max(peak.heap, wasmHeapBytes(mj));
    peak.compiled = Math.max(peak.compiled, env.simulator.compiledSceneBytes);
    if ((i + 1) % every === 0 || i + 1 === scenes) {
      sample(i + 1);
      const s = samples.at(-1)!;
      console.error(
        `${s.scenes} scenes, ${s.seconds} s: RSS ${s.rssMiB} MiB, heap ${s.heapMiB} MiB, ${s.compiledScenes} compiled`,
      );
    }
  }
} finally {
  await env.close();
}

const seconds = (performance.now() - started) / 1000;
const last = samples.at(-1)!;
// The plateau: where the heap reached its final size (it never shrinks), and the RSS over the second half.
const plateauFrom = samples.find((s) => s.heapMiB === last.heapMiB)!.scenes;
const secondHalf = samples.filter((s) => s.scenes >= scenes / 2).map((s) => s.rssMiB);
const results = {
  date: new Date().toISOString(),
  machine: { cpu: cpus()[0]?.model, cores: cpus().length, node: process.version },
  robot: robot.name,
  scenes,
  stepsPerEpisode: steps,
  structures: structures.size,
  seconds: Math.round(seconds),
  budgetMiB: mib(MAX_COMPILED_SCENE_BYTES),
  heapLimitMiB: mib(HEAP_LIMIT),
  peak: { rssMiB: mib(peak.rss), heapMiB: mib(peak.heap), compiledMiB: mib(peak.compiled) },
  plateau: {
    heapMiB: last.heapMiB,
    heapFromScene: plateauFrom,
    rssMiB: { min: Math.min(...secondHalf), max: Math.max(...secondHalf) },
  },
  samples,
};
mkdirSync('bench/results', { recursive: true });
writeFileSync(`${outBase}.json`, JSON.stringify(results, null, 2) + '\n');
writeFileSync(`${outBase}.svg`, plot(results));
console.log(
  `${robot.name}: ${scenes} scenes (${structures.size} mixes of objects) in ${Math.round(seconds)} s; ` +
    `peak RSS ${Math.round(peak.rss / MiB)} MiB, WebAssembly heap ${last.heapMiB.toFixed(0)} MiB from scene ` +
    `${plateauFrom} on (limit ${HEAP_LIMIT / MiB}), compiled scenes ≤ ${Math.round(peak.compiled / MiB)} MiB ` +
    `(budget ${MAX_COMPILED_SCENE_BYTES / MiB}); written to ${outBase}.json, .svg`,
);

/** Memory against scenes: RSS, heap and compiled scenes, the heap's limit and the scene budget as dashed lines. */
function plot(r: typeof results): string {
  const W = 760;
  const H = 420;
  const m = { l: 64, r: 150, t: 34, b: 46 };
  const top = Math.ceil((Math.max(r.heapLimitMiB, r.peak.rssMiB) * 1.05) / 256) * 256;
  const x = (n: number) => m.l + (n / r.scenes) * (W - m.l - m.r);
  const y = (v: number) => H - m.b - (v / top) * (H - m.t - m.b);
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${m.l}" y="20" font-size="14" font-weight="bold">${r.robot}: memory against scenes run in one ` +
      `process (${r.structures} mixes of objects)</text>`,
  ];
  for (let v = 0; v <= top; v += 256)
    out.push(
      `<line x1="${m.l}" x2="${W - m.r}" y1="${y(v)}" y2="${y(v)}" stroke="#eee"/>`,
      `<text x="${m.l - 6}" y="${y(v) + 4}" text-anchor="end">${v}</text>`,
    );
  // Ten or fewer ticks along the scenes, 1, 2 or 5 times a power of ten apart.
  const decade = 10 ** Math.floor(Math.log10(r.scenes / 10));
  const step = [1, 2, 5, 10].map((k) => k * decade).find((d) => r.scenes / d <= 10)!;
  for (let n = 0; n <= r.scenes; n += step)
    out.push(
      `<line x1="${x(n)}" x2="${x(n)}" y1="${m.t}" y2="${H - m.b}" stroke="#f3f3f3"/>`,
      `<text x="${x(n)}" y="${H - m.b + 16}" text-anchor="middle">${n}</text>`,
    );
  out.push(
    `<line x1="${m.l}" x2="${m.l}" y1="${m.t}" y2="${H - m.b}" stroke="#333"/>`,
    `<line x1="${m.l}" x2="${W - m.r}" y1="${H - m.b}" y2="${H - m.b}" stroke="#333"/>`,
  );
  const dashed = (v: number, colour: string, label: string) =>
    out.push(
      `<line x1="${m.l}" x2="${W - m.r}" y1="${y(v)}" y2="${y(v)}" stroke="${colour}" stroke-dasharray="6 4"/>`,
      `<text x="${W - m.r + 6}" y="${y(v) + 4}" fill="${colour}">${label}</text>`,
    );
  dashed(r.heapLimitMiB, '#c00', 'heap limit 2 GiB');
  dashed(r.budgetMiB, '#666', `scene budget ${r.budgetMiB} MiB`);
  const lines: [keyof Sample, string, string][] = [
    ['rssMiB', '#3182bd', 'process RSS'],
    ['heapMiB', '#e6550d', 'WebAssembly heap'],
    ['compiledMiB', '#31a354', 'compiled scenes'],
  ];
  for (const [key, colour] of lines)
    out.push(
      `<polyline fill="none" stroke="${colour}" stroke-width="2" points="` +
        `${r.samples.map((s) => `${x(s.scenes).toFixed(1)},${y(s[key]).toFixed(1)}`).join(' ')}"/>`,
    );
  const box = { x: W - m.r - 170, y: m.t + 40 };
  out.push(`<rect x="${box.x}" y="${box.y}" width="160" height="62" fill="white" opacity="0.85" stroke="#ccc"/>`);
  lines.forEach(([, colour, label], i) =>
    out.push(
      `<rect x="${box.x + 6}" y="${box.y + 8 + 18 * i}" width="12" height="12" fill="${colour}"/>`,
      `<text x="${box.x + 23}" y="${box.y + 18 + 18 * i}">${label}</text>`,
    ),
  );
  out.push(
    `<text x="${(m.l + W - m.r) / 2}" y="${H - 10}" text-anchor="middle">scenes (episodes reset)</text>`,
    `<text x="16" y="${(m.t + H - m.b) / 2}" transform="rotate(-90 16 ${(m.t + H - m.b) / 2})" ` +
      `text-anchor="middle">MiB</text>`,
    '</svg>',
  );
  return out.join('\n') + '\n';
}
