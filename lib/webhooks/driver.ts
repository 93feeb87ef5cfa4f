import { log, safeError } from "@/lib/log";
import { config } from "@/lib/config";
import { Poller } from "@/lib/jobs/poller";
import { classify, leaseMs, sendAttempt } from "./attempt";
import { claimDue, failUndeliverable, type ClaimedDelivery, type ClaimResult } from "./claim";
import { deliveryPool } from "./pool";
import { emptyPass, type DuePass } from "./deliver-due";
import { recordAttempts, retryDueAt, type AttemptRecord } from "./record";
import { realNow } from "@/lib/time";

const POLL_INTERVAL_MS = 1_000;

async function attempt(claimed: ClaimedDelivery): Promise<AttemptRecord> {
  const sent = await sendAttempt(claimed.deliveryId, claimed, claimed.event, claimed.livemode);
  return {
    deliveryId: claimed.deliveryId,
    accountId: claimed.accountId,
    attempt: claimed.attempt,
    url: claimed.url,
    trigger: "scheduled",
    sent,
    outcome: classify(sent, claimed.attempt, { mode: "due" }),
    at: realNow(),
  };
}

/** How soon to look again at endpoints another instance held (locked, or all its slots taken). */
const SKIPPED_RETRY_MS = 50;

/**
 * The least time between two claims of one process. Completions free slots a few at a time; a
 * claim for every few costs as much database and app time as one for many, and with several
 * instances each claiming after each of its own completions the claims multiplied and shrank
 * (docs/history/performance-log.md, webhook delivery). Waiting this long lets the freed slots gather into one claim.
 */
const CLAIM_GAP_MS = 10;

async function claimBatch(room: number): Promise<ClaimResult> {
  const { db } = await deliveryPool();
  const now = realNow();
  return claimDue(db, {
    now,
    leaseUntil: new Date(now.getTime() + leaseMs()),
    room,
    perEndpoint: config().webhooks.endpointConcurrency,
  });
}

/**
 * The embedded delivery driver: without an Inngest server, this process attempts every due
 * delivery on the spec's schedule, reading due rows from the database (so deliveries left pending
 * or mid-attempt by a killed process resume once their lease expires). Any number of processes may
 * run one each on one database.
 *
 * Scheduling (see claim.ts): each poll claims a batch in one statement, fair across endpoints and
 * accounts, with at most WEBHOOK_ENDPOINT_CONCURRENCY attempts in flight per endpoint across all
 * instances and the endpoint's `max_deliveries_per_second`; WEBHOOK_MAX_IN_FLIGHT bounds this
 * process's attempts (backpressure: nothing more is claimed while it is full). Finished attempts
 * are recorded in batches; each batch frees its slots and polls again. Commits announce themselves
 * with NOTIFY (PostgreSQL), so every instance wakes at once rather than at its next poll.
 */
export class DeliveryDriver {
  private readonly poller = new Poller(() => this.poll(), "webhook driver poll failed");
  private inFlight = 0;
  private finished: AttemptRecord[] = [];
  private flushing = false;
  private announcing = false;
  private wakeTimer: NodeJS.Timeout | null = null;
  private wakeTimerAt = 0;
  private lastClaimAt = 0;

  get running(): boolean {
    return this.poller.running;
  }

  start(): void {
    if (this.poller.running) return;
    this.poller.start(POLL_INTERVAL_MS, { onInterval: () => void this.failUndeliverable() });
    void deliveryPool()
      .then((pool) => pool.listen?.(() => this.wake()))
      .catch((error) => log().error({ err: safeError(error) }, "webhook driver could not LISTEN; it polls every second instead"));
  }

  stop(): void {
    this.poller.stop();
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
    this.wakeTimer = null;
  }

  /** Deliveries were committed here: wake this driver and, through NOTIFY, the other instances'. */
  announce(): void {
    this.wake();
    if (this.announcing) return;
    // One NOTIFY per turn of the event loop, however many commits it saw.
    this.announcing = true;
    setImmediate(() => {
      void deliveryPool()
        .then((pool) => pool.notify())
        .catch((error) => log().error({ err: safeError(error) }, "webhook driver NOTIFY failed"))
        .finally(() => (this.announcing = false));
    });
  }

  /** Look for due deliveries now. */
  wake(): void {
    this.poller.wake();
  }

  private async failUndeliverable(): Promise<void> {
    try {
      await failUndeliverable((await deliveryPool()).db, realNow());
    } catch (error) {
      log().error({ err: safeError(error) }, "webhook driver could not fail deliveries of disabled endpoints");
    }
  }

