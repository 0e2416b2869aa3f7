/** `wmrl label DIR`: a person labels a dataset's episodes success / failure / skip, on the terminal or the viewer. */
import { EpisodeStore } from '../data/episodeStore.ts';
import { labelDataset } from '../operator/labelDataset.ts';
import { LABELS_FILE } from '../operator/labelStore.ts';
import { OperatorDesk } from '../operator/operatorDesk.ts';
import { TerminalPrompt } from '../operator/terminalPrompt.ts';
import { requireBundle } from '../viewer/bundle.ts';
import { ViewerData } from '../viewer/viewerData.ts';
import { ViewerServer } from '../viewer/viewerServer.ts';
import { intFlag, parseFlags, UsageError } from './args.ts';

const HELP = `usage: wmrl label DIR [--view] [--port N]

Asks, one episode at a time, whether the robot did what the episode's instruction says, for every
episode of the wmrl dataset DIR without a label yet: here (type s = success, f = failure, k = skip,
"cannot tell", optionally followed by a note: "f dropped it") and in the viewer's "Waiting for you"
panel (--view, or wmrl view --data DIR in another terminal); the first answer counts. The question is
blind: no recorded outcome, progress or score is shown while it waits.

Labels are appended to DIR/${LABELS_FILE} (fsynced; an episode's first label counts). Stop at any
time (Ctrl-C, or the end of the input without --view): run it again to go on with the episodes still
unlabelled. wmrl success train --data DIR trains on the labels, which override the recorded outcome.

  --view      also serve the viewer of DIR on 127.0.0.1 (keeps asking there when the input ends)
  --port N    the viewer's port (default 8090; 0 picks a free one)`;

export const command = {
  summary: "label a dataset's episodes success / failure by hand (terminal and viewer) for wmrl success train",
  async run(argv: string[]): Promise<number> {
    const { values, positionals } = parseFlags(
      argv,
      { view: { type: 'boolean' }, port: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      true,
    );
    if (values.help) {
      console.log(HELP);
      return 0;
    }
    const [dir, ...extra] = positionals;
    if (!dir || extra.length > 0) throw new UsageError(`give one dataset folder\n\n${HELP}`);
    if (values.port !== undefined && !values.view) throw new UsageError("--port is the viewer's: add --view");
    // Before anything is written into DIR: it must be a dataset.
    await EpisodeStore.open(dir);
    const port = intFlag(values.port, 'port', 8090);
    const closers: (() => unknown)[] = [];
    const stop = new AbortController();
    const onSigint = () => stop.abort(new Error('interrupted'));
    process.once('SIGINT', onSigint);
    closers.push(() => process.off('SIGINT', onSigint));
    try {
      let viewer: string | null = null;
      if (values.view) {
        const data = new ViewerData({ dataDirs: [dir] });
        closers.push(() => data.close());
        const server = await ViewerServer.start({ data, bundleDir: requireBundle(), port, pollMs: 250 });
        closers.push(() => server.close());
        viewer = server.url;
      }
      // Answers piped in (not a terminal) arrive before the first question: kept for the questions.
      const terminal = new TerminalPrompt({
        input: process.stdin,
        output: process.stderr,
        typeAhead: !process.stdin.isTTY,
      });
      // stdin held open would keep the process alive.
      closers.push(() => terminal.close());
      const desk = await OperatorDesk.open({ runDir: dir, terminal, viewer: viewer ?? `wmrl view --data ${dir}` });
      closers.push(() => desk.close());
      // Without a viewer of its own, the end of the input ends the labelling.
      if (!viewer) void terminal.closed.then(() => stop.abort(new Error('the input ended')));
      console.error(
        `labelling ${dir}: answer here${viewer ? ` or in the viewer, ${viewer}` : ` or in wmrl view --data ${dir}`}`,
      );
      const report = await labelDataset({
        dir,
        desk,
        signal: stop.signal,
        onQuestion: (i, n) => console.error(`\n[${i + 1} of ${n} unlabelled]`),
      });
      const { success, failure, skip } = report.given;
      console.log(
        `${dir}: ${report.episodes} episodes; labelled now ${success} success, ${failure} failure, ${skip} skip; ` +
          `${report.labelledBefore} labelled before; ${report.left} left`,
      );
      console.log(
        report.left > 0
          ? `  run wmrl label ${dir} again to label the rest`
          : `  every episode is labelled: wmrl success train --data ${dir} --out DIR`,
      );
      return stop.signal.aborted && (stop.signal.reason as Error).message === 'interrupted' ? 130 : 0;
    } finally {
      for (const close of closers.reverse()) await close();
    }
  },
};
