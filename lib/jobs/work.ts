/**
 * The domain work the job providers start, handed in at start-up (lib/server/wiring.ts) rather than
 * imported: jobs sit below webhook delivery and the clock, which use them to announce work, so an
 * import back up would close a cycle (issue 43). Kept on globalThis because Next.js bundles a
 * module more than once per process.
 */
export type JobWork = {
  /** Embedded: wake this process's delivery driver and announce the commit to the others (NOTIFY). */
  announceDeliveries(): void;
  /** Embedded: wake the clock ticker for something due already. */
  wakeClock(): void;
  /** Embedded: wake this process's email driver for emails a commit queued. */
  wakeEmails(): void;
  /** Serverless: the first attempts of committed deliveries. */
  attemptDeliveries(deliveryIds: string[]): Promise<unknown>;
  /** Serverless: what is due in one account now. */
  runAccountDueTransitions(accountId: string): Promise<unknown>;
  /** Every provider, after the response: apply the account's stored processor webhook events. */
  applyProcessorEvents(accountId: string): Promise<unknown>;
  /** Serverless: send up to `limit` due emails after the response. */
  sendDueEmails(limit: number): Promise<unknown>;
};

const WORK = Symbol.for("billing.jobs.work");
type GlobalWithWork = typeof globalThis & { [WORK]?: JobWork };

export function registerJobWork(work: JobWork): void {
  (globalThis as GlobalWithWork)[WORK] = work;
}

/**
 * The registered work, or undefined in a process that never wired it (a one-off script): the
 * providers then skip the wake-up, which only saves a poll's wait; the rows stay due.
 */
export function jobWork(): JobWork | undefined {
  return (globalThis as GlobalWithWork)[WORK];
}
