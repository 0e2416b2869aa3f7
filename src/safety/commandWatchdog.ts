/**
 * Command watchdog: a robot that stops hearing from its controller must stop moving. Counts
 * control ticks since the last command; once `timeoutTicks` pass in silence the arm holds the
 * position it had then, until a new command arrives.
 */
export class CommandWatchdog {
  readonly timeoutTicks: number;
  #silentTicks = 0;
  #armed = false;

  constructor(timeoutTicks: number) {
    if (!Number.isInteger(timeoutTicks) || timeoutTicks < 1)
      throw new Error(`watchdog timeout must be an integer >= 1 tick, got ${timeoutTicks}`);
    this.timeoutTicks = timeoutTicks;
  }

  /** A fresh command arrived. */
  feed(): void {
    this.#silentTicks = 0;
    this.#armed = true;
  }

  /** Forget every command (e.g. at an episode reset): hold until the next one. */
  clear(): void {
    this.#armed = false;
    this.#silentTicks = 0;
  }

  /** Call once per control tick; true when the arm must hold instead of following the last command. */
  tick(): boolean {
    if (!this.#armed) return true;
    this.#silentTicks++;
    return this.#silentTicks > this.timeoutTicks;
  }

  get expired(): boolean {
    return !this.#armed || this.#silentTicks > this.timeoutTicks;
  }
}
