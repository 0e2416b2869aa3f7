/** `wmrl export lerobot DIR --out DIR`: a wmrl dataset as a LeRobot v3.0 dataset. */
import { exportLerobot } from '../data/lerobot/lerobotExport.ts';
import { choiceFlag, conversionTarget, parseFlags } from './args.ts';

const HELP = `usage: wmrl export lerobot DIR --out DIR [--video standard|lossless]

  DIR               a wmrl dataset folder
  --out DIR         the LeRobot v3.0 dataset to create (absent or empty; written whole or not at all)
  --video Q         standard: H.264 yuv420p, what LeRobot writes and every player reads (default);
                    lossless: H.264 4:4:4 at crf 0, frames within 2 of the source (LeRobot's
                    decoders read it, browsers may not)

Complete episodes only (aborted ones never train). 'observation.state' and 'action' (the absolute joint
targets) are named and scaled as the robot's LeRobot driver (robot.yaml 'lerobot'), or as the LeRobot
dataset the wmrl dataset was imported from; 'wmrl.*' columns (normalised actions, velocities, privileged
state) are no policy inputs and let 'wmrl import lerobot' read the export back exactly.`;

export const command = {
  summary: 'export a dataset for LeRobot: wmrl export lerobot DIR --out DIR',
  async run(argv: string[]): Promise<number> {
    const { values, positionals } = parseFlags(
      argv,
      { out: { type: 'string' }, video: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      true,
    );
    if (values.help) {
      console.log(HELP);
      return 0;
    }
    const { source, out } = conversionTarget('exports', positionals, values.out, HELP);
    const quality = choiceFlag(values.video, 'video', ['standard', 'lossless'] as const, 'standard');
    const report = await exportLerobot({
      source,
      out,
      quality,
      onEpisode: (i) => process.stderr.write(`\rexported episode ${i + 1}`),
    });
    process.stderr.write('\n');
    console.log(
      `exported ${report.episodes} episodes (${report.frames} frames, ${report.tasks} tasks, ` +
        `cameras ${report.cameras.join(', ') || 'none'}, ${report.fps} fps) of robot ${report.robot} ` +
        `as LeRobot v3.0 to ${report.out}` +
        (report.aborted ? `; ${report.aborted} aborted episodes left out` : ''),
    );
    for (const n of report.notes) console.log(`note: ${n}`);
    return 0;
  },
};
