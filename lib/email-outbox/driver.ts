import { Poller } from "@/lib/jobs/poller";

type Pass = () => Promise<unknown>;

/**
 * The embedded email sender: without Inngest or Vercel, this long-lived process sends the due
 * emails every EMAIL_POLL_MS and whenever a commit queued some (lib/jobs/embedded.ts wakes it).
 * Several processes may each run one: claims (lib/emails/send.ts) never hand a row to two.
 *
 * The pass is handed in by `start` (instrumentation-node.ts) rather than imported, so the job
 * provider can wake the driver without importing the domain (which imports the job provider).
 */
export class EmailDriver {
  private pass: Pass | null = null;
  private readonly poller = new Poller(() => this.pass?.() ?? Promise.resolve(), "email pass failed");

  start(pass: Pass, intervalMs: number): void {
    if (this.poller.running) return;
    this.pass = pass;
    this.poller.start(intervalMs, { unref: true });
  }

  stop(): void {
    this.poller.stop();
  }

  wake(): void {
    this.poller.wake();
  }
}

const DRIVER = Symbol.for("billing-service.email-driver");
type GlobalWithDriver = typeof globalThis & { [DRIVER]?: EmailDriver };

/** The process's email driver (one per process, however often Next.js bundles this module). */
export function emailDriver(): EmailDriver {
  const store = globalThis as GlobalWithDriver;
  return (store[DRIVER] ??= new EmailDriver());
}
