/**
 * Progress for long work: a live bar on a terminal, a line every few seconds otherwise (CI logs).
 */
import { SingleBar, Presets } from 'cli-progress';

export class Progress {
  #bar: SingleBar | undefined;
  #total: number;
  #label: string;
  #lastLine = Date.now();
  #printed = false;
  #value = 0;
  #stopped = false;

  constructor(label: string, total: number) {
    this.#label = label;
    this.#total = total;
    if (process.stderr.isTTY) {
      this.#bar = new SingleBar(
        {
          format: `${label} [{bar}] {value}/{total} {status} | eta {eta_formatted}`,
          stream: process.stderr,
          hideCursor: true,
        },
        Presets.shades_classic,
      );
      this.#bar.start(total, 0, { status: '' });
    }
  }

  update(value: number, status = ''): void {
    this.#value = value;
    if (this.#bar) {
      this.#bar.update(value, { status });
    } else if (Date.now() - this.#lastLine > 5000 || (value === this.#total && this.#printed)) {
      // Without a terminal: a line every 5 s of long work (CI logs), nothing for short work.
      this.#lastLine = Date.now();
      this.#printed = true;
      process.stderr.write(`${this.#label} ${value}/${this.#total} ${status}\n`);
    }
  }

  /** Ends the bar; later calls do nothing. */
  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#bar?.stop();
    if (!this.#bar && this.#value !== this.#total)
      process.stderr.write(`${this.#label} stopped at ${this.#value}/${this.#total}\n`);
  }
}
