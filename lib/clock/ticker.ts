import { log, safeError } from "@/lib/log";

/** The default interval of the embedded ticker; CLOCK_TICK_MS overrides it (tests use a short one). */
export const DEFAULT_CLOCK_TICK_MS = 15_000;

type Sweep = () => Promise<{ accounts: number; transitionsRun: number }>;

/**
 * The embedded clock driver: without Inngest, this process runs every due time-driven transition
 * (renewals, trial ends, dunning retries, …) every tick, in every account, on each account's own
 * clock. A tick never overlaps the previous one, and its errors are logged, never thrown: the
 * transitions stay due and the next tick tries again. Several processes may each run one: every
 * transition locks its row (`for update skip locked`) and re-checks it is still due.
 *
 * The sweep is handed in by `start` (instrumentation.ts) rather than imported, so that the job
 * provider can wake the ticker without importing the whole domain.
 */
export class ClockTicker {
  private timer: NodeJS.Timeout | null = null;
  private sweep: Sweep | null = null;
  private ticking = false;
  private tickAgain = false;

  get running(): boolean {
    return this.timer !== null;
  }

  start(sweep: Sweep, intervalMs: number = DEFAULT_CLOCK_TICK_MS): void {
    if (this.timer) return;
    this.sweep = sweep;
    this.timer = setInterval(() => this.wake(), intervalMs);
    // A ticker must not keep a process alive on its own (scripts, tests).
    this.timer.unref();
    this.wake();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Run what is due now (a tick, or something just became due). */
  wake(): void {
    if (!this.timer || !this.sweep) return;
    if (this.ticking) {
      this.tickAgain = true;
      return;
    }
    this.ticking = true;
    void this.sweep()
      .catch((error) => log().error({ err: safeError(error) }, "clock tick failed"))
      .finally(() => {
        this.ticking = false;
        if (this.tickAgain) {
          this.tickAgain = false;
          this.wake();
        }
      });
  }
}

const TICKER = Symbol.for("billing-service.clock-ticker");
type GlobalWithTicker = typeof globalThis & { [TICKER]?: ClockTicker };

/** The process's ticker (one per process, however often Next.js bundles this module). */
export function clockTicker(): ClockTicker {
  const store = globalThis as GlobalWithTicker;
  return (store[TICKER] ??= new ClockTicker());
}
