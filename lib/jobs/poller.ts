import { log, safeError } from "@/lib/log";

/**
 * The single-flight poller of the embedded background work (the webhook delivery driver, the clock
 * ticker): `run` on a timer and whenever woken, never two at once. A wake during a run is not
 * lost: it runs once more right after. Errors are logged, never thrown: the work stays in the
 * database and the next run tries again.
 */
export class Poller {
  private timer: NodeJS.Timeout | null = null;
  private busy = false;
  private again = false;

  constructor(
    private readonly run: () => Promise<unknown>,
    /** Logged with the error of a failed run. */
    private readonly failure: string,
  ) {}

  get running(): boolean {
    return this.timer !== null;
  }

  /** Every `intervalMs`: `onInterval` (extra periodic work), then a run. Runs at once too. */
  start(intervalMs: number, options: { unref?: boolean; onInterval?: () => void } = {}): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      this.wake();
      options.onInterval?.();
    }, intervalMs);
    // A poller must not keep a process alive on its own (scripts, tests) unless asked to.
    if (options.unref) this.timer.unref();
    this.wake();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Run now, or right after the run under way. */
  wake(): void {
    if (!this.timer) return;
    if (this.busy) {
      this.again = true;
      return;
    }
    this.busy = true;
    void this.run()
      .catch((error) => log().error({ err: safeError(error) }, this.failure))
      .finally(() => {
        this.busy = false;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  /** Called by a run that left work behind: run once more when it ends. */
  runAgain(): void {
    this.again = true;
  }
}
