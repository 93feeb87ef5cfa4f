import { and, asc, eq, gte, inArray, notInArray, sql } from "drizzle-orm";
import pLimit, { type LimitFunction } from "p-limit";
import { getDb } from "@/db/client";
import { accounts, emails } from "@/db/schema";
import { systemContext } from "@/lib/clock/service";
import { HOUR_MS, realNow } from "@/lib/time";
import { config } from "@/lib/config";
import { emitEvent } from "@/lib/events/emit";
import { withChangeTransaction } from "@/lib/events/transaction";
import { log, safeError } from "@/lib/log";
import { rowsOf } from "@/lib/rows";
import { parseDelay, type Delay } from "@/lib/webhooks/schedule";
import { invoicesOfEmails, MAX_ATTACHMENTS_BYTES, renderEmail, type EmailRow } from "./render";
import type { InvoiceWithLines } from "@/lib/invoices/serialize";
import { serializeEmail } from "./serialize";
import { compose, isPermanent, responseOf, SMTP_MAX_CONNECTIONS, transmit } from "./transport";

/** After a temporary failure (4xx), retries wait these delays; then the email fails. */
export const EMAIL_RETRY_SCHEDULE = ["1m", "5m", "30m", "2h", "6h"] as const;

/** Rows claimed per pass. */
const BATCH = 100;
/**
 * Emails in flight at once: one per pooled SMTP connection (lib/emails/transport.ts), so each
 * lane's render and PDF overlap the others'; their transmissions take turns (oneAccepted).
 */
export const EMAIL_SEND_CONCURRENCY = SMTP_MAX_CONNECTIONS;

/**
 * The most messages one crash of a sender process can repeat (docs/emails.md, "The one window"):
 * a message is between the server's acceptance and its record only inside `oneAccepted`, which
 * admits one lane at a time.
 */
export const EMAIL_REPEATS_PER_CRASH = 1;

const ACCEPTANCE = Symbol.for("billing-service.email-acceptance");

/**
 * The process's gate around transmit-then-record: SMTP cannot tell us whether a message it
 * accepted was ours to send again, so a crash repeats every accepted, unrecorded message. With
 * the lanes' transmissions admitted one at a time, each recorded before the next is handed over,
 * that is at most one message per crash, whatever the lane count. One gate per process, even when
 * Next.js bundles this module more than once.
 */
function oneAccepted(): LimitFunction {
  const store = globalThis as typeof globalThis & { [ACCEPTANCE]?: LimitFunction };
  return (store[ACCEPTANCE] ??= pLimit(EMAIL_REPEATS_PER_CRASH));
}

export function emailRetryDelays(): Delay[] {
  const override = config().email.retryDelays;
  return (override ? override.split(",") : [...EMAIL_RETRY_SCHEDULE]).map(parseDelay);
}

/**
 * Claims due emails: each becomes due again only at the lease's end, with one more attempt
 * counted, so two instances (or a duplicate job) never hold the same row at once (SKIP LOCKED:
 * rows another claim is taking are left to it). A process that dies mid-send leaves its rows due
 * again when the lease ends.
 */
async function claimDue(limit: number): Promise<EmailRow[]> {
  const db = await getDb();
  const now = realNow();
  // EMAIL_LEASE_MS (5 minutes): well beyond one attempt's timeouts (lib/emails/transport.ts).
  const lease = new Date(now.getTime() + config().email.leaseMs);
  const result = await db.execute(sql`
    update ${emails} set due_at = ${lease.toISOString()}::timestamptz, attempts = attempts + 1
    where id = any (array(
      select id from ${emails} where status = 'queued' and due_at <= ${now.toISOString()}::timestamptz
      order by due_at limit ${limit} for update skip locked))
    returning id`);
  const ids = rowsOf<{ id: string }>(result).map((row) => row.id);
  if (ids.length === 0) return [];
  // In queue order: the hourly limit's room goes to the oldest first.
  return db.select().from(emails).where(inArray(emails.id, ids)).orderBy(asc(emails.created), asc(emails.id));
}

type Outcome = "sent" | "retry" | "failed" | "skipped";
type Account = typeof accounts.$inferSelect;
type Settlement = { status: "sent" | "failed" | "rate_limited" | "queued"; response: string; retryAt?: Date };

/**
 * Records attempts' outcomes in one transaction, each only if its row is still this claim's (same
 * attempt, still queued): a claim whose lease ran out and was taken over records nothing.
 * `email.sent` / `email.failed` (one per email) commit with the rows. Answers, per entry, whether
 * it was recorded.
 */