  private async poll(): Promise<void> {
    const room = config().webhooks.maxInFlight - this.inFlight;
    if (room <= 0) return;
    const nextClaimAt = this.lastClaimAt + CLAIM_GAP_MS;
    if (realNow().getTime() < nextClaimAt) {
      this.wakeAt(new Date(nextClaimAt));
      return;
    }
    this.lastClaimAt = realNow().getTime();
    const { claimed, wakeAt, skipped, full, raced } = await claimBatch(room);
    if (wakeAt) this.wakeAt(wakeAt);
    // Another instance claimed for an endpoint as this claim ran: the next claim counts afresh.
    if (raced > 0) this.wakeAt(new Date(realNow().getTime() + CLAIM_GAP_MS));
    // Endpoints another instance held (locked, or all their slots taken) may have work for this
    // one soon. A process with attempts in flight looks again when they finish; an idle one
    // would not be woken by another instance's completions, so it looks again shortly.
    if ((skipped > 0 || full > 0) && this.inFlight === 0 && claimed.length === 0) {
      this.wakeAt(new Date(realNow().getTime() + SKIPPED_RETRY_MS));
    }
    this.inFlight += claimed.length;
    for (const delivery of claimed) {
      void attempt(delivery).then((record) => this.finish(record));
    }
    // A full batch may have left due work behind; otherwise finished attempts poll again.
    if (claimed.length === room) this.poller.runAgain();
  }

  /**
   * Polls again at `at` (the earliest asked for wins): when an endpoint's next rate slot opens, or
   * a retry recorded here falls due. The poll timer is too coarse for both: a retry would wait for
   * the next second's poll, and with delays shorter than a second (WEBHOOK_RETRY_DELAYS) each of
   * the five would start on a poll rather than on its schedule.
   */
  private wakeAt(at: Date): void {
    const delay = Math.max(0, at.getTime() - realNow().getTime());
    if (this.wakeTimer && this.wakeTimerAt <= at.getTime()) return;
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
    this.wakeTimerAt = at.getTime();
    // Unref'd: a retry due in a day must not hold a stopping process open.
    this.wakeTimer = setTimeout(() => {
      this.wakeTimer = null;
      this.wake();
    }, delay).unref();
  }

  private finish(record: AttemptRecord): void {
    this.finished.push(record);
    if (!this.flushing) setImmediate(() => void this.flush());
    this.flushing = true;
  }

  /** Records every attempt finished so far in one transaction, then frees their slots. */
  private async flush(): Promise<void> {
    const batch = this.finished.splice(0);
    try {
      await recordAttempts((await deliveryPool()).db, batch);
    } catch (error) {
      // Left `delivering`: each lease expires and the attempt is made again (at least once).
      log().error({ err: safeError(error), attempts: batch.length }, "webhook driver could not record attempts");
    }
    this.inFlight -= batch.length;
    // wakeAt keeps the earliest: the batch's first retry due.
    for (const record of batch) {
      const due = retryDueAt(record);
      if (due) this.wakeAt(due);
    }
    if (this.finished.length > 0) {
      setImmediate(() => void this.flush());
    } else {
      this.flushing = false;
    }
    this.wake();
  }
}

/**
 * Delivers what is due until nothing is or `deadlineMs` has passed (no new claims after it; the
 * attempts under way finish, each within the 30 s deadline): for a serverless cron route, where no
 * process keeps a driver running. Same claim, fairness and caps as the driver.
 */
export async function deliverDueOnce(options: { deadlineMs: number; maxInFlight?: number }): Promise<DuePass> {
  const stopAt = realNow().getTime() + options.deadlineMs;
  const room = options.maxInFlight ?? config().webhooks.maxInFlight;
  const pass = emptyPass();
  await failUndeliverable((await deliveryPool()).db, realNow());
  while (realNow().getTime() < stopAt) {
    const { claimed, wakeAt, skipped, raced } = await claimBatch(room);
    pass.skipped = Math.max(pass.skipped, skipped);
    if (claimed.length === 0) {
      if (raced > 0) continue;
      // Only endpoints held back by their rate: wait for the next slot if the deadline allows.
      if (!wakeAt || wakeAt.getTime() >= stopAt) break;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, wakeAt.getTime() - realNow().getTime())));
      continue;
    }
    const records = await Promise.all(claimed.map(attempt));
    await recordAttempts((await deliveryPool()).db, records);
    for (const { outcome } of records) {
      pass.attempted++;
      if (outcome.result === "delivered") pass.delivered++;
      else if (outcome.result === "retry") pass.retrying++;
      else pass.failed++;
    }
  }
  return pass;
}

const DRIVER = Symbol.for("billing-service.delivery-driver");
type GlobalWithDriver = typeof globalThis & { [DRIVER]?: DeliveryDriver };

/** The process's driver (one per process, however often Next.js bundles this module). */
export function deliveryDriver(): DeliveryDriver {
  const store = globalThis as GlobalWithDriver;
  return (store[DRIVER] ??= new DeliveryDriver());
}
