import { Poller } from "@/lib/jobs/poller";

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
  private sweep: Sweep | null = null;
  private readonly poller = new Poller(() => this.sweep?.() ?? Promise.resolve(), "clock tick failed");

  get running(): boolean {
    return this.poller.running;
  }

  start(sweep: Sweep, intervalMs: number = DEFAULT_CLOCK_TICK_MS): void {
    if (this.poller.running) return;
    this.sweep = sweep;
    this.poller.start(intervalMs, { unref: true });
  }

  stop(): void {
    this.poller.stop();
  }

  /** Run what is due now (a tick, or something just became due). */
  wake(): void {
    this.poller.wake();
  }
}

const TICKER = Symbol.for("billing-service.clock-ticker");
type GlobalWithTicker = typeof globalThis & { [TICKER]?: ClockTicker };

/** The process's ticker (one per process, however often Next.js bundles this module). */
export function clockTicker(): ClockTicker {
  const store = globalThis as GlobalWithTicker;
  return (store[TICKER] ??= new ClockTicker());
}
