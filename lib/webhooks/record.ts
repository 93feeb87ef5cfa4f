import { sql } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { PLANNED_ONCE_MARK } from "@/db/prepared";
import { deliveryAttempts } from "@/db/schema";
import { newId } from "@/lib/ids";
import type { AttemptedOutcome } from "./attempt";
import { endpointHealthUpdate } from "./auto-disable";
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

/** When a failed attempt's retry is due (its delay after the attempt); null when none follows. */
export function retryDueAt(record: AttemptRecord): Date | null {
  return record.outcome.result === "retry" ? new Date(record.at.getTime() + record.outcome.delay.ms) : null;
}

/**
 * Writes finished attempts in one statement, however many there are (one round trip, atomic):
 * the delivery rows (fenced by the attempt number: an attempt whose lease was taken over records
 * only its log), the attempt log, and the endpoints' auto-disable bookkeeping. The batch is one
 * jsonb parameter, so the statement's text never changes and is prepared once.
 */
export async function recordAttempts(db: Executor, records: AttemptRecord[]): Promise<void> {
  if (records.length === 0) return;
  // In finishing order: the last attempt per endpoint decides its failing state.
  const ordered = [...records].sort((a, b) => a.at.getTime() - b.at.getTime());
  const rows = ordered.map((record, n) => {
    const { outcome, sent, at } = record;
    const delivered = outcome.result === "delivered";
    return {
      n,
      id: record.deliveryId,
      log_id: newId("deliveryAttempt"),
      account_id: record.accountId,
      attempt: record.attempt,
      trigger: record.trigger,
      outcome: outcome.result,
      url: record.url,
      status: delivered ? "delivered" : "failed",
      delivered,
      delivered_at: delivered ? at.toISOString() : null,
      response_status: sent.status,
      error: delivered ? null : outcome.error,
      response_excerpt: sent.excerpt,
      duration_ms: sent.durationMs,
      next_retry_at: retryDueAt(record)?.toISOString() ?? null,
      at: at.toISOString(),
    };
  });
  const outcomes = sql`(
    select d.webhook_endpoint_id as endpoint_id, bool_or(v.delivered) as any_delivered,
      (array_agg(v.delivered order by v.n desc))[1] as last_delivered
    from v join event_deliveries d on d.id = v.id group by d.webhook_endpoint_id)`;
  // Reads event_deliveries by id only: prepared once, whatever the accounts' sizes (db/prepared.ts).
  await db.execute(sql`${sql.raw(PLANNED_ONCE_MARK)}
    with v as (
      select * from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as v(n int, id text, log_id text,
        account_id text, attempt int, trigger text, outcome text, url text, status text, delivered boolean,
        delivered_at timestamptz, response_status int, error text, response_excerpt text, duration_ms int,
        next_retry_at timestamptz, at timestamptz)
    ),
    deliveries as (
      update event_deliveries d
      set status = v.status::delivery_status, delivered_at = v.delivered_at, response_status = v.response_status,
        error = v.error, next_retry_at = v.next_retry_at, due_at = v.next_retry_at, updated = v.at
      from v where d.id = v.id and d.attempt_count = v.attempt and d.status = 'delivering'
    ),
    attempt_log as (
      insert into ${deliveryAttempts} (id, account_id, delivery_id, attempt_number, trigger, outcome, url,
        response_status, error, response_excerpt, duration_ms, created)
      select log_id, account_id, id, attempt, trigger::attempt_trigger, outcome::attempt_outcome, url,
        response_status, error, response_excerpt, duration_ms, at from v
    ),
    endpoints as (${endpointHealthUpdate(outcomes, ordered.at(-1)!.at)})
    select 1
  `);
}
