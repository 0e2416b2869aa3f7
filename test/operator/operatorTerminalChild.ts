/**
 * Run under a pseudo-terminal by operatorTerminal.test.ts: a rosbridge robot (the sim server, whose
 * reset service is made to fail, so that any call of it would show) reset by the operator through
 * the terminal prompt, a second reset confirmed from the viewer's side (the file), and one label
 * typed on the terminal. Prints RESULT lines the test reads.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadRobot } from '../../src/core/robotDescription.ts';
import { RosbridgeEnv } from '../../src/envs/rosbridgeEnv.ts';
import { LABELS_FILE } from '../../src/operator/labelStore.ts';
import { OperatorDesk } from '../../src/operator/operatorDesk.ts';
import { confirmResetPrompt, readPending } from '../../src/operator/pendingItems.ts';
import { TerminalPrompt } from '../../src/operator/terminalPrompt.ts';
import { planEpisodes } from '../../src/tasks/episodePlan.ts';
import { RosbridgeSimServer } from '../../sim/rosbridge/simServer.ts';
import { makeTestEpisode } from '../helpers/episodes.ts';

const runDir = process.argv[2]!;
const robot = loadRobot('vx300');
const server = await RosbridgeSimServer.start({ robot, port: 0, speed: 4, heartbeatMs: 0 });
server.testFaults.failService = robot.ros.services.reset.name;
const terminal = new TerminalPrompt({ input: process.stdin, output: process.stdout });
const desk = await OperatorDesk.open({ runDir, terminal, pollMs: 50 });
const env = await RosbridgeEnv.create({ robot, url: server.url, speed: 4, confirmReset: desk.confirmReset });
const result = (what: string, value: unknown) => console.log(`RESULT ${what} ${JSON.stringify(value)}`);
try {
  const [first, second] = planEpisodes([{ family: 'push' }], 'train', 2, 11);
  result('tty', process.stdin.isTTY === true);
  const observation = await env.reset(first!);
  result('reset1', { seconds: env.lastResetSeconds, qpos: observation.qpos.length });
  await env.step(new Float32Array(7));
  // The second set-up is confirmed in the viewer: the terminal's question is withdrawn.
  const resetting = env.reset(second!);
  const waitingReset = async (): Promise<string> => {
    for (;;) {
      const item = (await readPending(runDir)).find((p) => p.kind === 'reset');
      if (item) return item.id;
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  await confirmResetPrompt(runDir, await waitingReset(), 'viewer');
  await resetting;
  result('reset2', { seconds: env.lastResetSeconds });
  const verdict = await desk.ask(makeTestEpisode({ id: 'run.s1.g0.r0' }), { reason: 'outcome', step: 1 });
  result('label', verdict);
  result(
    'labels',
    readFileSync(join(runDir, LABELS_FILE), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l)),
  );
} finally {
  await env.close();
  await desk.close();
  terminal.close();
  await server.close();
}
