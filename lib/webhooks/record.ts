import { sql } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { deliveryAttempts } from "@/db/schema";
import { newId } from "@/lib/ids";
import type { AttemptedOutcome } from "./attempt";
import { noteAttemptOutcome } from "./auto-disable";
import type { SendResult } from "./send";

/** One finished attempt, to be written to its delivery row and the attempt log. */
export type AttemptRecord = {
  deliveryId: string;
  accountId: string;
  attempt: number;
  url: string;
  trigger: "scheduled" | "manual";
  sent: SendResult;
  outcome: AttemptedOutcome;
  at: Date;
};

/**
 * Writes finished attempts in one transaction of two statements, however many there are: the
 * delivery rows (fenced by the attempt number: an attempt whose lease was taken over records only
 * its log) and the attempt log.
 */
export async function recordAttempts(db: Executor, records: AttemptRecord[]): Promise<void> {
  if (records.length === 0) return;
  const rows = records.map((record) => {
    const { outcome, sent, at } = record;
    const nextRetryAt = outcome.result === "retry" ? new Date(at.getTime() + outcome.delay.ms).toISOString() : null;
    return {
      id: record.deliveryId,
      attempt: record.attempt,
      status: outcome.result === "delivered" ? "delivered" : "failed",
      delivered_at: outcome.result === "delivered" ? at.toISOString() : null,
      response_status: sent.status,
      error: outcome.result === "delivered" ? null : outcome.error,
      next_retry_at: nextRetryAt,
      updated: at.toISOString(),
    };
  });
  await db.transaction(async (tx) => {
    await tx.execute(sql`
      update event_deliveries d
      set status = v.status::delivery_status, delivered_at = v.delivered_at, response_status = v.response_status,
        error = v.error, next_retry_at = v.next_retry_at, due_at = v.next_retry_at, updated = v.updated
      from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as v(
        id text, attempt int, status text, delivered_at timestamptz, response_status int, error text,
        next_retry_at timestamptz, updated timestamptz)
      where d.id = v.id and d.attempt_count = v.attempt and d.status = 'delivering'
    `);
    await tx.insert(deliveryAttempts).values(
      records.map((record) => ({
        id: newId("deliveryAttempt"),
        accountId: record.accountId,
        deliveryId: record.deliveryId,
        attemptNumber: record.attempt,
        trigger: record.trigger,
        outcome: record.outcome.result,
        url: record.url,
        responseStatus: record.sent.status,
        error: record.outcome.result === "delivered" ? null : record.outcome.error,
        responseExcerpt: record.sent.excerpt,
        durationMs: record.sent.durationMs,
        created: record.at,
      })),
    );
    // Auto-disable bookkeeping per endpoint (lib/webhooks/auto-disable.ts): its updates match no
    // row in the common case, so they cost an index probe each.
    for (const record of records) await noteAttemptOutcome(tx, record.deliveryId, record.outcome.result === "delivered");
  });
}