async function settleAll(entries: readonly { row: EmailRow; account: Account; outcome: Settlement }[]): Promise<boolean[]> {
  return withChangeTransaction(async (tx) => {
    const recorded: boolean[] = [];
    for (const { row, account, outcome } of entries) {
      const [after] = await tx
        .update(emails)
        .set({
          status: outcome.status,
          smtpResponse: outcome.response.slice(0, 1000),
          dueAt: outcome.status === "queued" ? (outcome.retryAt ?? null) : null,
          // Real time, as the hourly limit counts it; any other outcome releases the claim's reservation.
          sentAt: outcome.status === "sent" ? realNow() : null,
          // A secret link (the portal sign-in link) is kept only while the email may still be sent.
          ...(outcome.status === "queued" ? {} : { link: null }),
        })
        .where(and(eq(emails.id, row.id), eq(emails.attempts, row.attempts), eq(emails.status, "queued")))
        .returning();
      recorded.push(after !== undefined);
      if (!after || outcome.status === "queued") continue;
      const ctx = systemContext(account);
      await emitEvent(tx, ctx, {
        type: outcome.status === "sent" ? "email.sent" : "email.failed",
        aggregateId: after.id,
        data: serializeEmail(after, ctx.livemode),
        previousData: serializeEmail(row, ctx.livemode),
      });
    }
    return recorded;
  });
}

/**
 * Group commit of outcomes: each lane waits for its own outcome's commit before taking its next
 * email, while the outcomes the lanes hand in during one commit share the next (a sent one is
 * committed before the gate admits the next transmission: oneAccepted).
 */
class Settler {
  private pending: { row: EmailRow; account: Account; outcome: Settlement; done: (recorded: boolean) => void; fail: (error: unknown) => void }[] = [];
  private committing = false;

  settle(row: EmailRow, account: Account, outcome: Settlement): Promise<boolean> {
    return new Promise((done, fail) => {
      this.pending.push({ row, account, outcome, done, fail });
      if (!this.committing) void this.commit();
    });
  }

  private async commit(): Promise<void> {
    this.committing = true;
    while (this.pending.length > 0) {
      const group = this.pending.splice(0);
      try {
        const recorded = await settleAll(group);
        group.forEach((entry, i) => entry.done(recorded[i]!));
      } catch (error) {
        group.forEach((entry) => entry.fail(error));
      }
    }
    this.committing = false;
  }
}

/** The email log's answer for an email the account's hourly limit refused (a 429 of our own). */
export const RATE_LIMITED_RESPONSE = "429 The account's hourly email limit was reached; this email was not sent.";

/**
 * Reserves room in the account's hourly limit for claimed emails, in claim order: those with room
 * get `sent_at` now (a reservation, replaced by the send's time when recorded, released by any
 * other outcome); the others are answered over the limit. The count and the reservation run under
 * the account's advisory lock, and the count includes other senders' reservations, so senders on
 * any number of instances never send more than the limit in a rolling hour (real time: the limit
 * protects the mail server's reputation). One count per account and claimed batch, a range scan
 * of `emails_account_sent_idx`.
 */
