/**
 * `npm run bench:rosbridge`: the control-loop rate a rosbridge client reaches over loopback
 * against `wmrl sim-server` (a separate process, as a robot would be), with 64×64 camera frames.
 * Each control step = command out, fresh joint states + frame + object state back, task-status
 * service call. Measured with the server in lockstep (the loop's own ceiling) in JSON and CBOR,
 * and free-running at a 50 Hz tick (controlHz × 5) to check a real-time loop keeps its rate.
 * Writes bench/results/rosbridge.json.
 *   --steps N   control steps per measurement (default 400)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { loadRobot } from '../src/core/robotDescription.ts';
import { RandomController } from '../src/envs/randomController.ts';
import { RosbridgeEnv } from '../src/envs/rosbridgeEnv.ts';
import { planEpisodes } from '../src/tasks/episodePlan.ts';
import { startSimServerProcess } from '../sim/rosbridge/simServerProcess.ts';

const { values } = parseArgs({ options: { steps: { type: 'string' }, out: { type: 'string' } } });
const steps = Number(values.steps ?? 400);
const outFile = values.out ?? 'bench/results/rosbridge.json';
const robot = loadRobot('vx300');

function startServer(args: string[]) {
  return startSimServerProcess(['--port', '0', '--image-size', '64', '--quiet', ...args]);
}

async function loopRate(
  serverArgs: string[],
  client: { speed: number; compression: 'none' | 'cbor' },
): Promise<{ hz: number; meanStepMs: number; p95StepMs: number }> {
  const server = await startServer(serverArgs);
  const env = await RosbridgeEnv.create({ robot, url: server.url, ...client });
  const random = new RandomController(robot.arm.joints.length + 1);
  const durations: number[] = [];
  try {
    for (let seed = 0; durations.length < steps; seed++) {
      const [p] = planEpisodes([{ family: 'push' }], 'train', 1, seed);
      let obs = await env.reset(p!);
      random.reset(p!.task, seed);
      for (;;) {
        const t0 = performance.now();
        const r = await env.step(random.act(obs));
        durations.push(performance.now() - t0);
        obs = r.observation;
        if (r.done || durations.length >= steps) break;
      }
    }
  } finally {
    await env.close();
    server.child.kill('SIGTERM');
  }
  const measured = durations.slice(10); // after warm-up
  const total = measured.reduce((a, b) => a + b, 0);
  const sorted = [...measured].sort((a, b) => a - b);
  return {
    hz: (1000 * measured.length) / total,
    meanStepMs: total / measured.length,
    p95StepMs: sorted[Math.floor(0.95 * sorted.length)]!,
  };
}

const lockstepJson = await loopRate(['--lockstep'], { speed: Infinity, compression: 'none' });
console.log(`lockstep, JSON: ${lockstepJson.hz.toFixed(1)} Hz`);
const lockstepCbor = await loopRate(['--lockstep'], { speed: Infinity, compression: 'cbor' });
console.log(`lockstep, CBOR frames: ${lockstepCbor.hz.toFixed(1)} Hz`);
const realTime50 = await loopRate(['--speed', '5'], { speed: 5, compression: 'none' });
console.log(`free-running 50 Hz robot, JSON: ${realTime50.hz.toFixed(1)} Hz`);

const result = {
  date: new Date().toISOString(),
  machine: { cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, node: process.version },
  robot: robot.name,
  image: '64x64 rgb8, scene camera',
  stepsPerMeasurement: steps,
  controlLoopHz: { lockstepJson, lockstepCbor, freeRunning50HzJson: realTime50 },
  target: '>= 50 Hz',
};
mkdirSync('bench/results', { recursive: true });
writeFileSync(outFile, JSON.stringify(result, null, 2) + '\n');
console.log(`wrote ${outFile}`);
