/**
 * `wmrl <command>`: one file per subcommand. Errors print as one clear message (set
 * WMRL_DEBUG=1 for the stack) and exit non-zero. A reader that closes the output early
 * (`wmrl info DIR | head -2`) is no error: the rest of the output is dropped and the command
 * finishes its work (a collection is never cut short by its reader).
 */
import { delimiter, resolve } from 'node:path';
import { addTaskFiles } from '../tasks/families.ts';
import { UsageError } from './args.ts';

type Command = { summary: string; run: (argv: string[]) => Promise<number> };

const COMMANDS: Record<string, () => Promise<Command>> = {
  tasks: async () => (await import('./tasks.ts')).command,
  collect: async () => (await import('./collect.ts')).command,
  info: async () => (await import('./info.ts')).command,
  frames: async () => (await import('./frames.ts')).command,
  import: async () => (await import('./importData.ts')).command,
  export: async () => (await import('./exportData.ts')).command,
  wm: async () => (await import('./wm.ts')).command,
  pretrain: async () => (await import('./pretrain.ts')).command,
  eval: async () => (await import('./eval.ts')).command,
  run: async () => (await import('./run.ts')).command,
  train: async () => (await import('./train.ts')).command,
  demo: async () => (await import('./demo.ts')).command,
  'sim-server': async () => (await import('./simServer.ts')).command,
  view: async () => (await import('./view.ts')).command,
  robot: async () => (await import('./robot.ts')).command,
  schedule: async () => (await import('./schedule.ts')).command,
  worker: async () => (await import('./worker.ts')).command,
  success: async () => (await import('./success.ts')).command,
  label: async () => (await import('./label.ts')).command,
};

async function usage(): Promise<string> {
  const lines = ['usage: wmrl <command> [options]   (wmrl <command> --help for its options)', '', 'commands:'];
  for (const [name, load] of Object.entries(COMMANDS)) lines.push(`  ${name.padEnd(11)} ${(await load()).summary}`);
  lines.push(
    '',
    'every command takes --task-file PATH (repeatable): a task family file (YAML) or a folder of them to add to the',
    "built-in families (docs/tasks.md); the robot description's tasks/ folder and a dataset's are read too",
  );
  return lines.join('\n');
}

/**
 * Takes every `--task-file PATH` out of `argv` and registers those families, with the ones WMRL_TASKS names (a parent
 * wmrl's); WMRL_TASKS then names them all, so the wmrl processes this one starts (a sim server, workers) know them.
 */
function takeTaskFiles(argv: string[]): string[] {
  const paths = (process.env.WMRL_TASKS ?? '').split(delimiter).filter(Boolean);
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--task-file') {
      const path = argv[++i];
      if (path === undefined || path.startsWith('--')) throw new UsageError('--task-file needs a file or folder');
      paths.push(resolve(path));
    } else if (arg.startsWith('--task-file=')) paths.push(resolve(arg.slice('--task-file='.length)));
    else rest.push(arg);
  }
  for (const path of paths) addTaskFiles(path);
  if (paths.length > 0) process.env.WMRL_TASKS = [...new Set(paths)].join(delimiter);
  return rest;
}

let outputGuarded = false;

/** EPIPE on stdout or stderr: stop writing there, quietly (Node would crash on the unhandled 'error' event). */
function dropOutputOnClosedPipe(): void {
  if (outputGuarded) return;
  outputGuarded = true;
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE') throw err;
      stream.write = () => true;
    });
  }
}

export async function main(argv: string[]): Promise<number> {
  dropOutputOnClosedPipe();
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    console.log(await usage());
    return name === undefined ? 1 : 0;
  }
  const load = COMMANDS[name];
  if (!load) {
    console.error(`wmrl: unknown command '${name}'\n\n${await usage()}`);
    return 2;
  }
  try {
    return await (await load()).run(takeTaskFiles(rest));
  } catch (err) {
    if (process.env.WMRL_DEBUG) console.error(err);
    const message = err instanceof Error ? err.message : String(err);
    console.error(`wmrl ${name}: ${message}`);
    return err instanceof UsageError ? 2 : 1;
  }
}
