/**
 * Where the operator's questions wait: anchor episodes to label and scenes to set up. The desk
 * lists them in `<run>/operator/pending.json` for the viewer (`wmrl view --run`, which answers
 * through labels.jsonl and operator/resets.jsonl) and asks them on the terminal too, when given
 * one; the first answer wins and the other side's question is withdrawn. Labels are durable
 * (LabelStore) before they are used, and an episode labelled earlier, even by a killed process,
 * is never asked again.
 */
import { randomUUID } from 'node:crypto';
import type { Episode } from '../core/types.ts';
import { setupSteps, type ConfirmReset, type SceneSetup } from '../envs/operatorReset.ts';
import type { AskContext, OperatorVerdict } from './askOperator.ts';
import { LabelStore, labelVerdict } from './labelStore.ts';
import { confirmedResets, confirmResetPrompt, writePending, type PendingItem } from './pendingItems.ts';
import { parseVerdict, type TerminalPrompt } from './terminalPrompt.ts';

export interface DeskOptions {
  runDir: string;
  /** Also ask on this terminal (the trainer's own, when it is a TTY). */
  terminal?: TerminalPrompt;
  /** How often the files the viewer writes are read (default 250 ms). */
  pollMs?: number;
  /** Where the terminal's label question says to watch the episode (default: `wmrl view --run`). */
  viewer?: string;
}

export class OperatorDesk {
  readonly runDir: string;
  readonly labels: LabelStore;
  #terminal: TerminalPrompt | undefined;
  #pollMs: number;
  #viewer: string;
  #pending: PendingItem[] = [];
  #writes: Promise<void> = Promise.resolve();
  /** Labels asked of the operator by this process, and those found already given. */
  readonly counts = { asked: 0, fromStore: 0 };

  private constructor(options: DeskOptions, labels: LabelStore) {
    this.runDir = options.runDir;
    this.labels = labels;
    this.#terminal = options.terminal;
    this.#pollMs = options.pollMs ?? 250;
    this.#viewer = options.viewer ?? 'wmrl view --run';
  }

  static async open(options: DeskOptions): Promise<OperatorDesk> {
    const desk = new OperatorDesk(options, await LabelStore.open(options.runDir));
    // Nothing waits yet: a killed process's list would show questions no one is waiting on.
    await desk.#publish();
    return desk;
  }

  get pending(): readonly PendingItem[] {
    return this.#pending;
  }

  /** An AskOperator over this desk (see askOperator.ts); it needs only the episode's id, task and length. */
  readonly ask = async (
    episode: Pick<Episode, 'id' | 'task' | 'steps'>,
    context: AskContext,
  ): Promise<OperatorVerdict> => {
    await this.labels.refresh();
    const known = this.labels.get(episode.id);
    if (known) {
      this.counts.fromStore++;
      return labelVerdict(known);
    }
    this.counts.asked++;
    const item: PendingItem = {
      kind: 'label',
      id: episode.id,
      instruction: episode.task.instruction,
      steps: episode.steps,
      step: context.step ?? null,
      reason: context.reason,
      since: new Date().toISOString(),
    };
    const step = context.step === undefined ? '' : `step ${context.step}, `;
    // A spot check is blind: the detector's score is not shown, so the label stays independent of it.
    const why = context.reason === 'spot-check' ? ', a spot check of the success detector' : '';
    const label = await this.#wait(
      item,
      async () => {
        await this.labels.refresh();
        return this.labels.get(episode.id);
      },
      {
        lines: [
          `── operator: label episode ${episode.id} (${step}${episode.steps} steps${why}) ──`,
          `  instruction: ${episode.task.instruction}`,
          `  did the robot do it? Watch it in the viewer (${this.#viewer}) or judge the scene in front of you.`,
          '  s = success, f = failure, k = skip (cannot tell; never trained on); a note may follow: "f dropped it"',
        ],
        prompt: 'label> ',
        parse: parseVerdict,
      },
      (verdict) =>
        this.labels.add({
          episode: episode.id,
          verdict: verdict === 'skip' ? 'skip' : verdict.success ? 'success' : 'failure',
          ...(verdict !== 'skip' && verdict.note ? { note: verdict.note } : {}),
          by: 'terminal',
          at: new Date().toISOString(),
        }),
      context.signal,
    );
    return labelVerdict(label);
  };

  /** A ConfirmReset over this desk: the operator sets the scene up and confirms (see src/envs/operatorReset.ts). */
  readonly confirmReset: ConfirmReset = async (setup: SceneSetup, signal?: AbortSignal): Promise<void> => {
    const steps = setupSteps(setup);
    const item: PendingItem = {
      kind: 'reset',
      id: randomUUID(),
      robot: setup.robot,
      instruction: setup.task.instruction,
      setup: steps,
      since: new Date().toISOString(),
    };
    await this.#wait(
      item,
      async () => ((await confirmedResets(this.runDir)).has(item.id) ? true : undefined),
      {
        lines: [
          `── operator: set the scene up on robot ${setup.robot} ──`,
          `  next instruction: ${setup.task.instruction}`,
          ...steps.map((s) => `  - ${s}`),
          '  press Enter when the scene is ready; the episode starts from what the robot then sees',
        ],
        prompt: 'ready> ',
        parse: () => true,
      },
      async () => {
        await confirmResetPrompt(this.runDir, item.id, 'terminal');
        return true;
      },
      signal,
    );
  };

  async close(): Promise<void> {
    this.#pending = [];
    await this.#publish();
  }

  /**
   * Lists `item` until `answered()` finds its answer (written by the viewer) or the terminal gives
   * one (`fromTerminal` stores it); then takes it off the list and withdraws the other question.
   */
  async #wait<A, T>(
    item: PendingItem,
    answered: () => Promise<T | undefined>,
    question: { lines: string[]; prompt: string; parse(line: string): A | { error: string } },
    fromTerminal: (answer: A) => Promise<T>,
    signal: AbortSignal | undefined,
  ): Promise<T> {
    signal?.throwIfAborted();
    this.#pending.push(item);
    await this.#publish();
    const stop = new AbortController();
    const stopped = signal ? AbortSignal.any([signal, stop.signal]) : stop.signal;
    try {
      const fromFile = this.#poll(answered, stopped);
      const racers: Promise<T>[] = [fromFile];
      if (this.#terminal) {
        const typed = this.#terminal.ask(question, stopped).then(fromTerminal);
        // Withdrawn (answered in the viewer, or the signal): the file's answer is the one used.
        typed.catch(() => {});
        racers.push(typed.catch(() => fromFile));
      }
      return await Promise.race(racers);
    } finally {
      stop.abort(new Error('answered'));
      this.#pending = this.#pending.filter((p) => p !== item);
      await this.#publish();
    }
  }

  async #poll<T>(answered: () => Promise<T | undefined>, signal: AbortSignal): Promise<T> {
    for (;;) {
      signal.throwIfAborted();
      const found = await answered();
      if (found !== undefined) return found;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, this.#pollMs);
        function done() {
          clearTimeout(timer);
          signal.removeEventListener('abort', done);
          resolve();
        }
        signal.addEventListener('abort', done, { once: true });
      });
    }
  }

  /** Writes the list for the viewer; writes happen in order, the last one is the current list. */
  #publish(): Promise<void> {
    const items = [...this.#pending];
    const write = this.#writes.then(() => writePending(this.runDir, items));
    this.#writes = write.catch(() => {});
    return write;
  }
}
