/** `wmrl view`: the three.js viewer of real and imagined rollouts and training curves, live while a run trains. */
import { loadRobotWithTasks } from '../tasks/robotTasks.ts';
import { requireBundle } from '../viewer/bundle.ts';
import { ViewerData } from '../viewer/viewerData.ts';
import { ViewerServer } from '../viewer/viewerServer.ts';
import { POLICY_KERNELS } from '../policy/policyConfig.ts';
import { WORLD_MODEL_KERNELS } from '../worldmodel/worldModelConfig.ts';
import { intFlag, parseFlags, UsageError } from './args.ts';
import { useBackend } from './common.ts';
import { untilStopped } from './untilStopped.ts';

const HELP = `usage: wmrl view [--run DIR] [--data DIR]... [--world-model DIR] [--robot FILE]...
                 [--port N] [--backend B]

  --run DIR          a wmrl train run folder: its metrics, anchors and checkpoint world model (watched live)
  --data DIR         dataset folder(s) whose episodes can be opened (e.g. the run's --data)
  --world-model DIR  imagine with this world model (wmrl wm train output, state or video kind) instead of the run's
  --robot FILE       robot.yaml of an arm outside robots/ whose episodes are shown (repeatable)
  --port N           port on 127.0.0.1 (default 8090; 0 picks a free one)
  --poll-ms N        how often the run folder is read for live updates (default 500)
  --backend B        tfjs backend for imagination: auto | tensorflow-gpu | tensorflow | wasm | cpu

Serves http://127.0.0.1:PORT/ (page, websocket at /ws) until interrupted. Deep link:
  http://127.0.0.1:PORT/#episode=ID&step=N`;

export const command = {
  summary: 'three.js viewer of real and imagined rollouts and training curves (live during wmrl train)',
  async run(argv: string[]): Promise<number> {
    const { values } = parseFlags(argv, {
      run: { type: 'string' },
      data: { type: 'string', multiple: true },
      'world-model': { type: 'string' },
      robot: { type: 'string', multiple: true },
      port: { type: 'string' },
      'poll-ms': { type: 'string' },
      backend: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    });
    if (values.help) {
      console.log(HELP);
      return 0;
    }
    if (!values.run && !values.data?.length) throw new UsageError(`give --run or --data (or both)\n\n${HELP}`);
    const bundleDir = requireBundle();
    await useBackend(values.backend ?? 'auto', [...POLICY_KERNELS, ...WORLD_MODEL_KERNELS]);
    const data = new ViewerData({
      ...(values.run ? { runDir: values.run } : {}),
      dataDirs: values.data ?? [],
      ...(values['world-model'] ? { worldModelDir: values['world-model'] } : {}),
      robots: (values.robot ?? []).map((r) => loadRobotWithTasks(r)),
    });
    try {
      const server = await ViewerServer.start({
        data,
        bundleDir,
        port: intFlag(values.port, 'port', 8090),
        pollMs: intFlag(values['poll-ms'], 'poll-ms', 500),
        onLog: (line) => console.error(`  ${line}`),
      });
      console.log(
        `wmrl viewer: ${server.url} (${data.episodes.length} ` +
          `episodes${data.run ? `, watching ${data.run.dir}` : ''}); Ctrl-C to stop`,
      );
      await untilStopped();
      await server.close();
      return 0;
    } finally {
      await data.close();
    }
  },
};
