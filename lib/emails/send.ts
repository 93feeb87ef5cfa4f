import { and, eq, gte, inArray, sql } from "drizzle-orm";
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
import { MAX_ATTACHMENTS_BYTES, renderEmail, type EmailRow } from "./render";
import { serializeEmail } from "./serialize";
import { isPermanent, responseOf, transmit } from "./transport";

/** After a temporary failure (4xx), retries wait these delays; then the email fails. */
export const EMAIL_RETRY_SCHEDULE = ["1m", "5m", "30m", "2h", "6h"] as const;

/** Rows claimed per pass, and sent this many at a time. */
const BATCH = 50;
export const EMAIL_SEND_CONCURRENCY = 4;

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
  return db.select().from(emails).where(inArray(emails.id, ids));
}

type Outcome = "sent" | "retry" | "failed" | "skipped";

/**
 * Records an attempt's outcome, if the row is still this claim's (same attempt, still queued):
 * a claim whose lease ran out and was taken over records nothing. `email.sent` / `email.failed`
 * commit with the row.
 */
async function settle(
  row: EmailRow,
  outcome: { status: "sent" | "failed" | "rate_limited" | "queued"; response: string; retryAt?: Date },
): Promise<boolean> {
  const db = await getDb();
  const [account] = await db.select().from(accounts).where(eq(accounts.id, row.accountId));
  if (!account) return false;
  const ctx = systemContext(account);
  return withChangeTransaction(async (tx) => {
    const [after] = await tx
      .update(emails)
      .set({
        status: outcome.status,
        smtpResponse: outcome.response.slice(0, 1000),
        dueAt: outcome.status === "queued" ? (outcome.retryAt ?? null) : null,
        // Real time, as the hourly limit counts it.
        sentAt: outcome.status === "sent" ? realNow() : null,
        // A secret link (the portal sign-in link) is kept only while the email may still be sent.
        ...(outcome.status === "queued" ? {} : { link: null }),
      })
      .where(and(eq(emails.id, row.id), eq(emails.attempts, row.attempts), eq(emails.status, "queued")))
      .returning();
    if (!after) return false;
    if (outcome.status !== "queued") {
      await emitEvent(tx, ctx, {
        type: outcome.status === "sent" ? "email.sent" : "email.failed",
        aggregateId: after.id,
        data: serializeEmail(after, ctx.livemode),
        previousData: serializeEmail(row, ctx.livemode),
      });
    }
    return true;
  });
}

/** The email log's answer for an email the account's hourly limit refused (a 429 of our own). */
export const RATE_LIMITED_RESPONSE = "429 The account's hourly email limit was reached; this email was not sent.";

/** Emails the account sent in the last hour (real time: the limit protects the mail server's reputation). */
async function sentInLastHour(accountId: string): Promise<number> {
  const db = await getDb();
  const [row] = await db
    .select({ sent: sql<number>`count(*)::int` })
    .from(emails)
    .where(and(eq(emails.accountId, accountId), eq(emails.status, "sent"), gte(emails.sentAt, new Date(realNow().getTime() - HOUR_MS))));
  return Number(row?.sent ?? 0);
}

/** One attempt at one claimed email. */
async function attempt(row: EmailRow): Promise<Outcome> {
  const db = await getDb();
  const [account] = await db.select().from(accounts).where(eq(accounts.id, row.accountId));
  if (!account) return "skipped";
  if ((await sentInLastHour(row.accountId)) >= account.emailHourlyLimit) {
    return (await settle(row, { status: "rate_limited", response: RATE_LIMITED_RESPONSE })) ? "failed" : "skipped";
  }
  let rendered;
  try {
    rendered = await renderEmail(systemContext(account), row);
  } catch (error) {
    log().error({ email_id: row.id, err: safeError(error) }, "email could not be rendered; it failed");
    return (await settle(row, { status: "failed", response: `Not sent: ${responseOf(error)}` })) ? "failed" : "skipped";
  }
  const size = rendered.attachments.reduce((sum, file) => sum + file.content.length, 0);
  if (size > MAX_ATTACHMENTS_BYTES) {
    return (await settle(row, { status: "failed", response: `Not sent: the attachments weigh ${size} bytes, over the ${MAX_ATTACHMENTS_BYTES} allowed.` }))
      ? "failed"
      : "skipped";
  }
  try {
    const sent = await transmit(rendered, row.id);
    return (await settle(row, { status: "sent", response: sent.response })) ? "sent" : "skipped";
  } catch (error) {
    const response = responseOf(error);
    const delays = emailRetryDelays();
    // attempts counts this one: the first retry waits delays[0].
    const delay = delays[row.attempts - 1];
    if (isPermanent(error) || !delay) {
      return (await settle(row, { status: "failed", response })) ? "failed" : "skipped";
    }
    const retryAt = new Date(realNow().getTime() + delay.ms);
    return (await settle(row, { status: "queued", response, retryAt })) ? "retry" : "skipped";
  }
}

export type EmailPass = { sent: number; retrying: number; failed: number };

/**
 * Sends what is due, a batch at a time, until nothing is (or `maxBatches`): the work of every job
 * provider (the embedded driver, the Inngest function, the Vercel cron).
 */
export async function sendDueEmails(maxBatches = 20): Promise<EmailPass> {
  const pass: EmailPass = { sent: 0, retrying: 0, failed: 0 };
  for (let batch = 0; batch < maxBatches; batch++) {
    const queue = await claimDue(BATCH);
    if (queue.length === 0) break;
    const worker = async () => {
      for (let row = queue.shift(); row !== undefined; row = queue.shift()) {
        try {
          const outcome = await attempt(row);
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