async function reserveHourly(account: Account, rows: readonly EmailRow[]): Promise<Set<string>> {
  const db = await getDb();
  const now = realNow();
  const ids = rows.map((row) => row.id);
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`emails.hourly:${account.id}`}, 0))`);
    // A claimed row's own earlier reservation (its sender died) is not counted twice.
    const [row] = await tx
      .select({ counted: sql<number>`count(*)::int` })
      .from(emails)
      .where(and(eq(emails.accountId, account.id), gte(emails.sentAt, new Date(now.getTime() - HOUR_MS)), notInArray(emails.id, ids)));
    const room = Math.max(0, account.emailHourlyLimit - Number(row?.counted ?? 0));
    const within = ids.slice(0, room);
    if (within.length > 0) {
      await tx.update(emails).set({ sentAt: now }).where(and(inArray(emails.id, within), eq(emails.status, "queued")));
    }
    return new Set(within);
  });
}

/** One attempt at one claimed email, its account and invoice read and its room in the hourly limit reserved with its batch's. */
async function attempt(row: EmailRow, known: { account: Account; invoice?: InvoiceWithLines }, withinLimit: boolean, settler: Settler): Promise<Outcome> {
  const { account } = known;
  const settle = (outcome: Settlement) => settler.settle(row, account, outcome);
  if (!withinLimit) {
    return (await settle({ status: "rate_limited", response: RATE_LIMITED_RESPONSE })) ? "failed" : "skipped";
  }
  let rendered;
  try {
    rendered = await renderEmail(systemContext(account), row, {}, known);
  } catch (error) {
    log().error({ email_id: row.id, err: safeError(error) }, "email could not be rendered; it failed");
    return (await settle({ status: "failed", response: `Not sent: ${responseOf(error)}` })) ? "failed" : "skipped";
  }
  const size = rendered.attachments.reduce((sum, file) => sum + file.content.length, 0);
  if (size > MAX_ATTACHMENTS_BYTES) {
    return (await settle({ status: "failed", response: `Not sent: the attachments weigh ${size} bytes, over the ${MAX_ATTACHMENTS_BYTES} allowed.` }))
      ? "failed"
      : "skipped";
  }
  let composed;
  try {
    composed = await compose(rendered);
  } catch (error) {
    log().error({ email_id: row.id, err: safeError(error) }, "email could not be composed; it failed");
    return (await settle({ status: "failed", response: `Not sent: ${responseOf(error)}` })) ? "failed" : "skipped";
  }
  // Transmitted and, once accepted, recorded before any other lane transmits (oneAccepted).
  const handed = await oneAccepted()(async (): Promise<{ recorded: boolean } | { error: unknown }> => {
    let sent;
    try {
      sent = await transmit(composed, row.id);
    } catch (error) {
      return { error };
    }
    // Only a message the server accepted is recorded sent.
    return { recorded: await settle({ status: "sent", response: sent.response }) };
  });
  if ("recorded" in handed) return handed.recorded ? "sent" : "skipped";
  const response = responseOf(handed.error);
  const delays = emailRetryDelays();
  // attempts counts this one: the first retry waits delays[0].
  const delay = delays[row.attempts - 1];
  if (isPermanent(handed.error) || !delay) {
    return (await settle({ status: "failed", response })) ? "failed" : "skipped";
  }
  const retryAt = new Date(realNow().getTime() + delay.ms);
  return (await settle({ status: "queued", response, retryAt })) ? "retry" : "skipped";
}

export type EmailPass = { sent: number; retrying: number; failed: number };

/**
 * Sends what is due, a batch at a time, until nothing is (or `maxBatches`): the work of every job
 * provider (the embedded driver, the Inngest function, the Vercel cron). Per batch, each account
 * is read once and its hourly room reserved once, and the invoices the emails render are read
 * together.
 */
export async function sendDueEmails(maxBatches = 20): Promise<EmailPass> {
  const pass: EmailPass = { sent: 0, retrying: 0, failed: 0 };
  const settler = new Settler();
  const db = await getDb();
  for (let batch = 0; batch < maxBatches; batch++) {
    const claimed = await claimDue(BATCH);
    if (claimed.length === 0) break;
    const accountIds = [...new Set(claimed.map((row) => row.accountId))];
    const found = await db.select().from(accounts).where(inArray(accounts.id, accountIds));
    const accountOf = new Map(found.map((account) => [account.id, account]));
    const within = new Set<string>();
    for (const account of found) {
      for (const id of await reserveHourly(account, claimed.filter((row) => row.accountId === account.id))) within.add(id);
    }
    // An email whose account is gone stays claimed until its lease ends (as before: nothing to record it against).
    const queue = claimed.filter((row) => accountOf.has(row.accountId));
    const invoiceOf = await invoicesOfEmails(queue);
    const worker = async () => {
      for (let row = queue.shift(); row !== undefined; row = queue.shift()) {
        try {
          const known = { account: accountOf.get(row.accountId)!, invoice: row.invoiceId ? invoiceOf.get(row.invoiceId) : undefined };
          const outcome = await attempt(row, known, within.has(row.id), settler);
          if (outcome === "sent") pass.sent++;
          else if (outcome === "retry") pass.retrying++;
          else if (outcome === "failed") pass.failed++;
        } catch (error) {
          // The row stays claimed until its lease ends, then is due again.
          log().error({ email_id: row.id, err: safeError(error) }, "email attempt failed; it is due again after its lease");
        }
      }
    };
    await Promise.all(Array.from({ length: EMAIL_SEND_CONCURRENCY }, worker));
  }
  return pass;
}
