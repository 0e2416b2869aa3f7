/**
 * The operator's terminal: questions one at a time on a line-based input (the trainer's stdin, a
 * TTY). A question shows its lines and a prompt; an answer it cannot parse is said so and the
 * prompt repeats. A question answered elsewhere (the viewer) is withdrawn: the terminal says so and
 * moves on to the next one. Lines typed while nothing is asked are dropped, unless `typeAhead` keeps
 * them for the next questions (answers piped in by a script arrive before the first question).
 */
import { createInterface, type Interface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import type { OperatorVerdict } from './askOperator.ts';

export interface TerminalQuestion<T> {
  lines: string[];
  prompt: string;
  /** The answer, or `{ error }` to ask again. */
  parse(line: string): T | { error: string };
}

interface Asked {
  question: TerminalQuestion<unknown>;
  resolve(value: unknown): void;
  reject(reason: unknown): void;
  signal: AbortSignal | undefined;
  onAbort: () => void;
}

export class TerminalPrompt {
  #output: Writable;
  #lines: Interface;
  #queue: Asked[] = [];
  #closed = false;
  #typeAhead: boolean;
  /** Lines typed ahead of the questions (with `typeAhead`), oldest first. */
  #ahead: string[] = [];
  #onClosed: () => void = () => {};
  /** Settles once the input has ended (or close() was called) and every line typed ahead was used. */
  readonly closed = new Promise<void>((resolve) => {
    this.#onClosed = resolve;
  });

  constructor(options: { input: Readable; output: Writable; typeAhead?: boolean }) {
    this.#output = options.output;
    this.#typeAhead = options.typeAhead ?? false;
    this.#lines = createInterface({ input: options.input, terminal: false });
    this.#lines.on('line', (line) => this.#answer(line));
    this.#lines.on('close', () => this.close());
  }

  /** Resolves with the parsed answer; rejects with the signal's reason if `signal` aborts first. */
  ask<T>(question: TerminalQuestion<T>, signal?: AbortSignal): Promise<T> {
    if (this.#closed && this.#ahead.length === 0)
      return Promise.reject(new Error('the operator terminal is closed (its input ended)'));
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<T>((resolve, reject) => {
      const asked: Asked = {
        question,
        resolve: resolve as (v: unknown) => void,
        reject,
        signal,
        onAbort: () => this.#withdraw(asked),
      };
      signal?.addEventListener('abort', asked.onAbort, { once: true });
      this.#queue.push(asked);
      if (this.#queue.length === 1) this.#show(asked);
    });
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#lines.close();
    this.#endIfUsedUp();
  }

  /** Once the input has ended and its lines are used up, what is still asked can never be answered here. */
  #endIfUsedUp(): void {
    if (!this.#closed || this.#ahead.length > 0) return;
    const left = this.#queue.splice(0);
    for (const a of left) {
      a.signal?.removeEventListener('abort', a.onAbort);
      a.reject(new Error('the operator terminal is closed (its input ended)'));
    }
    this.#onClosed();
  }

  #show(asked: Asked): void {
    this.#write([...asked.question.lines, ''].join('\n'));
    this.#write(asked.question.prompt);
    // Answers typed ahead answer it now (shown as if typed at the prompt).
    while (this.#ahead.length > 0 && this.#queue[0] === asked) {
      const line = this.#ahead.shift()!;
      this.#write(`${line}\n`);
      this.#answer(line);
    }
    this.#endIfUsedUp();
  }

  #write(text: string): void {
    if ((!this.#closed || this.#queue.length > 0) && this.#output.writable) this.#output.write(text);
  }

  #answer(line: string): void {
    const current = this.#queue[0];
    if (!current) {
      // Nothing asked: typing ahead is kept for the next question, or ignored.
      if (this.#typeAhead) this.#ahead.push(line);
      return;
    }
    const parsed = current.question.parse(line.trim());
    if (isError(parsed)) {
      this.#write(`  ${parsed.error}\n${current.question.prompt}`);
      return;
    }
    this.#finish(current);
    current.resolve(parsed);
  }

  #withdraw(asked: Asked): void {
    const i = this.#queue.indexOf(asked);
    if (i < 0) return;
    if (i === 0) this.#write('\n  (answered in the viewer)\n');
    this.#finish(asked);
    asked.reject(asked.signal!.reason);
  }

  /** Take `asked` off the queue and show the next question. */
  #finish(asked: Asked): void {
    asked.signal?.removeEventListener('abort', asked.onAbort);
    const wasCurrent = this.#queue[0] === asked;
    this.#queue.splice(this.#queue.indexOf(asked), 1);
    if (wasCurrent && this.#queue[0]) this.#show(this.#queue[0]);
  }
}

function isError(v: unknown): v is { error: string } {
  return typeof v === 'object' && v !== null && 'error' in v && Object.keys(v).length === 1;
}

/** Reads "s", "f" or "k", optionally followed by a note: `f dropped it at the edge`. */
export function parseVerdict(line: string): OperatorVerdict | { error: string } {
  const m = /^(\S+)\s*(.*)$/.exec(line);
  const word = m?.[1]?.toLowerCase();
  const note = m?.[2]?.trim() ?? '';
  if (word === 's' || word === 'success') return { success: true, ...(note ? { note } : {}) };
  if (word === 'f' || word === 'failure') return { success: false, ...(note ? { note } : {}) };
  if (word === 'k' || word === 'skip') return 'skip';
  return { error: 'answer s (success), f (failure) or k (skip), optionally followed by a note' };
}
